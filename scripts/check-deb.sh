#!/usr/bin/env bash
# Builds the Debian package with cargo-deb (installing cargo-deb from crates.io when missing)
# and checks what is inside: the binary, the config as a conffile, the systemd unit, and maintainer
# scripts that create the `meshai` user without enabling or starting the service.
#
# Usage: scripts/check-deb.sh [extra cargo-deb flags, e.g. --target aarch64-unknown-linux-gnu]
# Honours CARGO_TARGET_DIR; DEB_OUT=DIR keeps a copy of the package there. Needs dpkg-deb (Debian/Ubuntu); uses systemd-analyze when present.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "check-deb: FAIL: $*" >&2
    exit 1
}

start=$SECONDS
if ! cargo deb --version >/dev/null 2>&1; then
    echo "check-deb: installing cargo-deb from crates.io"
    # Built in cargo's own temporary directory, not in the project's target dir.
    env -u CARGO_TARGET_DIR cargo install cargo-deb --locked
fi
installed=$SECONDS
echo "check-deb: cargo-deb ready in $((installed - start)) s ($(cargo deb --version))"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo deb --locked --output "$out" "$@"
built=$SECONDS
echo "check-deb: package built in $((built - installed)) s"

shopt -s nullglob
debs=("$out"/*.deb)
[ "${#debs[@]}" -eq 1 ] || fail "expected one .deb in $out, found ${#debs[@]}"
deb=${debs[0]}
echo "check-deb: $(basename "$deb") ($(stat -c %s "$deb") bytes)"
if [ -n "${DEB_OUT:-}" ]; then
    mkdir -p "$DEB_OUT" && cp "$deb" "$DEB_OUT/"
fi

contents=$(dpkg-deb --contents "$deb")
info=$(dpkg-deb --info "$deb")
echo "$contents"
echo "$info"

has_file() {
    grep -Eq " \./$1\$" <<<"$contents" || fail "the package has no /$1"
}
has_file 'usr/bin/meshai'
has_file 'etc/meshai/config\.toml'
has_file '(usr/)?lib/systemd/system/meshai\.service'
has_file 'usr/share/doc/meshai/raspberry-pi\.md'
has_file 'usr/share/doc/meshai/configuration\.md'
grep -Eq '^-rwxr-xr-x .* \./usr/bin/meshai$' <<<"$contents" || fail "/usr/bin/meshai is not 0755"

dpkg-deb --info "$deb" conffiles | grep -qx '/etc/meshai/config.toml' ||
    fail "/etc/meshai/config.toml is not a conffile"
grep -Eq '^ Section: net$' <<<"$info" || fail "section is not net"
grep -Eq '^ Depends: .*adduser' <<<"$info" || fail "Depends lacks adduser"

x="$out/x"
dpkg-deb --raw-extract "$deb" "$x"
cmp -s "$x/etc/meshai/config.toml" config.example.toml || fail "config.toml differs from config.example.toml"
unit=$(find "$x" -path '*/systemd/system/meshai.service' | head -n 1)
cmp -s "$unit" systemd/meshai.service || fail "the packaged unit differs from systemd/meshai.service"

postinst="$x/DEBIAN/postinst"
[ -x "$postinst" ] || fail "no executable postinst"
grep -q 'adduser --system --group --home /var/lib/meshai' "$postinst" || fail "postinst does not create the meshai user"
grep -q 'adduser --quiet meshai dialout' "$postinst" || fail "postinst does not add meshai to dialout"
grep -q '#DEBHELPER#' "$postinst" && fail "postinst still has the #DEBHELPER# token"
# Installing must neither enable nor start the unit; an upgrade only restarts a running one.
# cargo-deb's "don't enable" snippet only re-enables a unit that an earlier version installed.
grep -q 'deb-systemd-helper debian-installed meshai.service' "$postinst" ||
    fail "postinst enables the unit on a fresh install"
# shellcheck disable=SC2016 # a literal $_dh_action, as in cargo-deb's start snippet
grep -Eq 'deb-systemd-invoke (start|\$_dh_action)' "$postinst" && fail "postinst starts the unit"
grep -q 'deb-systemd-invoke try-restart meshai.service' "$postinst" || fail "postinst does not restart on upgrade"
sh -n "$postinst" || fail "postinst is not valid sh"
[ -x "$x/DEBIAN/postrm" ] || fail "no executable postrm"
sh -n "$x/DEBIAN/postrm" || fail "postrm is not valid sh"
grep -q 'rm -rf /var/lib/meshai' "$x/DEBIAN/postrm" || fail "postrm does not remove the database on purge"

# The packaged binary runs (when it was built for this machine).
if "$x/usr/bin/meshai" --version >/dev/null 2>&1; then
    echo "check-deb: $("$x/usr/bin/meshai" --version)"
    if command -v systemd-analyze >/dev/null; then
        # verify wants ExecStart's binary to exist: point a copy of the unit at the extracted one.
        sed "s#^ExecStart=/usr/bin/meshai#ExecStart=$x/usr/bin/meshai#" "$unit" >"$out/meshai.service"
        systemd-analyze verify "$out/meshai.service" || fail "systemd-analyze verify"
        echo "check-deb: systemd-analyze verify passed"
    fi
fi

echo "check-deb: OK in $((SECONDS - start)) s (install $((installed - start)) s, build $((built - installed)) s)"
