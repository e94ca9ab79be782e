#!/usr/bin/env bash
# The system test (`make test-system`): Islet's .deb and `make install` in Debian guests under
# qemu (TCG), on a real kernel and a live systemd, with the panel on i2c-stub and the buttons on
# gpio-sim. docs/SYSTEM-TEST.md describes the rig; systest/guest/guest-scenario.sh the steps.
#
#   systest/run.sh [--guest bookworm,trixie] [--arch amd64|arm64] [--results DIR] [--keep]
#                  [--timeout SECONDS] [--smp N] [--reboot powercycle|reset]
#
#   --arch      the guests' architecture: amd64 (default: qemu-system-x86_64) or arm64 (an aarch64
#               guest, qemu-system-aarch64 -M virt; trixie only, the release Islet ships for arm64)
#   --guest     the Debian suites of the guests, comma-separated (default: bookworm,trixie).
#               Several guests: the artifacts of each are built first, one after the other, then
#               the guests run side by side (each qemu has its own vCPUs), each line of output
#               prefixed with its guest; the run fails if any guest fails.
#   --results   where the logs go (default: <root>/systest-results/<guest>/, for arm64
#               <root>/systest-results/<guest>-arm64/, emptied first; with
#               several guests DIR/<guest>/)
#   --keep      keep the run's working directory (the shares, the local repository) and say where
#   --timeout   hard limit for each guest, in seconds (default 900, arm64 1500); qemu is killed past it
#   --smp       virtual CPUs per guest (default 1: with TCG on 2 host cores it was faster than 2)
#   --reboot    how step h reboots the guest: powercycle (default: poweroff, a new qemu on the same
#               disk) or reset (systemctl reboot inside one qemu run); see docs/SYSTEM-TEST.md
#
# Environment: ISLET_ARTIFACTS=DIR (one guest only) or ISLET_ARTIFACTS_<SUITE>=DIR (e.g.
# ISLET_ARTIFACTS_TRIXIE; ISLET_ARTIFACTS_TRIXIE_ARM64 for arm64) uses DIR's isletd, isletctl and
# two islet_<version>_<arch>.deb (the higher version is the upgrade) instead of building them:
# `make -C <root> release deb` for the
# host's own Debian release, scripts/build-in-root.sh SUITE for another (trixie: libgpiod 2.x;
# for arm64 ARCH=arm64 scripts/build-in-root.sh trixie, cross-compiled);
# ISLET_SYSTEST_CACHE=DIR caches the modules and the images there (default
# /var/cache/islet-systest). Needs root (apt-get, mmdebstrap, the image).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=systest/lib.sh
. "$here/lib.sh"
# shellcheck source=systest/broker.sh
. "$here/broker.sh"

guests=""
arch=amd64
results=""
keep=0
timeout_s="${ISLET_SYSTEST_TIMEOUT:-}"
smp=1
reboot_mode=powercycle
args=("$@")
while [ $# -gt 0 ]; do
    case "$1" in
        --guest) guests="${2:?--guest needs a suite}"; shift 2 ;;
        --arch) arch="${2:?--arch needs amd64 or arm64}"; shift 2 ;;
        --results) results="${2:?--results needs a directory}"; shift 2 ;;
        --keep) keep=1; shift ;;
        --timeout) timeout_s="${2:?--timeout needs seconds}"; shift 2 ;;
        --smp) smp="${2:?--smp needs a number}"; shift 2 ;;
        --reboot) reboot_mode="${2:?--reboot needs powercycle or reset}"; shift 2 ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see systest/run.sh --help)" ;;
    esac
done
case "$reboot_mode" in powercycle|reset) ;; *) die "--reboot takes powercycle or reset" ;; esac
# arm64: trixie alone. Debian has no Swift for bookworm's arm64 and Islet's arm64 package is the
# trixie build; TCG emulating an aarch64 CPU is slower, hence the longer default limit (see
# docs/SYSTEM-TEST.md, the arm64 guest).
case "$arch" in
    amd64) guests="${guests:-bookworm,trixie}" timeout_s="${timeout_s:-900}" ;;
    arm64) guests="${guests:-trixie}" timeout_s="${timeout_s:-1500}" ;;
    *) die "--arch takes amd64 or arm64, not '$arch'" ;;
