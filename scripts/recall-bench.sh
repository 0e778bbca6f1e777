#!/usr/bin/env bash
# The real-model recall benchmark (benches/recall.rs) in its three scenarios, each against a
# llama.cpp server shaped for it, serving Qwen2.5-Coder-0.5B-Instruct (from PyPI, see
# scripts/local-llm.sh). Numbers go to stdout; docs/benchmarks.md has the last run's.
#
# Usage: scripts/recall-bench.sh [28|long|nodes3]...   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."

scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(28 long nodes3)
cargo bench --locked --bench recall --no-run >/dev/null 2>&1 || cargo bench --locked --bench recall --no-run

for scenario in "${scenarios[@]}"; do
    case "$scenario" in
    28) ctx=4096 parallel=2 ;;     # one node: its slot and the summaries' slot
    long) ctx=2048 parallel=2 ;;   # a context the whole history outgrows
    nodes3) ctx=4096 parallel=4 ;; # three nodes and the summaries' slot
    *)
        echo "unknown scenario $scenario (28, long or nodes3)" >&2
        exit 1
        ;;
    esac
    scripts/local-llm.sh stop >/dev/null 2>&1 || true
    out=$(MESHAI_REAL_LLM_QWEN=1 MESHAI_REAL_LLM_CTX=$ctx MESHAI_REAL_LLM_PARALLEL=$parallel \
        scripts/local-llm.sh start) || {
        printf '%s\n' "$out"
        exit 1
    }
    url=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
    echo "== scenario $scenario: --ctx-size $ctx per slot, --parallel $parallel"
    MESHAI_REAL_LLM_URL=$url MESHAI_RECALL=$scenario cargo bench --locked --bench recall ||
        status=$?
    scripts/local-llm.sh stop >/dev/null
    [[ ${status:-0} -eq 0 ]] || exit "$status"
done
