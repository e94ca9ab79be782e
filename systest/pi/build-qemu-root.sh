#!/usr/bin/env bash
# The QEMU the Pi 3 leg runs (systest/pi.py): Debian trixie's qemu-system-arm (QEMU 10, which has
# the BCM2835 I2C controller model; bookworm's 7.2 maps those blocks as unimplemented), in a root
# made with mmdebstrap as the project's build roots are. Run from there through the root's own
# loader, so nothing of it is installed on the host.
#   build-qemu-root.sh MIRROR OUT
set -euo pipefail
mirror="$1" out="$2"
mmdebstrap --variant=apt --include=qemu-system-arm trixie "$out/root" "$mirror"
r="$out/root"
"$r/lib64/ld-linux-x86-64.so.2" --library-path "$r/usr/lib/x86_64-linux-gnu" "$r/usr/bin/qemu-system-aarch64" --version \
    | head -n1 | tee "$out/version"
grep -q 'version 1[0-9]\.' "$out/version" || { echo "expected QEMU 10 or later from trixie: $(cat "$out/version")" >&2; exit 1; }