esac
[ "$HOST_ARCH" = amd64 ] || die "the system test runs on an amd64 host (this one is $HOST_ARCH)"
IFS=, read -r -a guest_list <<< "$guests"
for g in "${guest_list[@]}"; do
    case "$arch:$g" in
        amd64:bookworm|amd64:trixie|arm64:trixie) ;;
        arm64:bookworm) die "no arm64 bookworm guest: Debian 12 has no Swift for arm64 and Islet's arm64 package is the trixie build (use --arch arm64 --guest trixie)" ;;
        *) die "guest '$g' is not supported: bookworm (Debian 12, kernel 6.1) or trixie (Debian 13, kernel 6.12)" ;;
    esac
done
[ "${#guest_list[@]}" -gt 0 ] || die "--guest names no suite"
[ "$(id -u)" = 0 ] || die "the system test needs root (apt-get, mmdebstrap, mke2fs): run it as root"
[ -n "$HOST_SUITE" ] || die "cannot tell this host's Debian release (/etc/os-release has no VERSION_CODENAME)"
if [ "${#guest_list[@]}" -gt 1 ] && [ -n "${ISLET_ARTIFACTS:-}" ]; then
    die "ISLET_ARTIFACTS is for one guest; with several use ISLET_ARTIFACTS_<SUITE> (e.g. ISLET_ARTIFACTS_TRIXIE)"
fi

