#!/usr/bin/env bash
# Installs Islet on a Raspberry Pi (or any systemd Debian): release build, binaries, unit and the
# generator of its [mqtt] network drop-in, example config (never over an edited one), the islet
# user in groups i2c and gpio, a udev rule giving /dev/gpiochip* to gpio and /dev/i2c-* to i2c,
# i2c-dev loaded at boot; enables and starts.
#
#   sudo make install                     everything
#   DRY_RUN=1 make install                print every step, change nothing
#   DESTDIR=/tmp/stage make install       files only, under DESTDIR; system steps are printed
#
# Settings (environment): PREFIX=/usr/local SYSCONFDIR=/etc UNITDIR=/etc/systemd/system
# UDEVDIR=/etc/udev/rules.d STATEDIR=/var/lib/islet SERVICE_USER=islet SWIFT=swift
# GENERATORDIR=$PREFIX/lib/systemd/system-generators (for /usr/local and /usr; else
# /etc/systemd/system-generators)
# SKIP_BUILD=1 (use BIN_DIR's binaries) BIN_DIR=dist/bin START_SETTLE_SECONDS=3
# UNIT_SRC=systemd/isletd.service CONFIG_EXAMPLE=<first of config/isletd.conf.example, …>
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

# shellcheck source=scripts/common.sh
. "$here/common.sh"
SWIFT="${SWIFT:-swift}"
SKIP_BUILD="${SKIP_BUILD:-0}"

if [ "$DRY_RUN" != 1 ] && [ -z "$DESTDIR" ] && [ "$(id -u)" != 0 ]; then
    die "installing needs root: run 'sudo make install' (or DRY_RUN=1 make install to see the steps)"
fi

# A Debian package of Islet owns /usr/bin/isletd and (/usr)/lib/systemd/system/isletd.service; a second
# copy here would hide its unit. One way at a time.
if dpkg-query -W -f='${Status}' islet 2>/dev/null | grep -q 'install ok installed'; then
    die "the islet Debian package is installed: upgrade it with apt, or 'sudo apt remove islet' before make install"
fi

# 1. Release build (scripts/release.sh: the Swift runtime linked in, stripped, into dist/bin), as
#    the invoking user when run through sudo so .build stays theirs. sudo's secure PATH usually
#    lacks the toolchain: then the binaries of an earlier `make release` are used.
if [ "$SKIP_BUILD" != 1 ] && ! command -v "$SWIFT" >/dev/null 2>&1; then
    if [ -x "$root/dist/bin/isletd" ] && [ -x "$root/dist/bin/isletctl" ]; then
        say "'$SWIFT' is not on this PATH (sudo resets it): installing the binaries of the last 'make release' (dist/bin)"
        SKIP_BUILD=1
    else
        die "'$SWIFT' is not on this PATH (sudo resets it) and dist/bin has no release: run 'make release' as yourself first, then 'sudo make install'"
    fi
