#!/usr/bin/env bash
# The guest kernel of the Pi 3 leg from Debian's arm64 kernel package, unchanged: its boot Image,
# its Raspberry Pi 3 B device tree (i2c1 is "okay" there already) and the two modules the bus
# needs (i2c-bcm2835, the BSC controller's driver, and i2c-dev, for /dev/i2c-N), uncompressed for
# busybox's insmod.
#   build-kernel.sh KERNEL.deb KVER OUT
set -euo pipefail
deb="$1" kver="$2" out="$3"
x="$(mktemp -d)"; trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
cp "$x/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$x/boot/config-$kver" "$out/config"
cp "$x/usr/lib/linux-image-$kver/broadcom/bcm2837-rpi-3-b.dtb" "$out/"
mkdir "$out/modules"
for m in drivers/i2c/busses/i2c-bcm2835 drivers/i2c/i2c-dev; do
    xz -dc "$x/usr/lib/modules/$kver/kernel/$m.ko.xz" > "$out/modules/${m##*/}.ko"
    # Nothing else to load first: busybox's insmod resolves no dependencies.
    [ -z "$(/sbin/modinfo -F depends "$out/modules/${m##*/}.ko")" ] || { echo "${m##*/} has dependencies now" >&2; exit 1; }
done