t_start=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- 1. Debian packages on the host --------------------------------------------------------
# host_packages GUEST: what the host needs for that guest. For the host's own release the kernel
# (image, headers, source) comes from the host's packages; for another release from its
# repository (suite_apt), into the guest image and a throw-away build root.
host_packages() {
    apt_ensure qemu-system-x86 qemu-utils mmdebstrap e2fsprogs dpkg-dev make gcc xz-utils python3 \
        util-linux kmod rsync mosquitto mosquitto-clients
    if [ "$arch" = arm64 ]; then
        apt_ensure qemu-system-arm qemu-user-static binfmt-support
        suite_apt "$1" arm64
        binfmt_arm64
        return 0
    fi
    if [ "$1" = "$HOST_SUITE" ]; then
        apt_ensure linux-image-amd64
        local k; k="$(guest_kernel)"
        [ -n "$k" ] || die "cannot tell the kernel of linux-image-amd64"
        apt_ensure "linux-image-$k" "linux-headers-$k" "linux-source-$(kernel_series "$k")"
    else
        suite_apt "$1"
    fi
}
# binfmt_arm64: arm64 programs run on this host through binfmt_misc and qemu-user (mmdebstrap
# --architectures=arm64 runs the packages' maintainer scripts, the module build runs gcc-14 and
# the headers' modpost in an arm64 root): binfmt_misc mounted, qemu-aarch64 enabled, and a static
# arm64 busybox (from the guest release's busybox-static, kept in the cache) must run.
binfmt_arm64() {
    local bf=/proc/sys/fs/binfmt_misc d="$SYSTEST_CACHE/binfmt-check" v bb
    mountpoint -q "$bf" || mount -t binfmt_misc binfmt_misc "$bf" \
        || die "binfmt_misc is not mounted on $bf and mounting it failed: arm64 programs cannot run on this host"
    [ "$(head -n1 "$bf/qemu-aarch64" 2>/dev/null)" = enabled ] || update-binfmts --enable qemu-aarch64 \
        || die "update-binfmts --enable qemu-aarch64 failed (qemu-user-static's binfmt entry): arm64 programs cannot run on this host"
    v="$(suite_candidate busybox-static | cut -d' ' -f2)"
    [ -n "$v" ] || die "no busybox-static in $SUITE_ARCH's package lists, for the binfmt check"
    v="${v//[^A-Za-z0-9.+~-]/_}"
    bb="$d/$v/usr/bin/busybox"
    if [ ! -x "$bb" ]; then
        rm -rf "$d"; mkdir -p "$d/dl"
        (cd "$d/dl" && apt-get "${SUITE_APT[@]}" -q download busybox-static >&2) || die "apt-get download busybox-static (arm64) failed"
        dpkg-deb -x "$d"/dl/busybox-static_*.deb "$d/$v" || die "cannot unpack busybox-static (arm64)"
        rm -rf "$d/dl"
        [ -x "$bb" ] || die "busybox-static (arm64) has no /usr/bin/busybox"
    fi
    [ "$("$bb" uname -m 2>/dev/null)" = aarch64 ] \
        || die "an arm64 binary ($bb) does not run here: check binfmt_misc ($bf/qemu-aarch64) and qemu-user-static"
}
# kernel_series KVER: 6.1 for 6.1.0-57-amd64, 6.12 for 6.12.117+deb13-amd64 (linux-source-SERIES).
kernel_series() { sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p' <<< "$1"; }

# Working directories of runs that were killed outright (SIGKILL leaves no trap) go first.
for old in /var/tmp/islet-systest.*; do
    [ -f "$old/pid" ] || continue
    kill -0 "$(cat "$old/pid")" 2>/dev/null || rm -rf "$old"
done
work="$(mktemp -d /var/tmp/islet-systest.XXXXXX)"
echo $$ > "$work/pid"
qemu_pid=""
children=()
cleanup() {
    local rc=$? p
    if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
        say "stopping qemu (pid $qemu_pid)"
        kill -TERM "$qemu_pid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$qemu_pid" 2>/dev/null || true
        wait "$qemu_pid" 2>/dev/null || true
    fi
    broker_stop
    # The runs of the other guests (several guests): each stops its own qemu on TERM.
    for p in "${children[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${children[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "$keep" = 1 ]; then say "kept the working directory $work"; else rm -rf "$work"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

# ---- 2. Islet's artifacts --------------------------------------------------------------------
# build_artifacts GUEST OUT: isletd, isletctl and two packages (the release's version and
# <version>+systest, the upgrade) for GUEST's Debian release, into OUT.
build_artifacts() {
    local g="$1" out="$2" newest v1
    mkdir -p "$out"
    if [ "$arch" = arm64 ]; then
        # Cross-compiled in a trixie root (trixie's swiftlang and its aarch64 sysroot): arm64
        # binaries, and both packages from them.
        say "building the release and the packages for $g arm64: ARCH=arm64 scripts/build-in-root.sh $g"
        ARCH=arm64 DEB_EXTRA_SUFFIX=+systest bash "$root/scripts/build-in-root.sh" "$g" "$out" >&2 \
            || die "ARCH=arm64 scripts/build-in-root.sh $g failed (above)"
        cp "$out/bin/isletd" "$out/bin/isletctl" "$out/"
    elif [ "$g" = "$HOST_SUITE" ]; then
        say "building the release and the package for $g: make -C $root release deb"
        # (In "$(...)", where set -e does not reach: each build says itself when it failed.)
        make -C "$root" release deb >&2 || die "make release deb failed for $g (above)"
        cp "$root/dist/bin/isletd" "$root/dist/bin/isletctl" "$out/"
        # The package make deb just wrote: the newest in dist/ (its version from the package itself).
        newest="$(find "$root/dist" -maxdepth 1 -name "islet_*_$(dpkg --print-architecture).deb" -printf '%T@ %p\n' 2>/dev/null \
            | sort -n | tail -n1 | cut -d' ' -f2-)"
        [ -n "$newest" ] || die "make deb left no dist/islet_*.deb"
        cp "$newest" "$out/"
        v1="$(dpkg-deb -f "$newest" Version)"
        say "building the upgrade package ${v1}+systest"
        SKIP_BUILD=1 DEB_VERSION="${v1}+systest" DEB_OUT="$out" bash "$root/scripts/deb.sh" >&2 \
            || die "the upgrade package ${v1}+systest failed (above)"
    else
        # Built in a $g root with this machine's toolchain: $g's libraries and headers (trixie:
        # libgpiod 2.x, so the v2 backend), and the upgrade package from the same binaries.
        say "building the release and the packages for $g: scripts/build-in-root.sh $g"
        DEB_EXTRA_SUFFIX=+systest bash "$root/scripts/build-in-root.sh" "$g" "$out" >&2 \
            || die "scripts/build-in-root.sh $g failed (above)"
        cp "$out/bin/isletd" "$out/bin/isletctl" "$out/"
    fi
}
# artifacts_dir GUEST: the folder with GUEST's artifacts: given (ISLET_ARTIFACTS_<SUITE>, or
# ISLET_ARTIFACTS with one guest) or built into the working directory.
artifacts_dir() {
    local g="$1" var given
    var="ISLET_ARTIFACTS_$(tr '[:lower:]' '[:upper:]' <<< "$g")"
    [ "$arch" = amd64 ] || var="${var}_$(tr '[:lower:]' '[:upper:]' <<< "$arch")"
    given="${!var:-${ISLET_ARTIFACTS:-}}"
    if [ -n "$given" ]; then
        given="$(cd "$given" && pwd)" || die "$var/ISLET_ARTIFACTS: no such folder"
        say "artifacts for $g from $given (no build)"
        printf '%s\n' "$given"
    else
        build_artifacts "$g" "$work/artifacts-$g"
        printf '%s\n' "$work/artifacts-$g"
    fi
}

for g in "${guest_list[@]}"; do host_packages "$g"; done

# ---- Several guests: build each one's artifacts, then run the guests side by side ------------
if [ "${#guest_list[@]}" -gt 1 ]; then
    declare -A art child_of
    for g in "${guest_list[@]}"; do
        t0=$(date +%s.%N)
        art[$g]="$(artifacts_dir "$g")"
        say "artifacts for $g ready ($(since "$t0") s)"
    done
    base="${results:-$root/systest-results}"
    pass=()
    [ "$keep" = 1 ] && pass+=(--keep)
    pass+=(--arch "$arch" --timeout "$timeout_s" --smp "$smp" --reboot "$reboot_mode")
    seds=()
    for g in "${guest_list[@]}"; do
        # Emptied here too: a guest's run that fails before its own emptying leaves no old verdict.
        mkdir -p "$base/$g"
        find "$base/$g" -mindepth 1 -delete
        mkfifo "$work/out-$g"
        sed -u "s/^/[$g] /" < "$work/out-$g" &
        seds+=($!)
        # --pdeathsig: if this script dies outright, each guest's run gets TERM and stops its qemu.
        ISLET_ARTIFACTS="${art[$g]}" ISLET_SYSTEST_CHILD=1 setpriv --pdeathsig TERM \
            bash "$0" --guest "$g" --results "$base/$g" "${pass[@]}" > "$work/out-$g" 2>&1 &
        child_of[$g]=$!
        children+=($!)
    done
    say "running the guests side by side: ${guest_list[*]}"
    declare -A rc_of
    for g in "${guest_list[@]}"; do
        rc=0; wait "${child_of[$g]}" || rc=$?
        rc_of[$g]=$rc
    done
    children=()
    for p in "${seds[@]}"; do wait "$p" 2>/dev/null || true; done
    echo
    bad=0
    for g in "${guest_list[@]}"; do
        r="$base/$g"
        counts="$(awk -F'\t' '{ c[$1]++ } END { printf "%d passed, %d failed, %d skipped", c["PASS"], c["FAIL"], c["SKIP"] }' "$r/steps.tsv" 2>/dev/null || echo "no steps")"
        if [ "${rc_of[$g]}" = 0 ]; then
            echo "systest: $g: PASS ($counts)"
        else
            bad=1
            echo "systest: $g: FAIL (exit ${rc_of[$g]}; $counts)"
            [ -f "$r/steps.tsv" ] && awk -F'\t' -v g="$g" -v r="$r" '$1 == "FAIL" {
                printf "systest: %s: FAIL %s: %s (evidence: %s/steps/%s.log)\n", g, $2, $4, r, $2 }' "$r/steps.tsv"
            if [ -f "$r/problem.txt" ]; then
                echo "systest: $g: FAIL: $(cat "$r/problem.txt") (the console: $r/console.log)"
            elif [ ! -f "$r/done" ]; then
                echo "systest: $g: its run stopped before the guest finished (see the [$g] lines above)"
            fi
        fi
        [ -f "$r/timings.txt" ] && sed "s/^/systest: $g: timing: /" "$r/timings.txt"
        [ -f "$r/security.txt" ] && sed "s/^/systest: $g: security: /" "$r/security.txt"
    done
    echo "systest: ${guest_list[*]}: total $(since "$t_start") s"
    [ "$bad" = 0 ] || { echo "systest: FAIL"; exit 1; }
    echo "systest: PASS"
    exit 0
fi

# ---- One guest -------------------------------------------------------------------------------
guest="${guest_list[0]}"
# The guest's name in the results and the cache: the suite, and the architecture unless amd64.
label="$guest"
[ "$arch" = amd64 ] || label="$guest-$arch"
results="${results:-$root/systest-results/$label}"
if [ "$guest" = "$HOST_SUITE" ] && [ "$arch" = "$HOST_ARCH" ]; then
    kver="$(guest_kernel)"
    kernel_from=host
    say "guest kernel $kver ($(pkg_version "linux-image-$kver"), the host's package)"
else
    suite_apt "$guest" "$arch"
    kver="$(suite_kernel)"
    [ -n "$kver" ] || die "cannot tell the kernel of $guest's linux-image-$arch"
    kernel_from=image
    say "guest kernel $kver ($(suite_candidate "linux-image-$kver" | cut -d' ' -f2), from $guest's $arch repository)"
fi
series="$(kernel_series "$kver")"

# ---- 3. gpio-sim.ko (and i2c-stub.ko) for the guest kernel (cached) --------------------------
# Built on the host from its packages for the host's release; for another release in a throw-away
# root of that release (its headers want its compiler); for arm64 cross-built in such a root
# (that kernel lacks i2c-stub too, so build-module.sh builds it). Keyed by the packages' versions.
if [ "$kernel_from" = host ]; then
    module_key="$(hash_of "$kver" "$(pkg_version "linux-headers-$kver")" "$(pkg_version "linux-source-$series")" \
        "$here/build-module.sh" "$here/gpio-sim/Kbuild")"
    module_args=("$kver" "$series")
else
    module_key="$(hash_of "$label" "$kver" "$(suite_candidate "linux-headers-$kver" "linux-source-$series")" \
        "$here/build-module.sh" "$here/gpio-sim/Kbuild" "$here/i2c-stub/Kbuild")"
    module_args=("$kver" "$series" "$guest")
    [ "$arch" = amd64 ] || module_args+=("$arch")
fi
t0=$(date +%s.%N)
modname="gpio-sim-$guest"
[ "$arch" = amd64 ] || modname="modules-$label"
moddir="$(cached "$modname" "$module_key" "$here/build-module.sh" "${module_args[@]}")"
hold_cached "$moddir"
say "modules ready: $(cd "$moddir" && echo *.ko) ($(since "$t0") s; built in $(cat "$moddir/.build-seconds") s)"

# ---- 4. The guest image (cached) -------------------------------------------------------------
# Keyed by the scripts that build it, the kernel, the module and the candidate versions of what
# it installs (so a Debian update of systemd, python3, ... makes a new image).
IFS=, read -r -a include < <(sed -n 's/^INCLUDE=//p' "$here/build-image.sh")
[ "$kernel_from" = image ] && include+=("linux-image-$kver")
candidates="$(apt-cache "${SUITE_APT[@]}" policy "${include[@]}" 2>/dev/null | grep -E '^[^ ]|Candidate' | tr -s ' ' | tr '\n' ' ')"
if [ "$kernel_from" = host ]; then kernel_pkg="$(pkg_version "linux-image-$kver")"; else kernel_pkg="image"; fi
image_key="$(hash_of "$label" "$kver" "$kernel_pkg" "$module_key" "$candidates" \
    "$(pkg_version mmdebstrap)" "$here/build-image.sh" "$here/image-customize.sh" \
    "$here/guest/systest-boot" "$here/guest/systest.service")"
t0=$(date +%s.%N)
image_args=("$guest" "$kver" "$moddir" "$kernel_from")
[ "$arch" = amd64 ] || image_args+=("$arch")
image="$(cached "image-$label" "$image_key" "$here/build-image.sh" "${image_args[@]}")"
hold_cached "$image"
say "guest image ready ($(since "$t0") s; built in $(cat "$image/.build-seconds") s)"

# ---- 4b. Islet's artifacts (after the module and the image, which do not depend on them: a
# broken rig shows before a Swift build) -------------------------------------------------------
mkdir -p "$work/host/artifacts" "$work/host/repo" "$work/host/guest"
art="$(artifacts_dir "$guest")"
for b in isletd isletctl; do
    if [ -f "$art/$b" ]; then cp "$art/$b" "$work/host/artifacts/"
    elif [ -f "$art/bin/$b" ]; then cp "$art/bin/$b" "$work/host/artifacts/"
    else die "no $b in $art (nor in $art/bin)"; fi
done
debs=("$art"/islet_*_"$arch".deb)
if [ "${#debs[@]}" -lt 2 ] || [ ! -f "${debs[0]}" ] || [ ! -f "${debs[1]}" ]; then
    die "need two islet_*_$arch.deb files in $art (a version and a higher one), found: ${debs[*]}"
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
say "islet $low, upgrade to $high ($(dpkg-deb -f "$work/host/repo/islet_${low}_"*.deb Depends | grep -o 'libgpiod[0-9]*[^,]*' || echo 'no libgpiod'))"

# ---- 5. The local apt repository: the two islet packages and what their Depends pull in -------
# apt on the host answers "what would the guest install", with the guest's dpkg status in place
# of the host's; those packages are downloaded (cached) and indexed beside the islet packages.
t0=$(date +%s.%N)
debcache="$SYSTEST_CACHE/debs"
mkdir -p "$debcache"
# cached_deb NAME VERSION: the cached package of the guest's architecture (or all), if any: the
# cache holds amd64 and arm64 packages side by side.
cached_deb() {
    local f
    for f in "$debcache/${1}_${2//:/%3a}_$arch.deb" "$debcache/${1}_${2//:/%3a}_all.deb"; do
        [ -f "$f" ] && { printf '%s\n' "$f"; return 0; }
    done
    return 0
}
# Recommends too (whatever the host's apt says): step j3 installs the web page's libmicrohttpd,
# which the package recommends, from this repository.
aptopts=(-o "Dir::State::status=$image/dpkg-status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
         -o APT::Install-Recommends=true)
closure=()
for d in "$work"/host/repo/islet_*.deb; do
    sim="$(apt-get "${SUITE_APT[@]}" "${aptopts[@]}" -s install "$d" 2>&1)" || { printf '%s\n' "$sim" >&2; die "apt cannot resolve the Depends of $(basename "$d") for the guest"; }
    while read -r name ver; do
        [ "$name" = islet ] || closure+=("$name=$ver")
    done < <(printf '%s\n' "$sim" | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p')
done
mapfile -t closure < <(printf '%s\n' "${closure[@]}" | sort -u)
need=()
for nv in "${closure[@]}"; do
    name="${nv%%=*}" ver="${nv#*=}"
    [ -n "$(cached_deb "$name" "$ver")" ] || need+=("$nv")
done
if [ "${#need[@]}" -gt 0 ]; then
    say "downloading ${#need[@]} Debian packages for the local repository"
    dl="$(mktemp -d "$debcache/.dl.XXXXXX")"
    (cd "$dl" && apt-get "${SUITE_APT[@]}" -q -o APT::Sandbox::User=root download "${need[@]}" >&2) || { rm -rf "$dl"; die "apt-get download failed for: ${need[*]}"; }
    for f in "$dl"/*.deb; do mv -f "$f" "$debcache/"; done
    rmdir "$dl"
fi
for nv in "${closure[@]}"; do
    name="${nv%%=*}" ver="${nv#*=}"
    f="$(cached_deb "$name" "$ver")"
    [ -n "$f" ] || die "no ${name}_${ver} ($arch or all) in $debcache after the download"
    cp "$f" "$work/host/repo/"
done
printf '%s\n' "${closure[@]}" > "$work/host/repo/closure.txt"
(cd "$work/host/repo" && dpkg-scanpackages --multiversion . /dev/null > Packages 2>/dev/null)
say "local repository: islet $low and $high + ${#closure[@]} dependencies ($(since "$t0") s)"

# ---- 6. The shares and the results folder ----------------------------------------------------
cp -r "$here/guest/." "$work/host/guest/"
cp "$here/decode_ssd1306_trace.py" "$work/host/guest/"
# The harnesses' shared library (the guest imports it from /host/testkit).
cp -r "$root/testkit" "$work/host/"
cat > "$work/host/run.env" <<EOF
ISLET_LOW=$low
ISLET_HIGH=$high
GUEST=$guest
GUEST_ARCH=$arch
KVER=$kver
EOF
mkdir -p "$results"
find "$results" -mindepth 1 -delete
cp "$image/packages.txt" "$results/guest-packages.txt"
cp "$work/host/repo/closure.txt" "$results/repo-closure.txt"

# ---- 6b. The MQTT broker on the host side (systest/broker.sh) ---------------------------------
# The guest's only way out: its user-mode NIC with restrict=on, where a TCP connection to
# 10.0.2.100:1883 is handed to mqtt_relay.py, which connects it to this broker on the host's
# loopback. mosquitto reads its password file as its own user: it may pass through $work.
chmod 0711 "$work"
broker_start "$work/broker" "$results" "$work/host"

# ---- 6c. The guest's web page from the host's side (systest/web_get.py) -----------------------
# qemu forwards 127.0.0.1:WEB_PORT on the host to the guest's port 8080 (hostfwd: an explicit
# forward, which restrict=on lets through); the guest asks for pages by leaving
# web/request-N in the results folder, and web_get.py fetches them and leaves web/reply-N.
WEB_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
web_serve() {
    local req
    for req in "$1"/web/request-*; do
        [ -f "$req" ] && [ ! -e "$1/web/reply-${req##*/request-}" ] || continue
        python3 -I "$here/web_get.py" "$1" "$WEB_PORT"
        return 0
    done
}

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
say "booting the $label guest (qemu TCG, -smp $smp, reboot by $reboot_mode, limit ${timeout_s} s)"
# The NIC: no DHCP, no DNS, no IPv6, no route out (restrict=on); the forwards are the broker's
# (the guest's 10.0.2.100:1883 to the host's) and the web page's (the host's 127.0.0.1:WEB_PORT
# to the guest's 8080).
# In qemu's option syntax a comma in a value is written twice.
relay="cmd:python3 -I -S $here/mqtt_relay.py 127.0.0.1 $BROKER_PORT $results/mqtt-relay.log"
# amd64: the PC machine, console ttyS0. arm64: the virt machine, firmware-less (its -kernel is
# the Image that Debian ships as vmlinuz), console on its PL011 (ttyAMA0); the disk, the NIC and
# the shares are virtio-pci devices on its PCIe host bridge, as on the PC.
case "$arch" in
    amd64) qemu=(qemu-system-x86_64 -accel tcg -cpu max); console=ttyS0 ;;
    arm64) qemu=(qemu-system-aarch64 -M virt -accel tcg -cpu "${ISLET_SYSTEST_ARM64_CPU:-cortex-a72}"); console=ttyAMA0 ;;
