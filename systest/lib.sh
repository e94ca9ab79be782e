# shellcheck shell=bash
# Shared by systest/run.sh and the build scripts beside it: messages, the Debian package helper
# and the artifact cache (keyed by a hash of the inputs, built under a lock into a temporary
# name and renamed into place, so two runs that race build once and never see half an artifact).
# Sourced, not run.

say() { printf 'systest: %s\n' "$*" >&2; }
die() { printf 'systest: %s\n' "$*" >&2; exit 1; }

SYSTEST_CACHE="${ISLET_SYSTEST_CACHE:-/var/cache/islet-systest}"
SUITE_APT=()

# apt_ensure PKG...: installs the packages that are not installed yet (as root, non-interactive)
# and says which.
apt_ensure() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]}; run as root (the system test boots a VM and installs what it needs)"
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get could not install: ${missing[*]} (run 'apt-get install ${missing[*]}' and read its message)"
}

# pkg_version PKG: the installed version, or nothing.
pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# hash_of ARG...: sha256 (first 16 hex digits) of the arguments; an argument naming an existing
# file contributes its name and content (not its folder: clones of the project share the cache),
# any other its text.
hash_of() {
    local a
    for a in "$@"; do
        if [ -f "$a" ]; then printf 'file %s\n' "${a##*/}"; sha256sum < "$a"
        else printf 'text %s\n' "$a"; fi
    done | sha256sum | cut -c1-16
}

# cached NAME KEY BUILDER [ARGS...]: prints the directory $SYSTEST_CACHE/NAME-KEY, building it
# first when it does not exist: under an exclusive lock on NAME, BUILDER runs with a fresh
# temporary directory as its last argument, which is then renamed to the final name. Older keys
# of NAME are removed (inputs changed). The build's time is recorded in its directory.
cached() {
    local name="$1" key="$2"; shift 2
    local final="$SYSTEST_CACHE/$name-$key"
    mkdir -p "$SYSTEST_CACHE"
    if [ -f "$final/.complete" ]; then
        printf '%s\n' "$final"; return 0
    fi
    local lock="$SYSTEST_CACHE/$name.lock"
    (
        exec 9>"$lock"
        if ! flock -n 9; then
            say "waiting for another run that is building $name"
            flock 9
        fi
        if [ -f "$final/.complete" ]; then exit 0; fi
        local tmp t0 t1 old
        tmp="$(mktemp -d "$SYSTEST_CACHE/.tmp-$name-$key.XXXXXX")"
        # shellcheck disable=SC2064 # expand now: the trap must remove this build's directory
        trap "rm -rf '$tmp'" EXIT
        t0=$(date +%s.%N)
        say "building $name ($key)"
        "$@" "$tmp" >&2 || die "building $name failed"
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$tmp/.build-seconds"
        touch "$tmp/.complete"
        rm -rf "$final"
        mv -T "$tmp" "$final"
        trap - EXIT
        say "built $name in $(cat "$final/.build-seconds") s"
        for old in "$SYSTEST_CACHE/$name"-*; do
            # Only NAME-<key>: image-trixie-* also matches image-trixie-arm64-<key>, another
            # guest's entry, which must stay.
            case "${old#"$SYSTEST_CACHE/$name-"}" in
                ????????????????) ;;
                *) continue ;;
            esac
            case "${old#"$SYSTEST_CACHE/$name-"}" in *[!0-9a-f]*) continue ;; esac
            [ "$old" = "$final" ] || [ ! -d "$old" ] || remove_unused "$old"
        done
    ) || exit 1
    printf '%s\n' "$final"
}

# hold_cached DIR: a shared lock on DIR's .complete for the rest of this process (the descriptor
# stays open), so another run, e.g. from a clone whose build scripts differ, does not remove DIR
# while this run's guest boots from it.
hold_cached() {
    local fd
    exec {fd}<"$1/.complete" || die "$1 was removed by another run before this one could use it: run again"
    flock -s "$fd"
}
# remove_unused DIR: removes an older cache entry, unless a run holds it (hold_cached).
remove_unused() {
    [ -f "$1/.complete" ] || { rm -rf "$1"; return 0; }
    (
        exec 7<"$1/.complete"
        if flock -n -x 7; then rm -rf "$1"; else say "keeping ${1##*/}: a running test uses it"; fi
    )
}

