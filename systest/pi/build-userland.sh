#!/usr/bin/env bash
# The arm64 userland of the Pi 3 leg's initramfs: busybox-static and the libraries and fonts the
# islet package depends on (PACKAGES: its Depends, names only), extracted from trixie's arm64
# archive with their own dependencies (mmdebstrap's extract variant: no maintainer scripts, so
# nothing is emulated), as a directory and as the cpio archive the initramfs starts with.
#   build-userland.sh MIRROR PACKAGES OUT
set -euo pipefail
mirror="$1" packages="$2" out="$3"
mmdebstrap --variant=extract --architectures=arm64 --include="busybox-static,$packages" trixie "$out/root" "$mirror"
r="$out/root"
# The merged /usr layout that base-files would make: the arm64 loader is /lib/ld-linux-aarch64.so.1.
for d in bin sbin lib; do [ -e "$r/$d" ] || ln -s "usr/$d" "$r/$d"; done
rm -rf "$r/var/cache/apt" "$r/var/lib/apt/lists" "$r/usr/share/doc" "$r/usr/share/man"
test -x "$r/usr/bin/busybox" && test -e "$r/lib/ld-linux-aarch64.so.1"
(cd "$r" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out/userland.cpio"