esac
qemu+=(-m 1024 -smp "$smp"
      -nodefaults -display none -no-user-config
      -netdev "user,id=net0,ipv6=off,restrict=on,hostfwd=tcp:127.0.0.1:$WEB_PORT-:8080,guestfwd=tcp:10.0.2.100:1883-${relay//,/,,}"
      -device virtio-net-pci,netdev=net0,romfile=
      -kernel "$image/vmlinuz" -initrd "$image/initrd.img"
      -append "root=/dev/vda rw console=$console systemd.show_status=0 panic=-1"
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
        broker_serve "$results"
        web_serve "$results"
        if [ "$(date +%s)" -ge "$deadline" ]; then timed_out=1; break; fi
        sleep 0.5
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
    echo "$problem" > "$results/problem.txt"
    printf '\n---- %s: the console'"'"'s last lines (%s) ----\n' "$problem" "$results/console.log"
    tail -n 40 "$results/console.log" 2>/dev/null || true
fi
counts="$(awk -F'\t' '{ c[$1]++ } END { printf "%d passed, %d failed, %d skipped", c["PASS"], c["FAIL"], c["SKIP"] }' "$steps" 2>/dev/null || echo "0 passed, 0 failed, 0 skipped")"
if [ -f "$results/timings.txt" ] && [ "${ISLET_SYSTEST_CHILD:-0}" != 1 ]; then
    echo; sed 's/^/systest: timing: /' "$results/timings.txt"
    [ -f "$results/security.txt" ] && sed 's/^/systest: security: /' "$results/security.txt"
fi
printf '\nsystest: %s guest %s s, total %s s; results in %s\n' "$label" "$guest_s" "$(since "$t_start")" "$results"
echo "systest: $counts"
if [ -n "$problem" ] || [ "${#failed[@]}" -gt 0 ]; then
    [ -n "$problem" ] && echo "systest: FAIL: $problem"
    [ "${#failed[@]}" -gt 0 ] && echo "systest: FAIL: ${failed[*]}"
    exit 1
fi
echo "systest: PASS"
