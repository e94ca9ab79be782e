#!/usr/bin/env bash
# `make`'s first step when `swift` is not on PATH: on Debian 13 (trixie) and Raspberry Pi OS
# based on it, Debian's own Swift (the swiftlang package) is installed with apt, as the C
# libraries are; elsewhere it says what to install. A 32-bit system gets a clear no: Debian
# builds swiftlang for amd64 and arm64 only, and Islet's release is 64-bit.
#
#   SWIFT=swift bash scripts/toolchain.sh      exit 0 when $SWIFT runs afterwards
set -euo pipefail

SWIFT="${SWIFT:-swift}"
die() { printf 'islet: %s\n' "$*" >&2; exit 69; }  # 69: EX_UNAVAILABLE
command -v "$SWIFT" >/dev/null 2>&1 && exit 0

arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
case "$arch" in
    armhf|armel|i386|armv[4-7]*|i[3-6]86)  # dpkg's names, or uname -m's without dpkg
        die "this is a 32-bit system ($arch, $(getconf LONG_BIT 2>/dev/null || echo '?')-bit). Islet needs a 64-bit OS: on a Raspberry Pi 3, 4, 5 or Zero 2 W install the 64-bit Raspberry Pi OS (arm64), then make again. Debian has no Swift for $arch." ;;
esac
[ "$SWIFT" = swift ] || die "SWIFT=$SWIFT is not a command: give the path of a Swift 6 toolchain's swift"

# Debian's swiftlang, where apt knows it (trixie and later; a bookworm system does not).
if command -v apt-cache >/dev/null 2>&1; then
    candidate="$(apt-cache policy swiftlang 2>/dev/null | sed -n 's/^ *Candidate: //p')"
    if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
        # The lists may be old or missing (a fresh image): read them once before deciding.
        if [ "$(id -u)" = 0 ]; then apt-get update -qq >/dev/null 2>&1 || true
        elif command -v sudo >/dev/null 2>&1; then sudo apt-get update -qq >/dev/null 2>&1 || true; fi
        candidate="$(apt-cache policy swiftlang 2>/dev/null | sed -n 's/^ *Candidate: //p')"
    fi
    if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
        if [ "$(id -u)" = 0 ]; then SUDO=""
        elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"
        else die "Swift is missing; as root run 'apt-get install swiftlang' ($candidate), then make again"; fi
        printf 'islet: installing Debian'\''s Swift: swiftlang %s (about 400 MB; once)\n' "$candidate"
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq swiftlang >/dev/null \
            || die "apt-get could not install swiftlang (run '${SUDO:+sudo }apt-get install swiftlang' and read its message)"
        command -v swift >/dev/null 2>&1 || die "swiftlang is installed but 'swift' is not on PATH (/usr/bin/swift)"
        exit 0
    fi
fi
die "the Swift toolchain is missing: 'swift' is not a command on PATH, and this system's apt has no swiftlang (Debian's Swift starts with Debian 13, trixie). See 'Installing the Swift toolchain' in README.md."
