#!/usr/bin/env bash
# `make test-swiftlang`: `make test` on a fresh Debian SUITE (default trixie), as a new user runs
# it: a minimal root made with mmdebstrap (apt, make and CA certificates, nothing else), this tree
# copied in, and `make test` run in it from nothing. On trixie that installs Debian's own Swift
# (swiftlang, the compiler a Pi owner gets from apt) and the C libraries itself, builds with zero
# warnings and runs the whole suite. The root is made anew each time and removed afterwards.
#
#   sudo scripts/test-fresh.sh [SUITE]      MIRROR (http://deb.debian.org/debian), KEEP=1 (keep the root)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
die() { printf 'islet: %s\n' "$*" >&2; exit 1; }
say() { printf 'islet: %s\n' "$*"; }

suite="${1:-trixie}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
[ "$(id -u)" = 0 ] || die "making and entering a Debian root needs root: sudo scripts/test-fresh.sh $suite"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: sudo apt-get install mmdebstrap"
command -v rsync >/dev/null || die "rsync is missing: sudo apt-get install rsync"

t0=$SECONDS
dir="$(mktemp -d /var/tmp/islet-fresh.XXXXXX)"
r="$dir/root"
mounts=()
cleanup() {
    local rc=$? i
    for ((i=${#mounts[@]}-1; i>=0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ]; then say "kept the root in $r"; else rm -rf "$dir"; fi
    exit "$rc"
}
trap cleanup EXIT

mmdebstrap --quiet --variant=apt --include=make,ca-certificates "$suite" "$r" "$MIRROR" \
    || die "mmdebstrap could not make a $suite root (above)"
say "a fresh $suite root in $((SECONDS - t0)) s; make test in it (it installs what it needs)"
mkdir -p "$r/home/islet"
rsync -a --exclude=/.build --exclude=/dist --exclude=/.venv-bench --exclude=/.venv-mqtt \
    --exclude=/systest-results "$root/" "$r/home/islet/"
for m in proc dev sys; do mount --bind "/$m" "$r/$m"; mounts+=("$r/$m"); done

t1=$SECONDS
chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    bash -c 'cd /home/islet && make test' || die "make test failed on a fresh $suite (above)"
say "make test passed on a fresh $suite with $(chroot "$r" dpkg-query -W -f='swiftlang ${Version}' swiftlang 2>/dev/null || echo 'its Swift') in $((SECONDS - t1)) s (the root: $((t1 - t0)) s)"
