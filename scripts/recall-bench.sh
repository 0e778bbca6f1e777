#!/usr/bin/env bash
# The real-model recall benchmark (benches/recall.rs) in its three scenarios, each against a
# llama.cpp server shaped for it, serving Qwen2.5-Coder-0.5B-Instruct (from PyPI, see
# scripts/local-llm.sh). Numbers go to stdout; docs/benchmarks.md has the last run's.
#
# Usage: scripts/recall-bench.sh [28|long|nodes3|de|pi|pi-nodes3|pi-de|pi-es|corrections]...
#        (default: 28 long nodes3)
#
# The pi* scenarios are the Raspberry Pi-class shape: llama-server with 1 thread and 1 slot
# (summaries share the replies' slot), streamed answers; `de` asks everything in German, with
# two value sets (16 facts); `pi-es` in Spanish, two value sets; `corrections` is the Pi shape with four of ten facts corrected
# (benches/recall/corrections.rs), two value sets. MESHAI_REAL_LLM_ARGS passes more server flags (e.g. "--cache-ram 0").
set -euo pipefail
cd "$(dirname "$0")/.."

scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(28 long nodes3)
cargo bench --locked --bench recall --no-run >/dev/null 2>&1 || cargo bench --locked --bench recall --no-run

for scenario in "${scenarios[@]}"; do
    threads=2 bench=(MESHAI_RECALL="$scenario")
    case "$scenario" in
    28) ctx=4096 parallel=2 ;;     # one node: its slot and the summaries' slot
    long) ctx=2048 parallel=2 ;;   # a context the whole history outgrows
    nodes3) ctx=4096 parallel=4 ;; # three nodes and the summaries' slot
    de) ctx=4096 parallel=2 bench=(MESHAI_RECALL=28 MESHAI_RECALL_LANG=de MESHAI_RECALL_SETS=2) ;;
    pi) ctx=4096 parallel=1 threads=1 bench=(MESHAI_RECALL=28 MESHAI_RECALL_STREAM=1) ;;
    pi-nodes3) ctx=4096 parallel=1 threads=1 bench=(MESHAI_RECALL=nodes3 MESHAI_RECALL_STREAM=1) ;;
    pi-de)
        ctx=4096 parallel=1 threads=1
        bench=(MESHAI_RECALL=28 MESHAI_RECALL_STREAM=1 MESHAI_RECALL_LANG=de MESHAI_RECALL_SETS=2)
        ;;
    pi-es)
        ctx=4096 parallel=1 threads=1
        bench=(MESHAI_RECALL=28 MESHAI_RECALL_STREAM=1 MESHAI_RECALL_LANG=es MESHAI_RECALL_SETS=2)
        ;;
    corrections)
        ctx=4096 parallel=1 threads=1
        bench=(MESHAI_RECALL=corrections MESHAI_RECALL_STREAM=1 MESHAI_RECALL_SETS=2)
        ;;
    *)
        echo "unknown scenario $scenario (28, long, nodes3, de, pi, pi-nodes3, pi-de, pi-es or corrections)" >&2
        exit 1
        ;;
    esac
    scripts/local-llm.sh stop >/dev/null 2>&1 || true
    out=$(MESHAI_REAL_LLM_QWEN=1 MESHAI_REAL_LLM_CTX=$ctx MESHAI_REAL_LLM_PARALLEL=$parallel \
        MESHAI_REAL_LLM_THREADS=$threads scripts/local-llm.sh start) || {
        printf '%s\n' "$out"
        exit 1
    }
    url=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
    echo "== scenario $scenario: --ctx-size $ctx per slot, --parallel $parallel, --threads $threads ${MESHAI_REAL_LLM_ARGS:-}"
    env MESHAI_REAL_LLM_URL="$url" "${bench[@]}" cargo bench --locked --bench recall ||
        status=$?
    scripts/local-llm.sh stop >/dev/null
    [[ ${status:-0} -eq 0 ]] || exit "$status"
done
