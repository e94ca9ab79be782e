#!/usr/bin/env bash
# `make deb`: a Debian package of the release (dist/bin) for this machine's architecture, built
# with dpkg-deb alone. Depends comes from the binaries' libraries (dpkg-shlibdeps asks the
# system's shlibs/symbols files) plus the fonts the renderer loads. The maintainer scripts live
# in packaging/debian/ and use the Debian helpers (deb-systemd-helper, deb-systemd-invoke).
#
# Settings (environment): DEB_VERSION=<IsletVersion.string> SKIP_BUILD=1 (use dist/bin as it is)
# DIST=dist (dist/bin in, the .deb out) DEB_OUT=$DIST (where the .deb goes) SWIFT=swift BUILD_FLAGS=
# DEB_ARCH=<dpkg architecture of dist/bin> (default this machine's; arm64 for the cross build, whose
# libraries dpkg-shlibdeps then looks up among the arm64 packages, with aarch64-linux-gnu-objdump)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
DIST="${DIST:-$root/dist}"
DEB_OUT="${DEB_OUT:-$DIST}"
version="${DEB_VERSION:-$(sed -n 's/.*static let string = "\(.*\)"/\1/p' "$root/Sources/IsletProtocol/IsletVersion.swift")}"
arch="${DEB_ARCH:-$(dpkg --print-architecture)}"
pkg="islet_${version}_${arch}"
# useradd/groupadd (postinst) come from passwd, which is not Essential. The renderer cannot draw
# a frame without Terminus and Unifont (packaging/debian/lintian-overrides says why Depends).
# libmosquitto is loaded with dlopen the first time [mqtt] is used (a display without a broker
# maps neither it nor OpenSSL), so dpkg-shlibdeps cannot see it either: named by hand, as a
# Depends (MQTT and sync groups are the package's own features, and the system test installs
# without Recommends), at the 2.0 that has the MQTT v5 calls the daemon makes.
extra="passwd, xfonts-terminus, xfonts-unifont, libmosquitto1 (>= 2.0)"
# The web page ([web], docs/WEB.md) runs on libmicrohttpd, which isletd loads with dlopen only
# when [web] is set, so dpkg-shlibdeps cannot see it: named here by hand. Recommends, not
# Depends: the daemon runs without it (no [web] is the default; with [web] and no library it
# stops at start saying which package to install), and apt install ./islet_*.deb, the install
# path docs/HARDWARE.md gives, installs Recommends (APT::Install-Recommends is on by default,
# on Raspberry Pi OS too). Whoever installs with --no-install-recommends chose to leave it out.
# Debian 13 renamed the package for the 64-bit time_t transition (libmicrohttpd12t64, 1.0.1,
# which Provides libmicrohttpd12); Debian 12 has libmicrohttpd12 0.9.75, the oldest the page
# is written for. The same line serves both: apt takes the first alternative that exists.
recommends="libmicrohttpd12t64 | libmicrohttpd12 (>= 0.9.75)"

die() { printf 'islet: %s\n' "$*" >&2; exit 1; }
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "DEB_VERSION '$version' is not a Debian version"
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || die "$tool is missing: sudo apt-get install dpkg-dev"
done

if [ "${SKIP_BUILD:-0}" != 1 ]; then bash "$here/release.sh"; fi
bash "$here/check-binaries.sh" "$DIST/bin/isletd" "$DIST/bin/isletctl" || die "dist/bin is not a release: run make release"

stage="$(mktemp -d "${TMPDIR:-/tmp}/islet-deb.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
tree="$stage/$pkg"
# Where the unit, its generator and the udev rule go: /usr/lib from Debian 13 on, whose dpkg and
# lintian refuse files under the /lib alias of a merged /usr (lintian's aliased-location error;
# DEP 17), and /lib for Debian 12, whose own packages still ship there (both name one folder on a
# merged /usr). Read off the system the package is built on, as its libraries are: DEB_LIBDIR
# overrides (lib or usr/lib).
if [ -z "${DEB_LIBDIR:-}" ]; then
    release="$(. /etc/os-release 2>/dev/null && echo "${VERSION_ID:-}")"
    if [ -n "$release" ] && [ "${release%%.*}" -lt 13 ] 2>/dev/null; then DEB_LIBDIR=lib; else DEB_LIBDIR=usr/lib; fi
fi
case "$DEB_LIBDIR" in lib|usr/lib) ;; *) die "DEB_LIBDIR=$DEB_LIBDIR: lib or usr/lib" ;; esac
L="$DEB_LIBDIR"
d() { install -d -m 0755 "$tree/$1"; }
d DEBIAN; d usr/bin; d "$L/systemd/system"; d "$L/systemd/system-generators"; d etc/islet; d "$L/udev/rules.d"; d usr/lib/modules-load.d
d usr/share/doc/islet; d usr/share/lintian/overrides; d usr/share/man/man1; d usr/share/man/man8

install -m 0755 "$DIST/bin/isletd" "$DIST/bin/isletctl" "$tree/usr/bin/"
sed 's|/usr/local/bin/|/usr/bin/|g; s|Installed by `sudo make install` (scripts/install.sh)|Installed by the islet package|' \
    "$root/systemd/isletd.service" > "$tree/$L/systemd/system/isletd.service"