fi
if [ "$SKIP_BUILD" != 1 ]; then
    say "building in release mode (on a Pi this takes a while; see docs/HARDWARE.md)"
    build=(env "SWIFT=$SWIFT" "BUILD_FLAGS=${BUILD_FLAGS:-}" bash "$here/release.sh")
    if [ "$DRY_RUN" = 1 ]; then
        printf '+ %s\n' "${build[*]}"
    elif [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
        sudo -u "$SUDO_USER" env "PATH=$PATH" "${build[@]}" || die "the release build failed (see above)"
    else
        "${build[@]}" || die "the release build failed (see above)"
    fi
fi
BIN_DIR="${BIN_DIR:-$root/dist/bin}"
for b in isletd isletctl; do
    [ -x "$BIN_DIR/$b" ] || [ "$DRY_RUN" = 1 ] || die "$BIN_DIR/$b is missing: the release build did not produce it"
done
# Never install what the service cannot start: the loader must find every library in the
# system's folders (not in a toolchain, not under /home).
if [ "$DRY_RUN" != 1 ]; then
    bash "$here/check-binaries.sh" "$BIN_DIR/isletd" "$BIN_DIR/isletctl" \
        || die "refusing to install $BIN_DIR/isletd and isletctl (see above); nothing was changed"
fi

# The web page ([web], docs/WEB.md) runs on libmicrohttpd, which isletd loads (dlopen) only when
# [web] is set: the loader's check above cannot see it. As the package's Recommends: a note
# when it is missing, and a refusal when the config in place already has [web] (the service
# could not start).
if [ "$DRY_RUN" != 1 ] && [ -z "$DESTDIR" ] && ! ldconfig -p 2>/dev/null | grep -q 'libmicrohttpd\.so\.12 '; then
    web_lib="sudo apt-get install libmicrohttpd12 (on Debian 13 it is libmicrohttpd12t64)"
    if [ -f "$SYSCONFDIR/islet/isletd.conf" ] && grep -Eq '^[[:space:]]*\[web\]' "$SYSCONFDIR/islet/isletd.conf"; then
        die "$SYSCONFDIR/islet/isletd.conf has [web], and the web page needs libmicrohttpd, which is not installed: $web_lib; nothing was changed"
    fi
    say "note: the web page ([web], docs/WEB.md) needs libmicrohttpd, which is not installed; everything else works without it. For the page: $web_lib"
fi

# 2. Binaries.
say "installing isletd and isletctl to $DESTDIR$PREFIX/bin"
files install -d -m 0755 "$DESTDIR$PREFIX/bin"
for b in isletd isletctl; do
    files install -m 0755 "$BIN_DIR/$b" "$DESTDIR$PREFIX/bin/$b"
done

# 3. The unit, pointed at PREFIX when that is not the default.
unit_src="${UNIT_SRC:-$root/systemd/$UNIT}"
if [ -f "$unit_src" ]; then
    say "installing $UNIT to $DESTDIR$UNITDIR"
    files install -d -m 0755 "$DESTDIR$UNITDIR"
    files install -m 0644 "$unit_src" "$DESTDIR$UNITDIR/$UNIT"
    if [ "$PREFIX" != /usr/local ]; then
        files sed -i "s|/usr/local/bin/|$PREFIX/bin/|g" "$DESTDIR$UNITDIR/$UNIT"
    fi
    # The generator: at boot and at every daemon-reload it writes the drop-in that opens the
    # unit's network for [mqtt] (isletd --network-dropin), or nothing without [mqtt].
    say "installing $GENERATOR to $DESTDIR$GENERATORDIR"
    files install -d -m 0755 "$DESTDIR$GENERATORDIR"
    files install -m 0755 "$root/systemd/$GENERATOR" "$DESTDIR$GENERATORDIR/$GENERATOR"
    if [ "$PREFIX" != /usr/local ]; then
        files sed -i "s|/usr/local/bin/|$PREFIX/bin/|g" "$DESTDIR$GENERATORDIR/$GENERATOR"
    fi
else
    say "no systemd/$UNIT in the source tree: the service is not installed"
fi

# 4. Example config: installed when there is none; an existing (edited) one is never touched,
#    the new example lands beside it as *.example.
example="${CONFIG_EXAMPLE:-}"
if [ -z "$example" ]; then
    for c in config/isletd.conf.example config/isletd.conf config/islet.conf.example config/islet.conf \
             isletd.conf.example islet.conf.example examples/isletd.conf; do
        if [ -f "$root/$c" ]; then example="$root/$c"; break; fi
    done
fi
confdir="$DESTDIR$SYSCONFDIR/islet"
files install -d -m 0755 "$confdir"
if [ -n "$example" ]; then
    name="$(basename "$example" .example)"
    if [ -e "$confdir/$name" ]; then
        say "keeping your $SYSCONFDIR/islet/$name; the shipped example is $SYSCONFDIR/islet/$name.example"
        files install -m 0644 "$example" "$confdir/$name.example"
    else
        say "installing the example config as $SYSCONFDIR/islet/$name"
        files install -m 0644 "$example" "$confdir/$name"
        files install -m 0644 "$example" "$confdir/$name.example"
    fi
else
    say "no example config in the source tree; $SYSCONFDIR/islet/ is left empty"
fi

# 5. udev rule and i2c-dev at boot (files), then the system steps.
files install -d -m 0755 "$DESTDIR$UDEVDIR" "$DESTDIR$MODULESLOADDIR"
files install -m 0644 "$root/Hardware/udev/60-islet-gpio.rules" "$DESTDIR$UDEVDIR/60-islet-gpio.rules"
if [ "$DRY_RUN" = 1 ]; then
    printf '+ write %s\n' "$DESTDIR$MODULESLOADDIR/islet-i2c.conf"
else
    printf '# Islet: /dev/i2c-N for the panel\ni2c-dev\n' > "$DESTDIR$MODULESLOADDIR/islet-i2c.conf"
fi

# 6. Groups and the service user (plain Debian has no gpio group).
for g in i2c gpio; do
    if ! getent group "$g" >/dev/null; then system groupadd --system "$g"; fi
done
if id -u "$SERVICE_USER" >/dev/null 2>&1; then
    system usermod --append --groups i2c,gpio "$SERVICE_USER"
else
    # --user-group: the unit runs as Group=islet, whatever USERGROUPS_ENAB says in login.defs.
    system useradd --system --user-group --home-dir "$STATEDIR" --no-create-home --shell /usr/sbin/nologin \
        --groups i2c,gpio --comment "Islet meditation timer" "$SERVICE_USER"
fi
system install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$STATEDIR"

# Starts the unit and makes sure it stays up (Type=notify: restart returns once READY, or fails).
# A unit that cannot start is never left enabled and restarting: show why, disable it, fail.
start_or_roll_back() {
    local since
    since="$(date '+%Y-%m-%d %H:%M:%S')"
    if systemctl restart "$UNIT" && sleep "${START_SETTLE_SECONDS:-3}" && systemctl is-active --quiet "$UNIT"; then
        say "$UNIT is running: $(systemctl show -p StatusText --value "$UNIT")"
        return 0
    fi
    printf 'islet: %s did not start. Its journal:\n' "$UNIT" >&2
    journalctl -u "$UNIT" --since "$since" --no-pager -n 30 >&2 || true
    systemctl disable --now "$UNIT" >/dev/null 2>&1 || true
    systemctl reset-failed "$UNIT" >/dev/null 2>&1 || true
    die "$UNIT failed its first start, so it was stopped and disabled (the files stay installed). Fix the cause above, then: sudo systemctl enable --now $UNIT"
}

# 7. Apply the device grants now, then start the service.
if command -v udevadm >/dev/null 2>&1; then
    system udevadm control --reload-rules
    system udevadm trigger --subsystem-match=gpio --subsystem-match=i2c-dev
fi
system modprobe i2c-dev
if [ -f "$unit_src" ]; then
    if [ -d /run/systemd/system ] || [ "$DRY_RUN" = 1 ] || [ -n "$DESTDIR" ]; then
        # The reload runs the generator too: the unit's network follows the config's [mqtt].
        system systemctl daemon-reload
        # restart, not enable --now: after an upgrade the running daemon must pick up the new binary.
        system systemctl enable "$UNIT"
        if [ "$DRY_RUN" = 1 ] || [ -n "$DESTDIR" ]; then
            system systemctl restart "$UNIT"
        else
            start_or_roll_back
        fi
    else
        say "systemd is not running here: enable the service later with 'systemctl enable --now $UNIT'"
    fi
fi

# The socket is for the islet group: say how the person installing gets to use isletctl.
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ] && ! id -nG "$SUDO_USER" 2>/dev/null | grep -qw "$SERVICE_USER"; then
    say "to use isletctl as $SUDO_USER: sudo usermod -aG $SERVICE_USER $SUDO_USER (then log in again)"
fi
say "done. Check it: systemctl status $UNIT; journalctl -u isletd -f; isletctl status"
