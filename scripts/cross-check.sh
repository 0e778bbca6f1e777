#!/usr/bin/env bash
# The Raspberry Pi build, proven: cross-builds meshai for 64-bit Raspberry Pi OS
# (aarch64-unknown-linux-gnu) with Debian's own Rust packages (no rustup target, no container),
# builds and checks the arm64 .deb, then runs the unit tests and a `meshai check` smoke test
# under qemu-user. Prints the binary size and the glibc it needs.
#
# Needs Debian bookworm (or later) as root with apt: it installs what is missing, once:
#   dpkg --add-architecture arm64; rustc-web, cargo-web, libstd-rust-web-dev:arm64 (Rust 1.96,
#   bookworm-security), gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user.
# Debian's cargo and rustc are called by full path: rustup's, first on PATH, have no arm64 std.
# Builds in target/cross so it never fights the host build. Any failing step stops the script
# with a line saying which.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=aarch64-unknown-linux-gnu
GNU=aarch64-linux-gnu
start=$SECONDS

fail() {
    echo "cross-check: FAIL: $*" >&2
    exit 1
}
step() {
    echo "cross-check: $* ($((SECONDS - start)) s)"
}

# 1. The toolchain, from Debian's archive.
packages=(rustc-web cargo-web libstd-rust-web-dev:arm64 gcc-$GNU libc6-dev-arm64-cross qemu-user)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    step "installing ${missing[*]}"
    [ "$(id -u)" -eq 0 ] || fail "not root: install ${missing[*]} with apt-get first"
    dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
    apt-get update -q >/dev/null || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
        >/dev/null || fail "apt-get install ${missing[*]}"
fi
CARGO=/usr/bin/cargo
RUSTC=/usr/bin/rustc
[ -x "$CARGO" ] && [ -x "$RUSTC" ] || fail "Debian's cargo or rustc is missing from /usr/bin"
[ -d /usr/lib/rustlib/$TARGET ] || fail "no $TARGET standard library (libstd-rust-web-dev:arm64)"
step "toolchain: $($RUSTC --version), $($CARGO --version)"

export RUSTC CARGO
export CARGO_TARGET_DIR="$PWD/target/cross"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$GNU-gcc
export CC_aarch64_unknown_linux_gnu=$GNU-gcc
export AR_aarch64_unknown_linux_gnu=$GNU-ar
# Once libc6:arm64 is installed, qemu must look for the arm64 libraries in the cross sysroot,
# or the test threads hang.
QEMU=(qemu-aarch64 -L /usr/$GNU -E LD_LIBRARY_PATH=/usr/$GNU/lib)
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="${QEMU[*]}"

# 2. The release binary.
$CARGO build --release --locked --target $TARGET || fail "release build for $TARGET"
bin=$CARGO_TARGET_DIR/$TARGET/release/meshai
file "$bin" 2>/dev/null | grep -q 'ARM aarch64' || [ ! -x /usr/bin/file ] || fail "$bin is not an arm64 binary"
size=$(stat -c %s "$bin")
glibc=$($GNU-objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
step "built $bin: $size bytes ($((size / 1024)) KiB), needs $glibc"

# 3. The package, checked like the native one (contents, conffile, unit, maintainer scripts).
# cargo-deb is found as a cargo subcommand; Debian's cargo goes first on PATH for it.
PATH=/usr/bin:$PATH DEB_OUT=$CARGO_TARGET_DIR/debian scripts/check-deb.sh --target $TARGET --no-build --no-strip ||
    fail "the arm64 .deb"
step "arm64 .deb built and checked"

# 4. The unit tests, run by qemu.
$CARGO test --locked --lib --target $TARGET 2>&1 | tee "$CARGO_TARGET_DIR/lib-tests.log" ||
    fail "unit tests under qemu"
grep -E '^test result: ok\. [0-9]+ passed' "$CARGO_TARGET_DIR/lib-tests.log" >/dev/null ||
    fail "no passing unit-test summary under qemu"
step "unit tests passed under qemu"

# 5. `meshai check` under qemu: config read, SQLite (C, cross-compiled) opened, the LLM and
# the radio tried on closed loopback ports; each line must say so.
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"' EXIT
cat >"$smoke/config.toml" <<TOML
[radio]
tcp = "127.0.0.1:9"
handshake_timeout_secs = 2
[llm]
base_url = "http://127.0.0.1:9/v1"
timeout_secs = 2
[storage]
database = "$smoke/meshai.db"
TOML
rc=0
out=$("${QEMU[@]}" "$bin" check --config "$smoke/config.toml") || rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 1 ] || fail "meshai check under qemu exited $rc, expected 1 (nothing to reach)"
grep -q '^✓ config ' <<<"$out" || fail "no ✓ config line"
grep -q '^✓ database .* (0 nodes, 0 messages)$' <<<"$out" || fail "no ✓ database line"
grep -q '^✗ llm http://127.0.0.1:9/v1' <<<"$out" || fail "no ✗ llm line"
grep -q '^✗ radio tcp 127.0.0.1:9' <<<"$out" || fail "no ✗ radio line"
[ "$(stat -c %a "$smoke/meshai.db")" = 600 ] || fail "the database is not 0600"
"${QEMU[@]}" "$bin" --version
step "meshai check smoke test passed under qemu"

echo "cross-check: OK in $((SECONDS - start)) s: $TARGET binary $size bytes, needs $glibc"
