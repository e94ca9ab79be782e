#!/usr/bin/env bash
# Builds the guest: a minimal Debian ext4 image (systemd as PID 1, udev, kmod, apt, python3 for
# the scenario's JSON and the trace decoder) with the guest kernel's modules and the simulated
# devices' (MODULE_DIR/*.ko: gpio-sim.ko, and i2c-stub.ko where the kernel lacks it), and an
# initrd made inside it for that kernel.
#   build-image.sh SUITE KVER MODULE_DIR KERNEL_FROM [ARCH] OUTDIR
# KERNEL_FROM: "host" copies the kernel (vmlinuz, modules) from the host's installed
# linux-image-KVER (the host runs SUITE); "image" installs linux-image-KVER from SUITE's
# repository into the image and boots that (a guest of another Debian release or architecture).
# ARCH: the image's Debian architecture when it is not the host's (arm64: mmdebstrap
# --architectures=arm64, its maintainer scripts run under qemu-user through binfmt_misc).
# OUTDIR gets vmlinuz, initrd.img, rootfs.img, dpkg-status (what the image has installed, for the
# dependency closure of the Islet package) and packages.txt.
# Islet's runtime libraries must NOT be in the image: they have to come with the .deb's Depends.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
suite="$1" kver="$2" moddir="$3" kernel_from="$4" arch="" out="$5"
if [ $# -ge 6 ]; then arch="$5" out="$6"; fi
archopt=()
[ -z "$arch" ] || archopt=(--architectures="$arch")
[ -z "$arch" ] || [ "$kernel_from" = image ] || { echo "an image of another architecture ($arch) boots its own kernel: KERNEL_FROM image" >&2; exit 1; }

# What the guest needs, beyond minbase (dpkg, apt and the essential set).
INCLUDE=systemd,systemd-sysv,udev,kmod,dbus,initramfs-tools,python3,make,procps,passwd
# Islet's runtime libraries (bookworm's and trixie's names): the image must not contain them.
FORBIDDEN_RE='^(libgpiod2|libgpiod3|libi2c0|libfreetype6|libfribidi0|libpng16-16|libpng16-16t64|libmosquitto1|fonts-.*|xfonts-.*)$'

include="$INCLUDE"
case "$kernel_from" in
    host) ;;
    image) include="$include,linux-image-$kver" ;;
    *) echo "KERNEL_FROM is host or image, not '$kernel_from'" >&2; exit 1 ;;
esac

root="$out/root"
mkdir -p "$root"
# MODULES=list from the start (conf.d overrides initramfs.conf), so the kernel package's own
# initrd, made while it installs, is small and quick; the customize hook makes the real one.
mmdebstrap --mode=root --variant=minbase "${archopt[@]}" --include="$include" \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" && echo MODULES=list > "$1/etc/initramfs-tools/conf.d/systest.conf"' \
    --customize-hook="'$here/image-customize.sh' \"\$1\" '$kver' '$moddir' '$here/guest' '$kernel_from'" \
    "$suite" "$root" http://deb.debian.org/debian

# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
chroot "$root" dpkg-query -W -f='${Package}\t${Version}\n' > "$out/packages.txt"
if bad=$(cut -f1 "$out/packages.txt" | grep -E "$FORBIDDEN_RE"); then
    echo "the guest image contains Islet's runtime libraries: $bad" >&2
    exit 1
fi
cp "$root/var/lib/dpkg/status" "$out/dpkg-status"
cp "$root/boot/initrd.img-$kver" "$out/initrd.img"
if [ "$kernel_from" = host ]; then cp "/boot/vmlinuz-$kver" "$out/vmlinuz"; else cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz"; fi

# The file system: the tree plus room for the scenario (packages, state, journal).
size_mb=$(( $(du -sm "$root" | cut -f1) + 768 ))
mke2fs -q -t ext4 -L systest -d "$root" "$out/rootfs.img" "${size_mb}M"
rm -rf "$root"
