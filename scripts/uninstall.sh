#!/usr/bin/env bash
# Removes what scripts/install.sh installed. Keeps the state (STATEDIR) and an edited config;
# PURGE=1 removes those too, and the service user. The i2c and gpio groups stay: other programs
# and people use them.
#
#   sudo make uninstall            sudo PURGE=1 make uninstall
#   DRY_RUN=1 make uninstall       DESTDIR=/tmp/stage make uninstall
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$here/common.sh"
PURGE="${PURGE:-0}"

if [ "$DRY_RUN" != 1 ] && [ -z "$DESTDIR" ] && [ "$(id -u)" != 0 ]; then
    printf 'islet: uninstalling needs root: run sudo make uninstall\n' >&2
    exit 1
fi

if [ -e "$DESTDIR$UNITDIR/$UNIT" ]; then
    if [ -d /run/systemd/system ] || [ "$DRY_RUN" = 1 ] || [ -n "$DESTDIR" ]; then
        system systemctl disable --now "$UNIT"
    fi
    files rm -f "$DESTDIR$UNITDIR/$UNIT" "$DESTDIR$GENERATORDIR/$GENERATOR"
    # Also runs the generators without ours: its drop-in goes with it.
    system systemctl daemon-reload
elif [ -e "$DESTDIR$GENERATORDIR/$GENERATOR" ]; then
    files rm -f "$DESTDIR$GENERATORDIR/$GENERATOR"
    if [ -d /run/systemd/system ] || [ "$DRY_RUN" = 1 ] || [ -n "$DESTDIR" ]; then system systemctl daemon-reload; fi
fi
files rm -f "$DESTDIR$PREFIX/bin/isletd" "$DESTDIR$PREFIX/bin/isletctl"
files rm -f "$DESTDIR$UDEVDIR/60-islet-gpio.rules" "$DESTDIR$MODULESLOADDIR/islet-i2c.conf"
if command -v udevadm >/dev/null 2>&1; then system udevadm control --reload-rules; fi

confdir="$DESTDIR$SYSCONFDIR/islet"
if [ "$PURGE" = 1 ]; then
    say "PURGE=1: removing $SYSCONFDIR/islet, $STATEDIR and the $SERVICE_USER user"
    files rm -rf "$confdir"
    files rm -rf "$DESTDIR$STATEDIR"
    if id -u "$SERVICE_USER" >/dev/null 2>&1; then system userdel "$SERVICE_USER"; fi
    # install.sh made the group with --user-group; userdel leaves it where login.defs says so.
    if getent group "$SERVICE_USER" >/dev/null 2>&1; then system groupdel "$SERVICE_USER" || true; fi
else
    # A config identical to the shipped example was never edited: it goes. An edited one stays.
    if [ -d "$confdir" ]; then
        for example in "$confdir"/*.example; do
            [ -e "$example" ] || continue
            conf="${example%.example}"
            if [ -e "$conf" ] && cmp -s "$conf" "$example"; then files rm -f "$conf"; fi
            files rm -f "$example"
        done
        for conf in "$confdir"/*; do
            if [ -e "$conf" ]; then say "keeping your edited ${conf#"$DESTDIR"} (PURGE=1 removes it)"; fi
        done
        files rmdir --ignore-fail-on-non-empty "$confdir"
    fi
    if [ -d "$DESTDIR$STATEDIR" ]; then say "keeping the state in $STATEDIR (PURGE=1 removes it)"; fi
fi
say "uninstalled. The i2c and gpio groups stay."
