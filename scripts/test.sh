#!/usr/bin/env bash
# The whole test suite, from a fresh checkout: unit tests, the integration tests against the
# simulated node and the fake LLM (tests/it), then the real-model tier against a real small LLM
# (llama.cpp + SmolLM2-135M from PyPI, see docs/testing.md) where this CPU can run it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Everything but the real-model tier.
# Benches (benches/) are programs that print numbers, not tests: they are left out here.
cargo test --locked --lib --bins --tests --examples -- --skip real_llm

# The real-model tier: scripts/local-llm.sh installs and starts the server, or says why it can't.
rc=0
out=$(scripts/local-llm.sh start) || rc=$?
if [ "$rc" -eq 0 ]; then
    trap 'scripts/local-llm.sh stop >/dev/null 2>&1 || true' EXIT
    MESHAI_REAL_LLM_URL=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
    export MESHAI_REAL_LLM_URL
    echo "real-model tier: $MESHAI_REAL_LLM_URL"
    cargo test --locked --test it real_llm -- --nocapture
elif [ "$rc" -eq 3 ]; then
    echo "================================================================"
    printf '%s\n' "$out" | grep '^SKIPPED' || echo "SKIPPED real-model tier"
    echo "================================================================"
else
    printf '%s\n' "$out"
    echo "real-model tier: scripts/local-llm.sh failed (exit $rc)" >&2
    exit "$rc"
fi
