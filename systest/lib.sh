# shellcheck shell=bash
# Shared by systest/run.sh and the build scripts beside it: messages, the Debian package helper
# and the artifact cache (keyed by a hash of the inputs, built under a lock into a temporary
# name and renamed into place, so two runs that race build once and never see half an artifact).
# Sourced, not run.

say() { printf 'systest: %s\n' "$*" >&2; }
die() { printf 'systest: %s\n' "$*" >&2; exit 1; }

SYSTEST_CACHE="${ISLET_SYSTEST_CACHE:-/var/cache/islet-systest}"

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
# file contributes its path and content, any other its text.
hash_of() {
    local a
    for a in "$@"; do
        if [ -f "$a" ]; then printf 'file %s\n' "$a"; sha256sum < "$a"
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
            [ "$old" = "$final" ] || [ ! -d "$old" ] || rm -rf "$old"
        done
    ) || exit 1
    printf '%s\n' "$final"
}

# guest_kernel: the version string (uname -r) of the kernel that linux-image-amd64 depends on.
guest_kernel() {
    dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null \
        | grep -o 'linux-image-[0-9][^ ,]*' | head -n1 | sed 's/^linux-image-//'
}
