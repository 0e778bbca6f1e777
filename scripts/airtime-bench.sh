#!/usr/bin/env bash
# The airtime benchmark (benches/airtime.rs) against llama.cpp's server with
# Qwen2.5-Coder-0.5B-Instruct (from PyPI, see scripts/local-llm.sh): airtime per answer at 10 %
# and 30 % channel utilization, and how long replies wait at 45 %. Numbers go to stdout;
# docs/benchmarks.md has the last run's. On a shared machine run it as
# `flock /tmp/meshai-realmodel.lock scripts/airtime-bench.sh`: the build and the run then keep
# off the cores while another real-model run holds the lock.
#
# Usage: scripts/airtime-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

cargo bench --locked --bench airtime --no-run >/dev/null 2>&1 || cargo bench --locked --bench airtime --no-run
scripts/local-llm.sh stop >/dev/null 2>&1 || true
out=$(MESHAI_REAL_LLM_QWEN=1 scripts/local-llm.sh start) || {
    printf '%s\n' "$out"
    exit 1
}
url=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
status=0
MESHAI_REAL_LLM_URL=$url cargo bench --locked --bench airtime || status=$?
scripts/local-llm.sh stop >/dev/null
exit "$status"
