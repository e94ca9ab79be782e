#!/usr/bin/env bash
# The system test (`make test-system`): Islet's .deb and `make install` in a Debian guest under
# qemu (TCG), on a real kernel and a live systemd, with the panel on i2c-stub and the buttons on
# gpio-sim. docs/SYSTEM-TEST.md describes the rig; systest/guest/guest-scenario.sh the steps.
#
#   systest/run.sh [--guest bookworm] [--results DIR] [--keep] [--timeout SECONDS] [--smp N]
#                  [--reboot powercycle|reset]
#
#   --guest     the Debian suite of the guest (bookworm)
#   --results   where the logs go (default: <root>/systest-results/<guest>/, emptied first)
#   --keep      keep the run's working directory (the shares, the local repository) and say where
#   --timeout   hard limit for the guest, in seconds (default 900); qemu is killed past it
#   --smp       virtual CPUs (default 1: with TCG on 2 host cores it was faster than 2, see the doc)
#   --reboot    how step h reboots the guest: powercycle (default: poweroff, a new qemu on the same
#               disk) or reset (systemctl reboot inside one qemu run); see docs/SYSTEM-TEST.md
#
# Environment: ISLET_ARTIFACTS=DIR uses DIR's isletd, isletctl and two islet_<version>_<arch>.deb
# (the higher version is the upgrade) instead of `make -C <root> release deb`;
# ISLET_SYSTEST_CACHE=DIR caches the module and the image there (default /var/cache/islet-systest).
# Needs root (apt-get, mmdebstrap, the image).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=systest/lib.sh
. "$here/lib.sh"

guest=bookworm
results=""
keep=0
timeout_s="${ISLET_SYSTEST_TIMEOUT:-900}"
smp=1
reboot_mode=powercycle
while [ $# -gt 0 ]; do
    case "$1" in
        --guest) guest="${2:?--guest needs a suite}"; shift 2 ;;
        --results) results="${2:?--results needs a directory}"; shift 2 ;;
        --keep) keep=1; shift ;;
        --timeout) timeout_s="${2:?--timeout needs seconds}"; shift 2 ;;
        --smp) smp="${2:?--smp needs a number}"; shift 2 ;;
        --reboot) reboot_mode="${2:?--reboot needs powercycle or reset}"; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see systest/run.sh --help)" ;;
    esac
done
case "$reboot_mode" in powercycle|reset) ;; *) die "--reboot takes powercycle or reset" ;; esac
case "$guest" in
    bookworm) ;;
    *) die "guest '$guest' is not supported yet: the rig builds gpio-sim from linux-source-6.1 for bookworm's kernel" ;;
esac
[ "$(id -u)" = 0 ] || die "the system test needs root (apt-get, mmdebstrap, mke2fs): run it as root"
results="${results:-$root/systest-results/$guest}"

t_start=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- 1. Debian packages on the host --------------------------------------------------------
apt_ensure qemu-system-x86 qemu-utils linux-image-amd64 linux-source-6.1 mmdebstrap e2fsprogs \
    dpkg-dev make gcc xz-utils python3 util-linux kmod
kver="$(guest_kernel)"
[ -n "$kver" ] || die "cannot tell the kernel of linux-image-amd64"
apt_ensure "linux-image-$kver" "linux-headers-$kver"
[ -f "/boot/vmlinuz-$kver" ] || die "/boot/vmlinuz-$kver is missing (linux-image-$kver)"
say "guest kernel $kver ($(pkg_version "linux-image-$kver"))"

# ---- 2. Islet's artifacts --------------------------------------------------------------------
# Working directories of runs that were killed outright (SIGKILL leaves no trap) go first.
for old in /var/tmp/islet-systest.*; do
    [ -f "$old/pid" ] || continue
    kill -0 "$(cat "$old/pid")" 2>/dev/null || rm -rf "$old"
