#!/usr/bin/env bash
# Builds gpio-sim.ko for the guest kernel out of tree (docs/SYSTEM-TEST.md):
#   build-module.sh KVER SERIES [SUITE] OUTDIR
# from linux-source-SERIES (drivers/gpio/gpio-sim.c, drivers/gpio/gpiolib.h, kernel/irq/irq_sim.c)
# against linux-headers-KVER. irq_to_desc() is not exported to modules, so the one call
# handle_simple_irq(irq_to_desc(irq)) becomes generic_handle_irq(irq): the simulator's domain
# maps every interrupt with handle_simple_irq, so the flow handler called is the same.
# Without SUITE the headers and the source are the host's installed packages (the host runs the
# guest's suite). With SUITE (another Debian release, e.g. trixie for the host bookworm) a
# throw-away root of that suite is made with mmdebstrap holding linux-headers-KVER (and with it
# the compiler the kernel was built with) and linux-source-SERIES, and the build runs in it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kver="$1" series="$2" suite="" out="$3"
if [ $# -ge 4 ]; then suite="$3" out="$4"; fi

if [ -n "$suite" ]; then
    r="$out/root"
    mkdir -p "$r"
    mmdebstrap --mode=root --variant=minbase \
        --include="linux-headers-$kver,linux-source-$series,make,xz-utils,kmod" \
        --aptopt='Acquire::Languages "none"' \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        "$suite" "$r" http://deb.debian.org/debian
    mkdir -p "$r/tmp/gpio-sim-build/gpio-sim" "$r/tmp/gpio-sim-out"
    cp "$here/build-module.sh" "$r/tmp/gpio-sim-build/"
    cp "$here/gpio-sim/Kbuild" "$r/tmp/gpio-sim-build/gpio-sim/"
    chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        bash /tmp/gpio-sim-build/build-module.sh "$kver" "$series" /tmp/gpio-sim-out
    cp "$r/tmp/gpio-sim-out/gpio-sim.ko" "$r/tmp/gpio-sim-out/vermagic" "$out/"
    chroot "$r" dpkg-query -W -f='${Package}\t${Version}\n' "linux-headers-$kver" "linux-source-$series" \
        gcc-14 2>/dev/null > "$out/built-with.txt" || true
    rm -rf "$r"
    exit 0
fi

headers="/usr/src/linux-headers-$kver"
src_tar="/usr/src/linux-source-$series.tar.xz"
[ -d "$headers" ] || { echo "no $headers (linux-headers-$kver)" >&2; exit 1; }
[ -f "$src_tar" ] || { echo "no $src_tar (linux-source-$series)" >&2; exit 1; }

work="$out/build"
mkdir -p "$work"
tar -C "$work" -xJf "$src_tar" --strip-components=1 \
    "linux-source-$series/drivers/gpio/gpio-sim.c" "linux-source-$series/drivers/gpio/gpiolib.h" \
    "linux-source-$series/kernel/irq/irq_sim.c"
mv "$work/drivers/gpio/gpio-sim.c" "$work/gpio-sim-main.c"
mv "$work/drivers/gpio/gpiolib.h" "$work/gpiolib.h"
mv "$work/kernel/irq/irq_sim.c" "$work/irq_sim.c"
rm -rf "$work/drivers" "$work/kernel"
grep -q 'handle_simple_irq(irq_to_desc(irqnum))' "$work/irq_sim.c" \
    || { echo "irq_sim.c has no handle_simple_irq(irq_to_desc(irqnum)): the source changed, check the patch" >&2; exit 1; }
sed -i 's/handle_simple_irq(irq_to_desc(irqnum))/generic_handle_irq(irqnum)/' "$work/irq_sim.c"
cp "$here/gpio-sim/Kbuild" "$work/Kbuild"
make -s -C "$headers" M="$work" modules
cp "$work/gpio-sim.ko" "$out/gpio-sim.ko"
modinfo -F vermagic "$out/gpio-sim.ko" | tee "$out/vermagic"
grep -q "^$kver " "$out/vermagic" || { echo "gpio-sim.ko vermagic is not $kver" >&2; exit 1; }
rm -rf "$work"
