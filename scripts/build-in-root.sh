#!/usr/bin/env bash
# Builds Islet for another Debian release or architecture on this machine, in a root made with
# mmdebstrap from Debian's repository: the release and the Debian package (TASK=release), or
# `make test` (TASK=test). The package then depends on that release's libraries (libgpiod3 on
# trixie) and the build uses its headers, so the libgpiod 2 backend is the one compiled.
#
#   sudo scripts/build-in-root.sh SUITE [OUTDIR]      OUTDIR defaults to dist/SUITE (dist/arm64
#                                                     for ARCH=arm64)
#
# Settings (environment):
#   ARCH=amd64|arm64    what to build for (default: this machine's). arm64 on an amd64 machine is
#                       a cross build: Debian's own amd64 Swift compiler (swiftlang) with the arm64
#                       Swift runtime taken from Debian's arm64 swiftlang of the same version, and
#                       the arm64 C libraries installed beside the amd64 ones (dpkg multiarch).
#                       Binaries and tests of the other architecture run under qemu-user
#                       (binfmt_misc, set up here), both for the loader check and for TASK=test.
#   SWIFT_FROM=host|debian  which Swift compiles: this machine's toolchain bind-mounted
#                       read-only (host, the default for the machine's own architecture) or the
#                       suite's swiftlang package (debian: the Swift a Pi owner gets from apt;
#                       always so for a cross build).
#   TASK=release|test   release: dist/bin and the .deb, copied to OUTDIR; test: `make test`.
#   DEB_VERSION (passed to scripts/deb.sh), DEB_EXTRA_SUFFIX (also build a second package of the
#   same binaries, versioned <version><suffix>, e.g. +systest for the system test's upgrade
#   step), ISLET_ROOT_CACHE (where the roots are kept: /var/cache/islet-build-roots), MIRROR
#   (http://deb.debian.org/debian), TOOLCHAIN (SWIFT_FROM=host: the folder holding
#   usr/bin/swift, found from `swift` on PATH).
#
# The source is mirrored (rsync --delete: exactly the clone's files, nothing left over from another
# clone) into a folder of the root keyed by this clone's path and the compiler's version, whose
# .build SwiftPM keeps between runs: an incremental build of exactly this tree with exactly this
# compiler.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
die() { printf 'islet: %s\n' "$*" >&2; exit 1; }
say() { printf 'islet: %s\n' "$*"; }

suite="${1:-}"; [ -n "$suite" ] || die "usage: scripts/build-in-root.sh SUITE [OUTDIR] (e.g. trixie)"
[ "$(id -u)" = 0 ] || die "making and entering a Debian root needs root: sudo scripts/build-in-root.sh $suite"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: sudo apt-get install mmdebstrap"
command -v rsync >/dev/null || die "rsync is missing: sudo apt-get install rsync"
native="$(dpkg --print-architecture)"
ARCH="${ARCH:-$native}"
TASK="${TASK:-release}"
case "$TASK" in release|test) ;; *) die "TASK=$TASK: release or test" ;; esac
case "$ARCH" in
    amd64|arm64) ;;
    armhf|armel|i386)
        die "ARCH=$ARCH: Debian has no Swift for 32-bit $ARCH, so Islet cannot be built for it; on a Raspberry Pi use the 64-bit Raspberry Pi OS (arm64)" ;;
    *) die "ARCH=$ARCH: amd64 or arm64" ;;
esac
if [ "$ARCH" = "$native" ]; then SWIFT_FROM="${SWIFT_FROM:-host}"; else SWIFT_FROM="${SWIFT_FROM:-debian}"; fi
case "$SWIFT_FROM" in host|debian) ;; *) die "SWIFT_FROM=$SWIFT_FROM: host or debian" ;; esac
[ "$ARCH" = "$native" ] || [ "$SWIFT_FROM" = debian ] \
    || die "ARCH=$ARCH on this $native machine needs SWIFT_FROM=debian: only Debian's swiftlang has an $ARCH runtime to link"
[ "$native" = amd64 ] || [ "$ARCH" = "$native" ] || die "cross builds are made on amd64; on $native build for $native"
if [ "$ARCH" = "$native" ]; then out="${2:-$root/dist/$suite}"; else out="${2:-$root/dist/$ARCH}"; fi
case "$suite" in
    bookworm|bullseye|buster)
        [ "$SWIFT_FROM" = host ] || die "$suite has no swiftlang package: Debian's own Swift starts with trixie" ;;
esac
if [ "$SWIFT_FROM" = host ] && [ -z "${TOOLCHAIN:-}" ]; then
    swift_bin="$(command -v swift)" || die "no 'swift' on PATH: set TOOLCHAIN=<folder with usr/bin/swift>, or SWIFT_FROM=debian"
    TOOLCHAIN="$(cd "$(dirname "$(readlink -f "$swift_bin")")/../.." && pwd)"
