#!/usr/bin/env bash
# Builds gpio-sim.ko for the guest kernel out of tree (docs/SYSTEM-TEST.md):
#   build-module.sh KVER OUTDIR
# from linux-source-6.1 (drivers/gpio/gpio-sim.c, drivers/gpio/gpiolib.h, kernel/irq/irq_sim.c)
# against linux-headers-KVER. irq_to_desc() is not exported to modules, so the one call
# handle_simple_irq(irq_to_desc(irq)) becomes generic_handle_irq(irq): the simulator's domain
# maps every interrupt with handle_simple_irq, so the flow handler called is the same.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kver="$1" out="$2"
headers="/usr/src/linux-headers-$kver"
src_tar=/usr/src/linux-source-6.1.tar.xz
[ -d "$headers" ] || { echo "no $headers (linux-headers-$kver)" >&2; exit 1; }
[ -f "$src_tar" ] || { echo "no $src_tar (linux-source-6.1)" >&2; exit 1; }

work="$out/build"
mkdir -p "$work"
tar -C "$work" -xJf "$src_tar" --strip-components=1 \
    linux-source-6.1/drivers/gpio/gpio-sim.c linux-source-6.1/drivers/gpio/gpiolib.h \
    linux-source-6.1/kernel/irq/irq_sim.c
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
