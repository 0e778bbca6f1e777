#!/usr/bin/env bash
# The whole test suite, from a fresh checkout: unit tests, the integration tests against the
# simulated node and the fake LLM, and (where the CPU can run it) the real-model tier.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --all-targets --locked "$@"
