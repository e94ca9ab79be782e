#!/usr/bin/env bash
# mmdebstrap customize hook of build-image.sh:
#   image-customize.sh CHROOT KVER MODULE_DIR GUEST_DIR KERNEL_FROM
# The guest kernel's modules (KERNEL_FROM=host: copied from the host's linux-image package;
# image: the image's own linux-image package) and the simulated devices' modules (MODULE_DIR/*.ko:
# gpio-sim, and i2c-stub where the kernel lacks it), an initrd with exactly the modules
# needed to mount the root, the scenario's boot unit, and no apt source (the scenario adds its
# local repository).
set -euo pipefail
r="$1" kver="$2" moddir="$3" guest="$4" kernel_from="${5:-host}"

if [ "$kernel_from" = host ]; then
    mkdir -p "$r/lib/modules"
    cp -a "/lib/modules/$kver" "$r/lib/modules/$kver"
    rm -f "$r/lib/modules/$kver/build" "$r/lib/modules/$kver/source"
    cp "/boot/config-$kver" "/boot/System.map-$kver" "$r/boot/"
fi
[ -f "$r/boot/vmlinuz-$kver" ] || [ "$kernel_from" = host ] || { echo "the image has no /boot/vmlinuz-$kver" >&2; exit 1; }
[ -f "$moddir/gpio-sim.ko" ] || { echo "no gpio-sim.ko in $moddir" >&2; exit 1; }
for ko in "$moddir"/*.ko; do
    install -D -m 0644 "$ko" "$r/lib/modules/$kver/updates/${ko##*/}"
done
chroot "$r" depmod "$kver"

# initrd: MODULES=list, so nothing depends on the machine that builds it.
sed -i 's/^MODULES=.*/MODULES=list/' "$r/etc/initramfs-tools/initramfs.conf"
printf '%s\n' virtio_pci virtio_blk crc32c_generic ext4 > "$r/etc/initramfs-tools/modules"
chroot "$r" mkinitramfs -c gzip -o "/boot/initrd.img-$kver" "$kver"
chroot "$r" lsinitramfs "/boot/initrd.img-$kver" > "$r/tmp/initrd.list"
# Each either built into the kernel (6.12 has virtio_pci built in) or in the initrd (compressed
# modules, .ko.xz, on trixie).
for m in virtio_pci virtio_blk ext4; do
    grep -q "/$m\.ko\$" "$r/lib/modules/$kver/modules.builtin" && continue
    grep -Eq "/$m\.ko(\.xz|\.zst|\.gz)?\$" "$r/tmp/initrd.list" || { echo "the initrd lacks $m" >&2; exit 1; }
done
rm -f "$r/tmp/initrd.list"

echo systest > "$r/etc/hostname"
printf '127.0.1.1\tsystest\n' >> "$r/etc/hosts"
printf '/dev/vda\t/\text4\trw,relatime\t0\t1\n' > "$r/etc/fstab"
chroot "$r" passwd -d root >/dev/null
install -m 0755 "$guest/systest-boot" "$r/usr/local/sbin/systest-boot"
install -m 0644 "$guest/systest.service" "$r/etc/systemd/system/systest.service"
chroot "$r" systemctl enable systest.service
# Nothing periodic that could wake up in the middle of a measurement.
# Nor what costs boot time under TCG and means nothing here.
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer \
         systemd-tmpfiles-clean.timer modprobe@drm.service; do
    ln -sf /dev/null "$r/etc/systemd/system/$u"
done
# The journal on disk: the scenario reads it across the reboot.
mkdir -p "$r/var/log/journal"
# No network source; the scenario adds the local repository on the 9p share.
: > "$r/etc/apt/sources.list"
rm -rf "$r/var/lib/apt/lists/"* "$r/var/cache/apt/"*.bin "$r/var/cache/apt/archives/"*.deb