# guest_kernel: the version string (uname -r) of the kernel that the host's linux-image-amd64
# depends on.
guest_kernel() {
    dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null \
        | grep -o 'linux-image-[0-9][^ ,]*' | head -n1 | sed 's/^linux-image-//'
}

# The Debian release the host runs (its guest gets the host's kernel packages; any other
# release's come from that release's repository).
HOST_SUITE="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")"
# The host's Debian architecture (amd64): a guest of another (arm64) gets everything from its
# release's repository, as a guest of another release does.
HOST_ARCH="$(dpkg --print-architecture)"
SUITE_ARCH="$HOST_ARCH"

# suite_apt SUITE [ARCH]: sets SUITE_APT, the options that make apt-get and apt-cache answer from
# SUITE's main archive for ARCH (default the host's, amd64): nothing for the host's own release
# and architecture; otherwise an apt state of its own in $SYSTEST_CACHE/apt-SUITE (apt-SUITE-ARCH
# for another architecture: its lists, and apt's native architecture, are ARCH's), signed by
# Debian's keyring, updated when missing or older than a day (ISLET_SYSTEST_APT_UPDATE=1: now),
# under a lock.
suite_apt() {
    local suite="$1" arch="${2:-$HOST_ARCH}" d archopt=""
    SUITE_APT=()
    SUITE_ARCH="$arch"
    [ "$suite" = "$HOST_SUITE" ] && [ "$arch" = "$HOST_ARCH" ] && return 0
    d="$SYSTEST_CACHE/apt-$suite"
    if [ "$arch" != "$HOST_ARCH" ]; then d="$d-$arch" archopt="arch=$arch "; fi
    mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial" "$d/etc/sources.list.d" "$d/etc/preferences.d"
    echo "deb [${archopt}signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
        > "$d/etc/sources.list"
    SUITE_APT=(-o "Dir::Etc::SourceList=$d/etc/sources.list" -o "Dir::Etc::SourceParts=$d/etc/sources.list.d"
               -o "Dir::Etc::Preferences=$d/etc/preferences" -o "Dir::Etc::PreferencesParts=$d/etc/preferences.d"
               -o "Dir::State=$d/state" -o "Dir::Cache=$d/cache" -o Acquire::Languages=none
               -o APT::Sandbox::User=root)
    # Another architecture: apt takes it as native (the guest's dpkg status, its downloads).
    [ "$arch" = "$HOST_ARCH" ] || SUITE_APT+=(-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch")
    (
        exec 9>"$d.lock"; flock 9
        if [ "${ISLET_SYSTEST_APT_UPDATE:-0}" = 1 ] || [ ! -f "$d/updated" ] \
           || [ -n "$(find "$d/updated" -mmin +1440)" ]; then
            say "apt-get update for $suite ($arch; lists in $d)"
            apt-get "${SUITE_APT[@]}" -q update >&2 || die "apt-get update for $suite ($arch) failed"
            touch "$d/updated"
        fi
    ) || exit 1
}

# suite_candidate PKG...: the candidate version of each PKG in the release of SUITE_APT, one a
# line as "PKG VERSION" (the version empty when there is none).
suite_candidate() {
    local p
    for p in "$@"; do
        printf '%s %s\n' "$p" "$(apt-cache "${SUITE_APT[@]}" policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
    done
}

# suite_kernel: the version string (uname -r) of the kernel that linux-image-ARCH depends on in
# the release and architecture of SUITE_APT (e.g. 6.12.117+deb13-arm64).
suite_kernel() {
    apt-cache "${SUITE_APT[@]}" show --no-all-versions "linux-image-${SUITE_ARCH:-$HOST_ARCH}" 2>/dev/null \
        | sed -n 's/^Depends: //p' | grep -o 'linux-image-[0-9][^ ,]*' | head -n1 | sed 's/^linux-image-//'
}
