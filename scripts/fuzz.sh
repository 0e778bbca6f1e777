#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ for SECONDS each (default 60) and prints one line per
# target with its executions, for docs/benchmarks.md. Not part of the test suite.
#
# Usage: scripts/fuzz.sh [SECONDS]
#
# Installs cargo-fuzz when it is missing. Works on the stable toolchain: cargo-fuzz passes
# nightly-only flags (-Zsanitizer=address and friends), which RUSTC_BOOTSTRAP=1 lets stable
# accept. Corpora grow in fuzz/corpus/<target>, crashes land in fuzz/artifacts/<target>
# (both git-ignored). Exits 1 when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

readonly TARGETS=(frame_decoder chunker)
seconds=${1:-60}
if [[ ! "$seconds" =~ ^[0-9]+$ ]] || ((seconds == 0)); then
    echo "usage: $0 [SECONDS]" >&2
    exit 1
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1

cargo fuzz build

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
results=()
failed=0
for target in "${TARGETS[@]}"; do
    mkdir -p "corpus/$target"
    echo "fuzz: running $target for $seconds s" >&2
    status=0
    cargo fuzz run "$target" -- -max_total_time="$seconds" -timeout=10 \
        -print_final_stats=1 >"$logs/$target.log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$target.log" | tail -n 1)
    execs=${execs:-0}
    if ((status == 0)); then
        outcome="no crash"
    else
        failed=1
        outcome="CRASH (exit $status): see fuzz/artifacts/$target/"
        tail -n 40 "$logs/$target.log" >&2
    fi
    results+=("fuzz $target: $execs execs in $seconds s ($((execs / seconds))/s), $outcome")
done

printf '%s\n' "${results[@]}"
exit "$failed"
