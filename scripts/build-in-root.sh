#!/usr/bin/env bash
# Builds the release and the Debian package for another Debian release (e.g. trixie, whose
# libgpiod is 2.x) on this machine: in a root made with mmdebstrap from Debian's repository,
# with this machine's Swift toolchain bind-mounted read-only. The package then depends on that
# release's libraries (libgpiod3 on trixie) and the build uses its headers, so the libgpiod 2
# backend is the one compiled and tested.
#
#   sudo scripts/build-in-root.sh trixie [OUTDIR]      OUTDIR defaults to dist/trixie
#
# Settings (environment): DEB_VERSION (passed to scripts/deb.sh), DEB_EXTRA_SUFFIX (also build a
# second package of the same binaries, versioned <version><suffix>, e.g. +systest for the system
# test's upgrade step), ISLET_ROOT_CACHE (where the roots are kept: /var/cache/islet-build-roots),
# MIRROR (http://deb.debian.org/debian), TOOLCHAIN (the folder holding usr/bin/swift: found from
# `swift` on PATH).
#
# The source is mirrored (rsync --delete: exactly the clone's files, nothing left over from another
# clone) into a folder of the root keyed by this clone's path and the toolchain's version, whose
# .build SwiftPM keeps between runs: an incremental build of exactly this tree with exactly this
# compiler.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
die() { printf 'islet: %s\n' "$*" >&2; exit 1; }
say() { printf 'islet: %s\n' "$*"; }

suite="${1:-}"; [ -n "$suite" ] || die "usage: scripts/build-in-root.sh SUITE [OUTDIR] (e.g. trixie)"
out="${2:-$root/dist/$suite}"
[ "$(id -u)" = 0 ] || die "making and entering a Debian root needs root: sudo scripts/build-in-root.sh $suite"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: sudo apt-get install mmdebstrap"
command -v rsync >/dev/null || die "rsync is missing: sudo apt-get install rsync"
if [ -z "${TOOLCHAIN:-}" ]; then
    swift_bin="$(command -v swift)" || die "no 'swift' on PATH: set TOOLCHAIN=<folder with usr/bin/swift>"
    TOOLCHAIN="$(cd "$(dirname "$(readlink -f "$swift_bin")")/../.." && pwd)"
fi
[ -x "$TOOLCHAIN/usr/bin/swift" ] || die "$TOOLCHAIN/usr/bin/swift is not there"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
cache="${ISLET_ROOT_CACHE:-/var/cache/islet-build-roots}"

# What the build needs in the root: the C libraries' -dev packages (as `make deps`), dpkg-dev for
# the package, a C/C++ toolchain's runtime files for the linker, and the libraries the Swift
# toolchain's own programs load (curl, xml2, sqlite, ncurses). Changing the list makes a new root.
packages="pkg-config libgpiod-dev libi2c-dev libfreetype-dev libfribidi-dev libpng-dev libmosquitto-dev dpkg-dev binutils
g++ libc6-dev libcurl4t64 libxml2 libsqlite3-0 libncurses6 libedit2 zlib1g-dev git ca-certificates"
key="$(printf '%s\n%s\n%s\n' "$suite" "$MIRROR" "$packages" | sha256sum | cut -c1-16)"
dir="$cache/$suite-$(uname -m)-$key"
mkdir -p "$cache"

# One builder at a time per root (a second run waits); the root appears by rename when complete.
exec 9>"$dir.lock"
flock 9
if [ ! -d "$dir/root" ]; then
    say "making a $suite root in $dir (once; a few minutes)"
    rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
    mmdebstrap --variant=apt --include="$(echo "$packages" | tr -s ' \n' ',')" \
        "$suite" "$dir.tmp/root" "$MIRROR" || die "mmdebstrap could not make the $suite root (above)"
    mv "$dir.tmp" "$dir"
fi
r="$dir/root"

# The source goes in by mirror (not .build, dist or results), into /build/<clone>-<toolchain>/src,
# whose .build keeps incremental builds between runs. Other clones and toolchains have their own.
toolchain_id="$("$TOOLCHAIN/usr/bin/swift" --version 2>/dev/null | sha256sum | cut -c1-12)"
clone_id="$(printf '%s' "$root" | sha256sum | cut -c1-12)"
work="/build/$clone_id-$toolchain_id"
for old in "$r/build/$clone_id"-*; do
    [ "$old" = "$r$work" ] || [ ! -d "$old" ] || rm -rf "$old"
done
mkdir -p "$r$work/src" "$r/toolchain"
rsync -a --delete --exclude=/.build --exclude=/dist --exclude=/.venv-bench --exclude=/systest-results \
    --exclude=/.git "$root/" "$r$work/src/"
rm -f "$r$work/src"/dist/islet_*.deb

mounts=()
cleanup() {
    local m
    for ((i=${#mounts[@]}-1; i>=0; i--)); do m="${mounts[$i]}"; umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { mount --bind "$1" "$2"; mounts+=("$2"); }
bind /proc "$r/proc"; bind /dev "$r/dev"; bind /sys "$r/sys"
bind "$TOOLCHAIN" "$r/toolchain"; mount -o remount,bind,ro "$r/toolchain"

say "building in the $suite root ($(chroot "$r" dpkg-query -W -f='libgpiod-dev ${Version}' libgpiod-dev), $work)"
chroot "$r" /usr/bin/env -i HOME=/root PATH=/toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 DEB_VERSION="${DEB_VERSION:-}" DEB_EXTRA_SUFFIX="${DEB_EXTRA_SUFFIX:-}" \
    WORK="$work" bash -c '
    set -e
    cd "$WORK/src"
    bash scripts/release.sh
    SKIP_BUILD=1 bash scripts/deb.sh
    if [ -n "$DEB_EXTRA_SUFFIX" ]; then
        v="$(dpkg-deb -f "$(ls -t dist/islet_*.deb | head -n1)" Version)"
        SKIP_BUILD=1 DEB_VERSION="$v$DEB_EXTRA_SUFFIX" bash scripts/deb.sh
    fi' || die "the build in the $suite root failed (above)"

mkdir -p "$out/bin"
cp "$r$work/src/dist/bin/isletd" "$r$work/src/dist/bin/isletctl" "$out/bin/"
cp "$r$work/src"/dist/islet_*.deb "$out/"
rm -f "$r$work/src"/dist/islet_*.deb
say "$suite release in ${out#"$root/"}: $(cd "$out" && ls islet_*.deb | tr '\n' ' ')"
