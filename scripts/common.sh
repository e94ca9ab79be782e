# shellcheck shell=bash disable=SC2034
# Shared by install.sh and uninstall.sh: the locations (each overridable from the environment)
# and the two ways a step runs. Sourced, not run.
PREFIX="${PREFIX:-/usr/local}"
SYSCONFDIR="${SYSCONFDIR:-/etc}"
UNITDIR="${UNITDIR:-/etc/systemd/system}"
# The generator that opens the unit's network for [mqtt]: systemd reads
# /usr/local/lib/systemd/system-generators and /usr/lib/systemd/system-generators, not
# PREFIX/lib for another PREFIX, so that goes to /etc/systemd/system-generators (read as well).
case "$PREFIX" in
    /usr/local|/usr) GENERATORDIR="${GENERATORDIR:-$PREFIX/lib/systemd/system-generators}" ;;
    *) GENERATORDIR="${GENERATORDIR:-/etc/systemd/system-generators}" ;;
esac
GENERATOR="isletd-network-generator"
UDEVDIR="${UDEVDIR:-/etc/udev/rules.d}"
MODULESLOADDIR="${MODULESLOADDIR:-/etc/modules-load.d}"
STATEDIR="${STATEDIR:-/var/lib/islet}"
SERVICE_USER="${SERVICE_USER:-islet}"
DESTDIR="${DESTDIR:-}"
DRY_RUN="${DRY_RUN:-0}"
UNIT="isletd.service"

say() { printf 'islet: %s\n' "$*"; }
die() { printf 'islet: %s\n' "$*" >&2; exit 1; }

# Changes to files under DESTDIR: printed in a dry run, done otherwise.
files() {
    if [ "$DRY_RUN" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
# Changes to the running system (accounts, udev, systemd): printed in a dry run and in DESTDIR
# mode, where they would act on this machine instead of the staged tree.
system() {
    if [ "$DRY_RUN" = 1 ] || [ -n "$DESTDIR" ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
