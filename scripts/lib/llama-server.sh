# shellcheck shell=bash
# What scripts/local-llm.sh and scripts/embed-llm.sh share about the llama-server each of them
# runs: skipping and dying with their own message prefix, pip installs into the venv, the
# AVX-512 check, and waiting for a started server, stopping it and saying whether it runs, by
# its PID and port files. Sourced, not run; the functions expect `set -euo pipefail`, as both
# scripts set it.
#
# Before calling them a caller sets:
#   LOG_PREFIX  the start of its messages, e.g. "local-llm" for "local-llm: not running"
#   SKIP_WHAT   what a skip skips, e.g. "real-model tier" for "SKIPPED real-model tier: <reason>"
#   VENV        the Python venv that pip_install installs into (and creates if needed)
#   PIDFILE, PORTFILE, LOGFILE  the server's PID, port and log files
#   WAIT        seconds await_health waits for /health
# and defines print_env PORT, which prints the lines a caller of `start` can `eval`.

# The exit code of a skip: the server cannot run on this machine, and the caller should skip,
# not fail.
readonly SKIP=3

skip() {
    echo "SKIPPED $SKIP_WHAT: $*"
    exit "$SKIP"
}

die() {
    echo "$LOG_PREFIX: $*" >&2
    exit 1
}

# Whether the CPU has the AVX-512 foundation instructions the prebuilt ggml CPU code uses.
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
    echo "$LOG_PREFIX: installing $* into $VENV" >&2
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV" >&2 || return 1
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${opts[@]}" "$@" >&2 ||
        return 1
    echo "$LOG_PREFIX: installed in $((SECONDS - started)) s" >&2
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

# Writes the PID and port files for the server just started in the background as `$1` on port
# `$2`, and waits for its /health. Prints the env lines and returns 0 when healthy; returns 132
# when the server died with SIGILL; skips (exit 3) on any other failure. The server must be a
# child of this shell, so that its exit status can be had with `wait`.
await_health() {
    local pid=$1 port=$2
    echo "$pid" >"$PIDFILE"
    echo "$port" >"$PORTFILE"

    local deadline=$((SECONDS + WAIT))
    while ((SECONDS < deadline)); do
        if ! alive "$pid"; then
            local code=0
            wait "$pid" || code=$?
            rm -f "$PIDFILE" "$PORTFILE"
            echo "$LOG_PREFIX: last lines of $LOGFILE:" >&2
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
        echo "$LOG_PREFIX: not running"
        return 0
    fi
    terminate "$pid"
    rm -f "$PIDFILE" "$PORTFILE"
    echo "$LOG_PREFIX: stopped $pid"
}

status() {
    local pid
    if pid=$(running_pid); then
        local port
        port=$(<"$PORTFILE")
        echo "$LOG_PREFIX: running, pid $pid, /health $(http_status "$port" /health)"
        print_env "$port"
        return 0
    fi
    echo "$LOG_PREFIX: not running"
    return 1
}