fi
[ "$SWIFT_FROM" = debian ] || [ -x "$TOOLCHAIN/usr/bin/swift" ] || die "$TOOLCHAIN/usr/bin/swift is not there"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
cache="${ISLET_ROOT_CACHE:-/var/cache/islet-build-roots}"

# qemu-user through binfmt_misc runs the other architecture's programs, in the root as well
# (the F flag opens the emulator when registered): the loader check of the binaries, dpkg's
# maintainer scripts, the tests. Set up here, as the package's own scripts would on a desktop.
binfmt_ready() {
    [ -d /proc/sys/fs/binfmt_misc ] || return 1
    [ -e /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || return 1
    grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 && grep -qs 'flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64
}
if [ "$ARCH" != "$native" ]; then
    if ! binfmt_ready; then
        command -v update-binfmts >/dev/null && [ -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] \
            || die "running arm64 programs here needs qemu-user-static and binfmt-support: sudo apt-get install qemu-user-static binfmt-support"
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
        binfmt_ready || die "binfmt_misc has no enabled qemu-aarch64 entry with the F flag (cat /proc/sys/fs/binfmt_misc/qemu-aarch64); try: sudo update-binfmts --enable qemu-aarch64"
    fi
fi

# What the build needs in the root: the C libraries' -dev packages (as `make deps`), dpkg-dev for
# the package, a C/C++ toolchain's runtime files for the linker, and the libraries the host Swift
# toolchain's own programs load (curl, xml2, sqlite, ncurses). From trixie on the root also holds
# Debian's swiftlang, the arm64 C libraries and the arm64 linker inputs beside them (multiarch),
# the arm64 binutils (strip, and objdump for dpkg-shlibdeps), what `make test` uses (fonts,
# libfaketime for both architectures, systemd-analyze, which checks the unit's /bin/kill from
# procps, udevadm) and lintian for the package: one root serves every build of that suite.
# libmicrohttpd-dev gives the web page's header only (the library is loaded with dlopen, nothing
# links it), which serves the arm64 build too; the arm64 library itself is there for the arm64
# suite's web tests under qemu-user, which load it. Changing the list makes a new root.
packages="pkg-config libgpiod-dev libi2c-dev libfreetype-dev libfribidi-dev libpng-dev libmosquitto-dev libmicrohttpd-dev dpkg-dev binutils
g++ libc6-dev libcurl4t64 libxml2 libsqlite3-0 libncurses6 libedit2 zlib1g-dev libdeflate-dev git ca-certificates"
archs=amd64
case "$suite" in bookworm|bullseye|buster) ;; *)
    archs=amd64,arm64
    packages="$packages make swiftlang binutils-aarch64-linux-gnu
xfonts-terminus xfonts-unifont fonts-terminus-otb faketime systemd udev procps python3 lintian
libc6-dev:arm64 libgcc-14-dev:arm64 libstdc++-14-dev:arm64 libgpiod-dev:arm64 libi2c-dev:arm64
libfreetype-dev:arm64 libfribidi-dev:arm64 libpng-dev:arm64 libmosquitto-dev:arm64 libdeflate-dev:arm64 libfaketime:arm64
libmicrohttpd12t64:arm64" ;;
esac
key="$(printf '%s\n%s\n%s\n%s\n' "$suite" "$MIRROR" "$archs" "$packages" | sha256sum | cut -c1-16)"
dir="$cache/$suite-$(uname -m)-$key"
mkdir -p "$cache"

