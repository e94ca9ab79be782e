#!/usr/bin/env bash
# Builds the simulated devices' modules for the guest kernel out of tree (docs/SYSTEM-TEST.md):
#   build-module.sh KVER SERIES [SUITE [ARCH]] OUTDIR
# gpio-sim.ko always: from linux-source-SERIES (drivers/gpio/gpio-sim.c, drivers/gpio/gpiolib.h,
# kernel/irq/irq_sim.c) against linux-headers-KVER. irq_to_desc() is not exported to modules, so
# the one call handle_simple_irq(irq_to_desc(irq)) becomes generic_handle_irq(irq): the
# simulator's domain maps every interrupt with handle_simple_irq, so the flow handler called is
# the same. i2c-stub.ko too when the kernel has no CONFIG_I2C_STUB (Debian's arm64 kernel:
# drivers/i2c/i2c-stub.c, unchanged); the amd64 kernels ship it, so there it is not built.
# Without SUITE the headers and the source are the host's installed packages (the host runs the
# guest's suite). With SUITE (another Debian release, e.g. trixie for the host bookworm) a
# throw-away root of that suite is made with mmdebstrap holding linux-headers-KVER (and with it
# the compiler the kernel was built with) and linux-source-SERIES, and the build runs in it.
# With ARCH (arm64) the build is a cross build in a root of the host's architecture: trixie's
# gcc-14-aarch64-linux-gnu (the kernel's own compiler, as a cross compiler), linux-kbuild of the
# kernel's version for the host (the headers' scripts/ is a link to it, so modpost and fixdep
# run natively) and linux-headers-KVER of ARCH unpacked beside them (its .kernelvariables set
# ARCH and CROSS_COMPILE). Measured: 14 min 56 s for the same build in an arm64 root under
# qemu-user (mmdebstrap alone 11.5 min: every maintainer script and the kernel's initrd emulated),
# against 86 s this way (docs/SYSTEM-TEST.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kver="$1" series="$2" suite="" arch="" out="$3"
if [ $# -ge 5 ]; then suite="$3" arch="$4" out="$5"
elif [ $# -ge 4 ]; then suite="$3" out="$4"; fi

if [ -n "$suite" ]; then
    r="$out/root"
    mkdir -p "$r"
    include="linux-headers-$kver,linux-source-$series,make,xz-utils,kmod"
    cross=()
    if [ -n "$arch" ]; then
        case "$arch" in
            arm64) triplet=aarch64-linux-gnu ;;
            *) echo "no cross compiler known for $arch" >&2; exit 1 ;;
        esac
        # The headers' packages of ARCH are downloaded in the root (its apt knows both
        # architectures) and unpacked below: installing them would pull in ARCH's gcc-14 and
        # linux-image, which a root of the host's architecture cannot run.
        # (In /opt: mmdebstrap empties the root's /tmp when it is done.)
        include="gcc-14-$triplet,linux-kbuild-${kver%-*},linux-source-$series,make,xz-utils,kmod"
        cross=(--architectures="$(dpkg --print-architecture),$arch"
               --customize-hook="chroot \"\$1\" sh -c 'mkdir -p /opt/headers && cd /opt/headers && apt-get -q download linux-headers-$kver:$arch linux-headers-${kver%-*}-common'")
    fi
    mmdebstrap --mode=root --variant=minbase --include="$include" "${cross[@]}" \
        --aptopt='Acquire::Languages "none"' \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        "$suite" "$r" http://deb.debian.org/debian
    if [ -n "$arch" ]; then
        for d in "$r"/opt/headers/*.deb; do dpkg-deb -x "$d" "$r"; done
        [ -d "$r/usr/src/linux-headers-$kver" ] || { echo "linux-headers-$kver ($arch) did not unpack in the root" >&2; exit 1; }
        [ -x "$r/usr/bin/$triplet-gcc-14" ] || { echo "the root has no $triplet-gcc-14" >&2; exit 1; }
    fi
    mkdir -p "$r/tmp/mod-build/gpio-sim" "$r/tmp/mod-build/i2c-stub" "$r/tmp/mod-out"
    cp "$here/build-module.sh" "$r/tmp/mod-build/"
    cp "$here/gpio-sim/Kbuild" "$r/tmp/mod-build/gpio-sim/"
    cp "$here/i2c-stub/Kbuild" "$r/tmp/mod-build/i2c-stub/"
    chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        bash /tmp/mod-build/build-module.sh "$kver" "$series" /tmp/mod-out
    cp "$r"/tmp/mod-out/*.ko "$r/tmp/mod-out/vermagic" "$out/"
    {
        chroot "$r" dpkg-query -W -f='${Package}\t${Version}\t${Architecture}\n' "linux-source-$series" gcc-14 \
            ${arch:+"gcc-14-$triplet" "linux-kbuild-${kver%-*}"} "linux-headers-$kver" 2>/dev/null || true
        for d in "$r"/opt/headers/*.deb; do [ -f "$d" ] && dpkg-deb -f "$d" Package Version Architecture | cut -d' ' -f2 | paste -s; done
    } > "$out/built-with.txt"
    rm -rf "$r"
    exit 0
fi

headers="/usr/src/linux-headers-$kver"
src_tar="/usr/src/linux-source-$series.tar.xz"
[ -d "$headers" ] || { echo "no $headers (linux-headers-$kver)" >&2; exit 1; }
[ -f "$src_tar" ] || { echo "no $src_tar (linux-source-$series)" >&2; exit 1; }
[ -f "$headers/.config" ] || { echo "no $headers/.config: cannot tell whether the kernel has i2c-stub" >&2; exit 1; }
stub=0
grep -Eq '^CONFIG_I2C_STUB=(m|y)$' "$headers/.config" || stub=1

work="$out/build"
mkdir -p "$work/gpio-sim" "$work/i2c-stub"
members=("linux-source-$series/drivers/gpio/gpio-sim.c" "linux-source-$series/drivers/gpio/gpiolib.h"
         "linux-source-$series/kernel/irq/irq_sim.c")
[ "$stub" = 0 ] || members+=("linux-source-$series/drivers/i2c/i2c-stub.c")
tar -C "$work" -xJf "$src_tar" --strip-components=1 "${members[@]}"
g="$work/gpio-sim"
mv "$work/drivers/gpio/gpio-sim.c" "$g/gpio-sim-main.c"
mv "$work/drivers/gpio/gpiolib.h" "$g/gpiolib.h"
mv "$work/kernel/irq/irq_sim.c" "$g/irq_sim.c"
grep -q 'handle_simple_irq(irq_to_desc(irqnum))' "$g/irq_sim.c" \
    || { echo "irq_sim.c has no handle_simple_irq(irq_to_desc(irqnum)): the source changed, check the patch" >&2; exit 1; }
sed -i 's/handle_simple_irq(irq_to_desc(irqnum))/generic_handle_irq(irqnum)/' "$g/irq_sim.c"
cp "$here/gpio-sim/Kbuild" "$g/Kbuild"
make -s -C "$headers" M="$g" modules
cp "$g/gpio-sim.ko" "$out/gpio-sim.ko"
if [ "$stub" = 1 ]; then
    echo "the kernel has no CONFIG_I2C_STUB: building i2c-stub.ko too"
    mv "$work/drivers/i2c/i2c-stub.c" "$work/i2c-stub/i2c-stub.c"
    cp "$here/i2c-stub/Kbuild" "$work/i2c-stub/Kbuild"
    make -s -C "$headers" M="$work/i2c-stub" modules
    cp "$work/i2c-stub/i2c-stub.ko" "$out/i2c-stub.ko"
fi
for ko in "$out"/*.ko; do
    v="$(modinfo -F vermagic "$ko")"
    printf '%s %s\n' "${ko##*/}" "$v"
    case "$v" in "$kver "*) ;; *) echo "${ko##*/} vermagic is not $kver: $v" >&2; exit 1 ;; esac
done
modinfo -F vermagic "$out/gpio-sim.ko" > "$out/vermagic"
rm -rf "$work"
