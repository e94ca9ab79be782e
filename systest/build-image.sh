#!/usr/bin/env bash
# Builds the guest: a minimal Debian ext4 image (systemd as PID 1, udev, kmod, apt, python3 for
# the scenario's JSON and the trace decoder) with the guest kernel's modules and gpio-sim.ko,
# and an initrd made inside it for that kernel.
#   build-image.sh SUITE KVER MODULE_DIR OUTDIR
# OUTDIR gets rootfs.img, initrd.img, dpkg-status (what the image has installed, for the
# dependency closure of the Islet package) and packages.txt.
# Islet's runtime libraries must NOT be in the image: they have to come with the .deb's Depends.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
suite="$1" kver="$2" moddir="$3" out="$4"

# What the guest needs, beyond minbase (dpkg, apt and the essential set).
INCLUDE=systemd,systemd-sysv,udev,kmod,dbus,initramfs-tools,python3,make,procps,passwd
# Islet's runtime libraries: the image must not contain them.
FORBIDDEN_RE='^(libgpiod2|libi2c0|libfreetype6|libfribidi0|libpng16-16|fonts-.*|xfonts-.*)$'

root="$out/root"
mkdir -p "$root"
mmdebstrap --mode=root --variant=minbase --include="$INCLUDE" \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --customize-hook="'$here/image-customize.sh' \"\$1\" '$kver' '$moddir' '$here/guest'" \
    "$suite" "$root" http://deb.debian.org/debian

# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
chroot "$root" dpkg-query -W -f='${Package}\t${Version}\n' > "$out/packages.txt"
if bad=$(cut -f1 "$out/packages.txt" | grep -E "$FORBIDDEN_RE"); then
    echo "the guest image contains Islet's runtime libraries: $bad" >&2
    exit 1
fi
cp "$root/var/lib/dpkg/status" "$out/dpkg-status"
cp "$root/boot/initrd.img-$kver" "$out/initrd.img"
cp "/boot/vmlinuz-$kver" "$out/vmlinuz"

# The file system: the tree plus room for the scenario (packages, state, journal).
size_mb=$(( $(du -sm "$root" | cut -f1) + 768 ))
mke2fs -q -t ext4 -L systest -d "$root" "$out/rootfs.img" "${size_mb}M"
rm -rf "$root"