chmod 0644 "$tree/$L/systemd/system/isletd.service"
# The generator that opens the unit's network for [mqtt] (at boot and every daemon-reload), beside
# the unit (systemd reads both /lib/systemd/system-generators and /usr/lib/systemd/system-generators).
sed 's|/usr/local/bin/|/usr/bin/|g' "$root/systemd/isletd-network-generator" \
    > "$tree/$L/systemd/system-generators/isletd-network-generator"
chmod 0755 "$tree/$L/systemd/system-generators/isletd-network-generator"
# The config is the package's conffile: dpkg keeps a user's edits across upgrades and asks.
install -m 0644 "$root/isletd.conf.example" "$tree/etc/islet/isletd.conf"
install -m 0644 "$root/Hardware/udev/60-islet-gpio.rules" "$tree/$L/udev/rules.d/60-islet-gpio.rules"
printf '# Islet: /dev/i2c-N for the panel\ni2c-dev\n' > "$tree/usr/lib/modules-load.d/islet-i2c.conf"
chmod 0644 "$tree/usr/lib/modules-load.d/islet-i2c.conf"
install -m 0644 "$root/packaging/debian/copyright" "$tree/usr/share/doc/islet/copyright"
gzip -9n < "$root/packaging/man/isletctl.1" > "$tree/usr/share/man/man1/isletctl.1.gz"
gzip -9n < "$root/packaging/man/isletd.8" > "$tree/usr/share/man/man8/isletd.8.gz"
chmod 0644 "$tree/usr/share/man/man1/isletctl.1.gz" "$tree/usr/share/man/man8/isletd.8.gz"
install -m 0644 "$root/packaging/debian/lintian-overrides" "$tree/usr/share/lintian/overrides/islet"
{
    printf 'islet (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Release %s, built from %s.\n\n' "$version" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'a source tree')"
    printf ' -- Islet developers <islet@users.noreply.github.com>  %s\n' "$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$tree/usr/share/doc/islet/changelog.gz"
chmod 0644 "$tree/usr/share/doc/islet/changelog.gz"

for s in postinst prerm postrm; do
    install -m 0755 "$root/packaging/debian/$s" "$tree/DEBIAN/$s"
done
echo /etc/islet/isletd.conf > "$tree/DEBIAN/conffiles"

# dpkg-shlibdeps wants a source package's layout to run in: give it a minimal one.
mkdir -p "$stage/src/debian"
printf 'Source: islet\n\nPackage: islet\nArchitecture: any\n' > "$stage/src/debian/control"
shlibs="$(cd "$stage/src" && DEB_HOST_ARCH="$arch" dpkg-shlibdeps -O "$tree/usr/bin/isletd" "$tree/usr/bin/isletctl" 2>"$stage/shlibdeps.err")" \
    || { cat "$stage/shlibdeps.err" >&2; die "dpkg-shlibdeps could not work out the libraries' packages"; }
depends="${shlibs#shlibs:Depends=}"
[ -n "$depends" ] || die "dpkg-shlibdeps found no libraries: is dist/bin a dynamic executable?"
# Packed relative relocations (scripts/release.sh) need glibc 2.36's loader; the binary says so
# with a GLIBC_ABI_DT_RELR version reference, which dpkg-shlibdeps does not map to a version
# (it is a version with no symbols): raise libc6 to 2.36 so apt refuses an older system
# instead of installing a daemon its loader cannot start.
if [[ "$(readelf -V "$tree/usr/bin/isletd" "$tree/usr/bin/isletctl")" == *GLIBC_ABI_DT_RELR* ]]; then
    libc="$(grep -o 'libc6 (>= [^)]*)' <<<"$depends" || true)"
    have="${libc#libc6 (>= }"; have="${have%)}"
    if [ -z "$libc" ]; then
        depends="libc6 (>= 2.36), $depends"
    elif dpkg --compare-versions "$have" lt 2.36; then
        depends="${depends/"$libc"/libc6 (>= 2.36)}"
    fi
fi

size_kb="$(du -sk --exclude=DEBIAN "$tree" | cut -f1)"
cat > "$tree/DEBIAN/control" <<CONTROL
Package: islet
Version: $version
Architecture: $arch
Maintainer: Islet developers <islet@users.noreply.github.com>
Installed-Size: $size_kb
Depends: $depends, $extra
Recommends: $recommends
Section: misc
Priority: optional
Homepage: https://github.com/islet/islet
Description: meditation timer on an I2C OLED pill display
 Islet runs a meditation timer as a Live-Activity-style state machine (idle,
 running, paused, cycle end, complete) and shows it on a small SSD1306, SSD1309,
 SH1106 or SH1107 OLED panel on the I2C bus of a Raspberry Pi. GPIO buttons read
 through libgpiod pause, resume and reset it; isletctl controls it from a shell.
 .
 The isletd service runs as the islet system user, a member of the i2c and gpio
 groups; members of the islet group may use isletctl.
CONTROL
(cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$tree/DEBIAN/md5sums"
chmod 0644 "$tree/DEBIAN/md5sums" "$tree/DEBIAN/control" "$tree/DEBIAN/conffiles"

mkdir -p "$DEB_OUT"
dpkg-deb --root-owner-group -Zxz --build "$tree" "$DEB_OUT/$pkg.deb" >/dev/null
printf 'islet: %s: %s bytes; Depends: %s, %s; Recommends: %s\n' "${DEB_OUT#"$root/"}/$pkg.deb" "$(stat -c %s "$DEB_OUT/$pkg.deb")" "$depends" "$extra" "$recommends"
