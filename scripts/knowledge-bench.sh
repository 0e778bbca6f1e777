#!/usr/bin/env bash
# The real-model knowledge benchmark (benches/knowledge.rs): a club's questions answered with
# and without its documents (benches/knowledge/), by Qwen2.5-Coder-0.5B-Instruct on llama.cpp's
# server in the Raspberry Pi shape (1 thread, 1 slot, streamed answers). Numbers go to stdout;
# docs/benchmarks.md has the last run's.
#
# Usage: scripts/knowledge-bench.sh [RUNS]   (default 1)
#        MESHAI_KNOWLEDGE_LANG=de scripts/knowledge-bench.sh   (or es fr it pt nl pl: the same
#        club in that language, benches/knowledge/de/ and the others; unset or en: English)
#
# With MESHAI_REAL_LLM_URL set, that server is used as it is: nothing is started or stopped.
# Otherwise the server is started with scripts/local-llm.sh (on a free port) and stopped after.
# The same for the embedding model of the "by meaning too" subject: MESHAI_EMBED_URL, or
# all-MiniLM-L6-v2 started with scripts/embed-llm.sh (1 thread); MESHAI_EMBED_URL=off skips
# that subject.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-1}
cargo bench --locked --bench knowledge --no-run >/dev/null 2>&1 || cargo bench --locked --bench knowledge --no-run

started=0
if [[ -z "${MESHAI_REAL_LLM_URL:-}" ]]; then
    out=$(MESHAI_REAL_LLM_QWEN=1 MESHAI_REAL_LLM_CTX=4096 MESHAI_REAL_LLM_PARALLEL=1 \
        MESHAI_REAL_LLM_THREADS=1 scripts/local-llm.sh start) || {
        printf '%s\n' "$out"
        exit 1
    }
    MESHAI_REAL_LLM_URL=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
    export MESHAI_REAL_LLM_URL
    started=1
fi
embed_started=0
if [[ -z "${MESHAI_EMBED_URL:-}" ]]; then
    if out=$(scripts/embed-llm.sh start); then
        MESHAI_EMBED_URL=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_EMBED_URL=//p')
        MESHAI_EMBED_MODEL=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_EMBED_MODEL=//p')
        export MESHAI_EMBED_URL MESHAI_EMBED_MODEL
        embed_started=1
    else
        printf '%s\n' "$out"
    fi
elif [[ "$MESHAI_EMBED_URL" == off ]]; then
    unset MESHAI_EMBED_URL
fi
status=0
for run in $(seq "$runs"); do
    echo "== run $run of $runs, server $MESHAI_REAL_LLM_URL"
    cargo bench --locked --bench knowledge || status=$?
    [[ $status -eq 0 ]] || break
done
if [[ $started -eq 1 ]]; then
    scripts/local-llm.sh stop >/dev/null
fi
if [[ $embed_started -eq 1 ]]; then
    scripts/embed-llm.sh stop >/dev/null
fi
exit "$status"
