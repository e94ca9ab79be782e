"""Islet's artifacts for a guest: isletd, isletctl and two packages (the release's version and a
higher one, the upgrade), given (ISLET_ARTIFACTS*) or built for the guest's Debian release."""
import glob
import os
import re
import shutil
import subprocess

from host.common import HOST_ARCH, HOST_SUITE, die, output, run, say


def build(guest, arch, root, out):
    """isletd, isletctl and two packages (the release's version and <version>+systest, the
    upgrade) for GUEST's Debian release, into OUT."""
    os.makedirs(out, exist_ok=True)
    script = f"{root}/scripts/build-in-root.sh"
    if arch == "arm64":
        # Cross-compiled in a trixie root (trixie's swiftlang and its aarch64 sysroot): arm64
        # binaries, and both packages from them.
        say(f"building the release and the packages for {guest} arm64: ARCH=arm64 scripts/build-in-root.sh {guest}")
        run(["bash", script, guest, out], f"ARCH=arm64 scripts/build-in-root.sh {guest} failed (above)",
            stdout=2, env=dict(os.environ, ARCH="arm64", DEB_EXTRA_SUFFIX="+systest"))
        copy_binaries(f"{out}/bin", out)
    elif guest == HOST_SUITE:
        say(f"building the release and the package for {guest}: make -C {root} release deb")
        run(["make", "-C", root, "release", "deb"], f"make release deb failed for {guest} (above)", stdout=2)
        copy_binaries(f"{root}/dist/bin", out)
        # The package make deb just wrote: the newest in dist/ (its version from the package itself).
        debs = glob.glob(f"{root}/dist/islet_*_{HOST_ARCH}.deb")
        if not debs:
            die("make deb left no dist/islet_*.deb")
        newest = max(debs, key=os.path.getmtime)
        shutil.copy(newest, out)
        v1 = version(newest)
        say(f"building the upgrade package {v1}+systest")
        run(["bash", f"{root}/scripts/deb.sh"], f"the upgrade package {v1}+systest failed (above)", stdout=2,
            env=dict(os.environ, SKIP_BUILD="1", DEB_VERSION=f"{v1}+systest", DEB_OUT=out))
    else:
        # Built in a GUEST root with this machine's toolchain: its libraries and headers (trixie:
        # libgpiod 2.x, so the v2 backend), and the upgrade package from the same binaries.
        say(f"building the release and the packages for {guest}: scripts/build-in-root.sh {guest}")
        run(["bash", script, guest, out], f"scripts/build-in-root.sh {guest} failed (above)",
            stdout=2, env=dict(os.environ, DEB_EXTRA_SUFFIX="+systest"))
        copy_binaries(f"{out}/bin", out)


def copy_binaries(src, out):
    for b in ("isletd", "isletctl"):
        shutil.copy(f"{src}/{b}", out)


def env_var(guest, arch):
    var = f"ISLET_ARTIFACTS_{guest.upper()}"
    return var if arch == "amd64" else f"{var}_{arch.upper()}"


def folder(guest, arch, root, work):
    """The folder with GUEST's artifacts: given (ISLET_ARTIFACTS_<SUITE>, or ISLET_ARTIFACTS with
    one guest) or built into the working directory."""
    var = env_var(guest, arch)
    given = os.environ.get(var) or os.environ.get("ISLET_ARTIFACTS") or ""
    if given:
        if not os.path.isdir(given):
            die(f"{var}/ISLET_ARTIFACTS: no such folder")
        given = os.path.abspath(given)
        say(f"artifacts for {guest} from {given} (no build)")
        return given
    build(guest, arch, root, f"{work}/artifacts-{guest}")
    return f"{work}/artifacts-{guest}"


def version(deb):
    return output(["dpkg-deb", "-f", deb, "Version"]).strip()


def compare(a, op, b):
    return run(["dpkg", "--compare-versions", a, op, b]).returncode == 0


def take(art, arch, bindir, repo):
    """Copies isletd and isletctl (from ART or ART/bin) into BINDIR and the lowest and the highest
    version of islet_*_ARCH.deb into REPO; returns (low, high)."""
    for b in ("isletd", "isletctl"):
        if os.path.isfile(f"{art}/{b}"):
            shutil.copy(f"{art}/{b}", bindir)
        elif os.path.isfile(f"{art}/bin/{b}"):
            shutil.copy(f"{art}/bin/{b}", bindir)
        else:
            die(f"no {b} in {art} (nor in {art}/bin)")
    debs = sorted(glob.glob(f"{art}/islet_*_{arch}.deb"))
    if len(debs) < 2:
        die(f"need two islet_*_{arch}.deb files in {art} (a version and a higher one), found: "
            + (" ".join(debs) or f"{art}/islet_*_{arch}.deb"))
    vers = {d: version(d) for d in debs}
    low = high = min(vers.values())
    for v in sorted(set(vers.values())):
        low = v if compare(v, "lt", low) else low
        high = v if compare(v, "gt", high) else high
    if low == high:
        die(f"the two packages have the same version {low}: the upgrade needs a higher one")
    for d, v in vers.items():
        if v in (low, high):
            shutil.copy(d, repo)
    depends = output(["dpkg-deb", "-f", *glob.glob(f"{repo}/islet_{low}_*.deb")[:1], "Depends"]).strip()
    gpiod = "\n".join(re.findall(r"libgpiod[0-9]*[^,\n]*", depends)) or "no libgpiod"
    say(f"islet {low}, upgrade to {high} ({gpiod})")
    return low, high