done
work="$(mktemp -d /var/tmp/islet-systest.XXXXXX)"
echo $$ > "$work/pid"
qemu_pid=""
cleanup() {
    local rc=$?
    if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
        say "stopping qemu (pid $qemu_pid)"
        kill -TERM "$qemu_pid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$qemu_pid" 2>/dev/null || true
        wait "$qemu_pid" 2>/dev/null || true
    fi
    if [ "$keep" = 1 ]; then say "kept the working directory $work"; else rm -rf "$work"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

mkdir -p "$work/host/artifacts" "$work/host/repo" "$work/host/guest"
if [ -n "${ISLET_ARTIFACTS:-}" ]; then
    art="$(cd "$ISLET_ARTIFACTS" && pwd)"
    say "artifacts from ISLET_ARTIFACTS=$art (no build)"
    cp "$art/isletd" "$art/isletctl" "$work/host/artifacts/"
    debs=("$art"/islet_*.deb)
else
    say "building the release and the package: make -C $root release deb"
    make -C "$root" release deb >&2
    cp "$root/dist/bin/isletd" "$root/dist/bin/isletctl" "$work/host/artifacts/"
    # The package make deb just wrote: the newest in dist/ (its version from the package itself).
    newest="$(find "$root/dist" -maxdepth 1 -name "islet_*_$(dpkg --print-architecture).deb" -printf '%T@ %p\n' 2>/dev/null \
        | sort -n | tail -n1 | cut -d' ' -f2-)"
    [ -n "$newest" ] || die "make deb left no dist/islet_*.deb"
    v1="$(dpkg-deb -f "$newest" Version)"
    deb1=("$newest")
    say "building the upgrade package ${v1}+systest"
    SKIP_BUILD=1 DEB_VERSION="${v1}+systest" DEB_OUT="$work" bash "$root/scripts/deb.sh" >&2
    debs=("${deb1[0]}" "$work/islet_${v1}+systest_"*.deb)
fi
if [ "${#debs[@]}" -lt 2 ] || [ ! -f "${debs[0]}" ] || [ ! -f "${debs[1]}" ]; then
    die "need two islet .deb files (a version and a higher one), found: ${debs[*]}"
fi
# The lowest and the highest version.
mapfile -t vers < <(for d in "${debs[@]}"; do dpkg-deb -f "$d" Version; done | sort -u)
low="${vers[0]}" high="${vers[0]}"
for v in "${vers[@]}"; do
    dpkg --compare-versions "$v" lt "$low" && low="$v"
    dpkg --compare-versions "$v" gt "$high" && high="$v"
done
[ "$low" != "$high" ] || die "the two packages have the same version $low: the upgrade needs a higher one"
for d in "${debs[@]}"; do
    v="$(dpkg-deb -f "$d" Version)"
    if [ "$v" = "$low" ] || [ "$v" = "$high" ]; then cp "$d" "$work/host/repo/"; fi
done
say "islet $low, upgrade to $high"

# ---- 3. gpio-sim.ko for the guest kernel (cached) -------------------------------------------
module_key="$(hash_of "$kver" "$(pkg_version "linux-headers-$kver")" "$(pkg_version linux-source-6.1)" \
    "$here/build-module.sh" "$here/gpio-sim/Kbuild")"
t0=$(date +%s.%N)
moddir="$(cached gpio-sim "$module_key" "$here/build-module.sh" "$kver")"
say "gpio-sim.ko ready ($(since "$t0") s; built in $(cat "$moddir/.build-seconds") s)"

# ---- 4. The guest image (cached) -------------------------------------------------------------
# Keyed by the scripts that build it, the kernel, the module and the candidate versions of what
# it installs (so a Debian update of systemd, python3, ... makes a new image).
IFS=, read -r -a include < <(sed -n 's/^INCLUDE=//p' "$here/build-image.sh")
candidates="$(apt-cache policy "${include[@]}" 2>/dev/null | grep -E '^[^ ]|Candidate' | tr -s ' ' | tr '\n' ' ')"
image_key="$(hash_of "$guest" "$kver" "$(pkg_version "linux-image-$kver")" "$module_key" "$candidates" \
    "$(pkg_version mmdebstrap)" "$here/build-image.sh" "$here/image-customize.sh" \
    "$here/guest/systest-boot" "$here/guest/systest.service")"
t0=$(date +%s.%N)
image="$(cached "image-$guest" "$image_key" "$here/build-image.sh" "$guest" "$kver" "$moddir")"
say "guest image ready ($(since "$t0") s; built in $(cat "$image/.build-seconds") s)"

# ---- 5. The local apt repository: the two islet packages and what their Depends pull in -------
# apt on the host answers "what would the guest install", with the guest's dpkg status in place
# of the host's; those packages are downloaded (cached) and indexed beside the islet packages.
t0=$(date +%s.%N)
debcache="$SYSTEST_CACHE/debs"
mkdir -p "$debcache"
aptopts=(-o "Dir::State::status=$image/dpkg-status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
closure=()
for d in "$work"/host/repo/islet_*.deb; do
    sim="$(apt-get "${aptopts[@]}" -s install "$d" 2>&1)" || { printf '%s\n' "$sim" >&2; die "apt cannot resolve the Depends of $(basename "$d") for the guest"; }
    while read -r name ver; do
        [ "$name" = islet ] || closure+=("$name=$ver")
    done < <(printf '%s\n' "$sim" | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p')
done
mapfile -t closure < <(printf '%s\n' "${closure[@]}" | sort -u)
need=()
for nv in "${closure[@]}"; do
    name="${nv%%=*}" ver="${nv#*=}"
    f=("$debcache/${name}_${ver//:/%3a}_"*.deb)
    [ -f "${f[0]}" ] || need+=("$nv")
done
if [ "${#need[@]}" -gt 0 ]; then
    say "downloading ${#need[@]} Debian packages for the local repository"
    dl="$(mktemp -d "$debcache/.dl.XXXXXX")"
    (cd "$dl" && apt-get -q -o APT::Sandbox::User=root download "${need[@]}" >&2) || { rm -rf "$dl"; die "apt-get download failed for: ${need[*]}"; }
    for f in "$dl"/*.deb; do mv -f "$f" "$debcache/"; done
    rmdir "$dl"
fi
for nv in "${closure[@]}"; do
    name="${nv%%=*}" ver="${nv#*=}"
    f=("$debcache/${name}_${ver//:/%3a}_"*.deb)
    cp "${f[0]}" "$work/host/repo/"
done
printf '%s\n' "${closure[@]}" > "$work/host/repo/closure.txt"
(cd "$work/host/repo" && dpkg-scanpackages --multiversion . /dev/null > Packages 2>/dev/null)
say "local repository: islet $low and $high + ${#closure[@]} dependencies ($(since "$t0") s)"

# ---- 6. The shares and the results folder ----------------------------------------------------
cp -r "$here/guest/." "$work/host/guest/"
cp "$here/decode_ssd1306_trace.py" "$work/host/guest/"
cat > "$work/host/run.env" <<EOF
ISLET_LOW=$low
ISLET_HIGH=$high
GUEST=$guest
KVER=$kver
EOF
mkdir -p "$results"
find "$results" -mindepth 1 -delete
cp "$image/packages.txt" "$results/guest-packages.txt"
cp "$work/host/repo/closure.txt" "$results/repo-closure.txt"

# ---- 7. The guest ----------------------------------------------------------------------------
# The reboot of step h: "powercycle" (default) powers the guest off and starts qemu again on the
# same disk (a qcow2 overlay over the cached image, in the working directory); "reset" reboots
# inside one qemu run (systemctl reboot, the disk a -snapshot). Both keep the cached image clean.
# Measured under TCG, the second boot after a reset took 110-240 s against 32-40 s for a fresh
# qemu, so powercycle is the default.
disk="file=$image/rootfs.img,format=raw,if=virtio,snapshot=on"
if [ "$reboot_mode" = powercycle ]; then
    qemu-img create -q -f qcow2 -b "$image/rootfs.img" -F raw "$work/disk.qcow2"
    disk="file=$work/disk.qcow2,format=qcow2,if=virtio"
fi
echo "REBOOT_MODE=$reboot_mode" >> "$work/host/run.env"
say "booting the $guest guest (qemu TCG, -smp $smp, reboot by $reboot_mode, limit ${timeout_s} s)"
qemu=(qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp "$smp"
      -nodefaults -display none -nic none -no-user-config
      -kernel "$image/vmlinuz" -initrd "$image/initrd.img"
      -append "root=/dev/vda rw console=ttyS0 systemd.show_status=0 panic=-1"
      -drive "$disk"
      -virtfs "local,path=$work/host,mount_tag=host,security_model=none,readonly=on"
      -virtfs "local,path=$results,mount_tag=results,security_model=none"
      -virtfs "local,path=$root,mount_tag=src,security_model=none,readonly=on"
      -chardev "file,id=console,path=$results/console.log,append=on" -serial chardev:console)
printf '%q ' "${qemu[@]}" > "$results/qemu-command.txt"
t_boot=$(date +%s.%N)

# Print the guest's step results as they arrive.
steps="$results/steps.tsv"
shown=0
deadline=$(( $(date +%s) + timeout_s ))
print_new_steps() {
    [ -f "$steps" ] || return 0
    local n=0 status name secs detail
    while IFS=$'\t' read -r status name secs detail; do
        n=$((n + 1))
        [ "$n" -le "$shown" ] && continue
        shown=$n
        printf '%s %s (%s s)%s\n' "$status" "$name" "$secs" "${detail:+: $detail}"
    done < "$steps"
}
timed_out=0
boots=0
while :; do
    boots=$((boots + 1))
    rm -f "$results/power-cycle"
    # --pdeathsig: even if this script is killed outright, qemu goes with it.
    setpriv --pdeathsig KILL "${qemu[@]}" &
    qemu_pid=$!
    while kill -0 "$qemu_pid" 2>/dev/null; do
        print_new_steps
        if [ "$(date +%s)" -ge "$deadline" ]; then timed_out=1; break; fi
        sleep 1
    done
    if [ "$timed_out" = 1 ]; then
        say "the guest ran past ${timeout_s} s: killing qemu"
        kill -TERM "$qemu_pid" 2>/dev/null || true
        sleep 2
        kill -KILL "$qemu_pid" 2>/dev/null || true
    fi
    qemu_rc=0
    wait "$qemu_pid" || qemu_rc=$?
    qemu_pid=""
    print_new_steps
    # The scenario asks for a power cycle by leaving this file before it powers off.
    if [ "$timed_out" = 0 ] && [ -f "$results/power-cycle" ] && [ "$boots" -lt 3 ]; then
        say "power cycle: starting the guest again on the same disk"
        continue
    fi
    break
done
guest_s="$(since "$t_boot")"

# ---- 8. The verdict --------------------------------------------------------------------------
failed=()
if [ -f "$steps" ]; then
    mapfile -t failed < <(awk -F'\t' '$1 == "FAIL" { print $2 }' "$steps")
fi
problem=""
if [ "$timed_out" = 1 ]; then problem="the guest did not finish within ${timeout_s} s"
elif [ ! -f "$results/done" ]; then problem="the guest stopped before the scenario finished (qemu exit $qemu_rc)"
fi
for f in "${failed[@]}"; do
    printf '\n---- FAIL %s: evidence (%s) ----\n' "$f" "$results/steps/$f.log"
    if [ -f "$results/steps/$f.log" ]; then tail -n 60 "$results/steps/$f.log"; fi
done
if [ -n "$problem" ]; then
    printf '\n---- %s: the console'"'"'s last lines (%s) ----\n' "$problem" "$results/console.log"
    tail -n 40 "$results/console.log" 2>/dev/null || true
fi
counts="$(awk -F'\t' '{ c[$1]++ } END { printf "%d passed, %d failed, %d skipped", c["PASS"], c["FAIL"], c["SKIP"] }' "$steps" 2>/dev/null || echo "0 passed, 0 failed, 0 skipped")"
printf '\nsystest: guest %s s, total %s s; results in %s\n' "$guest_s" "$(since "$t_start")" "$results"
echo "systest: $counts"
if [ -n "$problem" ] || [ "${#failed[@]}" -gt 0 ]; then
    [ -n "$problem" ] && echo "systest: FAIL: $problem"
    [ "${#failed[@]}" -gt 0 ] && echo "systest: FAIL: ${failed[*]}"
    exit 1
fi
echo "systest: PASS"