# The arm64 Swift runtime (what the compiler links into arm64 binaries: the static and shared
# stdlib, Foundation, Dispatch, Testing, swiftrt.o, the glibc module map) from Debian's arm64
# swiftlang of exactly the amd64 compiler's version: another version's modules would not load.
# Taken while the root is made, when apt's lists are still there; into /opt/swift-arm64.
arm64_runtime_hook='
set -e
v="$(chroot "$1" dpkg-query -W -f="\${Version}" swiftlang)"
mkdir -p "$1/tmp/swift-arm64" "$1/opt/swift-arm64"; chmod 0777 "$1/tmp/swift-arm64"  # apt downloads as _apt
chroot "$1" sh -c "cd /tmp/swift-arm64 && apt-get download -q swiftlang:arm64=$v libswiftlang:arm64=$v"
for deb in "$1"/tmp/swift-arm64/*.deb; do
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$1/opt/swift-arm64" --wildcards \
        "./usr/libexec/swift/lib/swift/*" "./usr/libexec/swift/lib/swift_static/*" \
        "./usr/libexec/swift/lib/clang/*" "./usr/lib/aarch64-linux-gnu/*" 2>/dev/null || true
done
rm -rf "$1/tmp/swift-arm64"
echo "$v" > "$1/opt/swift-arm64/VERSION"
test -f "$1/opt/swift-arm64/usr/libexec/swift/lib/swift_static/linux/static-stdlib-args.lnk"
'

# One builder at a time per root (a second run waits); the root appears by rename when complete.
exec 9>"$dir.lock"
flock 9
if [ ! -d "$dir/root" ]; then
    say "making a $suite root ($archs) in $dir (once; a few minutes)"
    rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
    hooks=()
    [ "$archs" = amd64 ] || hooks=(--customize-hook="$arm64_runtime_hook")
    mmdebstrap --variant=apt --architectures="$archs" --include="$(echo "$packages" | tr -s ' \n' ',')" \
        "${hooks[@]}" "$suite" "$dir.tmp/root" "$MIRROR" || die "mmdebstrap could not make the $suite root (above)"
    mv "$dir.tmp" "$dir"
fi
r="$dir/root"

# The compiler's identity keys the build folder; Debian's swiftlang and the arm64 runtime must be
# the same version (the hook took it so; a root changed by hand is refused).
if [ "$SWIFT_FROM" = debian ]; then
    chroot "$r" test -x /usr/bin/swift || die "the $suite root has no swiftlang (Debian's Swift): is it in $suite?"
    compiler="$(chroot "$r" dpkg-query -W -f='swiftlang ${Version}' swiftlang)"
    if [ "$ARCH" = arm64 ]; then
        rt="$(cat "$r/opt/swift-arm64/VERSION" 2>/dev/null || echo none)"
        [ "$compiler" = "swiftlang $rt" ] || die "the root's $compiler and its arm64 runtime ($rt) differ: remove $dir to make the root again"
    fi
else
    compiler="$("$TOOLCHAIN/usr/bin/swift" --version 2>/dev/null)"
fi
toolchain_id="$(printf '%s' "$compiler" | sha256sum | cut -c1-12)"

# SwiftPM destinations for arm64 (written each run: cheap, and they follow this script): the
# runtime's resource folders as the target's, lld (the bundled linker knows every target; Debian's
# ld is amd64's), the release linked against the static runtime and the tests against the shared.
cross=/opt/islet-cross
mkdir -p "$r$cross"
destination() {  # FILE RESOURCE-DIR
    cat > "$r$cross/$1" <<JSON
{
  "version": 1,
  "sdk": "/",
  "toolchain-bin-dir": "/usr/libexec/swift/bin",
  "target": "aarch64-unknown-linux-gnu",
  "dynamic-library-extension": "so",
  "extra-cc-flags": [],
  "extra-swiftc-flags": ["-resource-dir", "/opt/swift-arm64/usr/libexec/swift/lib/$2", "-use-ld=lld"],
  "extra-cpp-flags": []
}
JSON
}
destination arm64-static.json swift_static
destination arm64-shared.json swift

# The source goes in by mirror (not .build, dist or results), into
# /build/<clone>-<host|debian>-<compiler>/src, whose .build keeps incremental builds between runs
# (one .build for both architectures: SwiftPM keeps each target triple in a folder of its own).
clone_id="$(printf '%s' "$root" | sha256sum | cut -c1-12)"
work="/build/$clone_id-$SWIFT_FROM-$toolchain_id"
for old in "$r/build/$clone_id-$SWIFT_FROM"-*; do
    [ "$old" = "$r$work" ] || [ ! -d "$old" ] || rm -rf "$old"
done
mkdir -p "$r$work/src" "$r/toolchain"
rsync -a --delete --exclude=/.build --exclude=/dist --exclude=/.venv-bench --exclude=/systest-results \
    --exclude=/.git "$root/" "$r$work/src/"
rm -rf "$r$work/src"/dist

mounts=()
cleanup() {
    local m
    for ((i=${#mounts[@]}-1; i>=0; i--)); do m="${mounts[$i]}"; umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { mount --bind "$1" "$2"; mounts+=("$2"); }
bind /proc "$r/proc"; bind /dev "$r/dev"; bind /sys "$r/sys"
if [ "$SWIFT_FROM" = host ]; then
    bind "$TOOLCHAIN" "$r/toolchain"; mount -o remount,bind,ro "$r/toolchain"
fi

# What each architecture's build is told: the destination, the arm64 pkg-config folder (SwiftPM
# reads the libraries' .pc files itself, searching PKG_CONFIG_PATH first and then the amd64
# folders, whose -L/usr/lib/x86_64-linux-gnu would hand lld amd64 libraries), the strip and the
# package architecture.
envs=(HOME=/root LANG=C.UTF-8 WORK="$work" TASK="$TASK" DEB_VERSION="${DEB_VERSION:-}"
      DEB_EXTRA_SUFFIX="${DEB_EXTRA_SUFFIX:-}" SWIFT_BACKTRACE=enable=no)
if [ "$SWIFT_FROM" = host ]; then
    envs+=(PATH=/toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin)
else
    envs+=(PATH=/usr/sbin:/usr/bin:/sbin:/bin)
fi
release_flags=""; test_flags=""
if [ "$ARCH" = arm64 ] && [ "$native" != arm64 ]; then
    envs+=(PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig
           STRIP=aarch64-linux-gnu-strip DEB_ARCH=arm64)
    release_flags="--destination $cross/arm64-static.json"
    test_flags="--destination $cross/arm64-shared.json"
fi
envs+=(RELEASE_FLAGS="$release_flags" TEST_FLAGS="$test_flags")

say "$TASK for $ARCH in the $suite root with $(printf '%s' "$compiler" | head -n1) ($(chroot "$r" dpkg-query -W -f='libgpiod-dev:${Architecture} ${Version}' "libgpiod-dev:$ARCH"), $work)"
chroot "$r" /usr/bin/env -i "${envs[@]}" bash -c '
    set -e
    cd "$WORK/src"
    if [ "$TASK" = test ] && [ -z "$TEST_FLAGS" ]; then
        make test
        exit
    fi
    if [ "$TASK" = test ]; then
        # Under qemu-user every process is emulated: the suites that start isletd and isletctl
        # (IsletDaemonTests) run one test at a time, or dozens of emulated daemons on two cores
        # overrun their time limits. They mostly wait (for a dismissal, a reconnect), so the
        # rest, in parallel as natively, runs beside them; each line says which run it is from.
        make build BUILD_FLAGS="$TEST_FLAGS"
        # The daemon scenarios drive the release binaries that the package ships (the Swift
        # runtime linked in statically, -Osize, stripped), not the debug build.
        BUILD_FLAGS="$RELEASE_FLAGS" bash scripts/release.sh
        echo "islet: built for arm64 in $SECONDS s; the tests under qemu-user:"
        # The test bundle is run directly, as swift test runs it: two swift test processes on one
        # .build would take turns (SwiftPM locks it).
        bundle="$(swift build $TEST_FLAGS --show-bin-path)/IsletPackageTests.xctest"
        set -o pipefail
        "$bundle" --testing-library swift-testing --skip IsletDaemonTests 2>&1 | sed -u "s/^/[pure] /" &
        pure=$!
        daemon=0
        ISLET_TEST_BIN="$PWD/dist/bin" "$bundle" --testing-library swift-testing --filter IsletDaemonTests --no-parallel 2>&1 \
            | sed -u "s/^/[daemon] /" || daemon=$?
        wait "$pure" || { echo "islet: the pure suites failed under qemu-user (lines marked [pure])"; exit 1; }
        [ "$daemon" = 0 ] || { echo "islet: the daemon suites failed under qemu-user (lines marked [daemon])"; exit 1; }
        echo "islet: built and tested under qemu-user in $SECONDS s"
        exit
    fi
    BUILD_FLAGS="$RELEASE_FLAGS" bash scripts/release.sh
    SKIP_BUILD=1 bash scripts/deb.sh
    deb="$(ls -t dist/islet_*.deb | head -n1)"
    # The suite'"'"'s own lintian: errors and warnings fail the build (overrides ship in the package).
    if command -v lintian >/dev/null; then
        lintian --fail-on error,warning "$deb" || { echo "islet: lintian ($(lintian --version)) rejects $deb (above)" >&2; exit 1; }
        echo "islet: lintian $(lintian --version | cut -d" " -f2): no errors or warnings in ${deb#dist/}"
    fi
    if [ -n "$DEB_EXTRA_SUFFIX" ]; then
        v="$(dpkg-deb -f "$deb" Version)"
        SKIP_BUILD=1 DEB_VERSION="$v$DEB_EXTRA_SUFFIX" bash scripts/deb.sh
    fi' || die "the $TASK for $ARCH in the $suite root failed (above)"
[ "$TASK" = release ] || { say "make test passed for $ARCH in the $suite root ($compiler)"; exit 0; }

mkdir -p "$out/bin"
cp "$r$work/src/dist/bin/isletd" "$r$work/src/dist/bin/isletctl" "$out/bin/"
cp "$r$work/src"/dist/islet_*.deb "$out/"
rm -f "$r$work/src"/dist/islet_*.deb
say "$suite $ARCH release in ${out#"$root/"}: $(cd "$out" && ls islet_*.deb | tr '\n' ' ')"
