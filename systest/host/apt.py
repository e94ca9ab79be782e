"""apt answering for a guest's Debian release and architecture, and the Debian packages the host
needs for a guest (the qemu, the image tools, the kernel packages, binfmt for arm64)."""
import fcntl
import glob
import os
import re
import shutil
import subprocess
import time

from host.common import (CACHE, HOST_ARCH, HOST_SUITE, apt_ensure, die, first_kernel, guest_kernel,
                         kernel_series, output, run, say)


class SuiteApt:
    """The options that make apt-get and apt-cache answer from SUITE's main archive for ARCH:
    nothing for the host's own release and architecture; otherwise an apt state of its own in
    CACHE/apt-SUITE (apt-SUITE-ARCH for another architecture: its lists, and apt's native
    architecture, are ARCH's), signed by Debian's keyring, updated when missing or older than a
    day (ISLET_SYSTEST_APT_UPDATE=1: now), under a lock."""

    def __init__(self, suite=HOST_SUITE, arch=HOST_ARCH):
        self.arch = arch
        self.opts = []
        if suite == HOST_SUITE and arch == HOST_ARCH:
            return
        d = f"{CACHE}/apt-{suite}"
        archopt = ""
        if arch != HOST_ARCH:
            d, archopt = f"{d}-{arch}", f"arch={arch} "
        for sub in ("state/lists/partial", "cache/archives/partial", "etc/sources.list.d", "etc/preferences.d"):
            os.makedirs(f"{d}/{sub}", exist_ok=True)
        with open(f"{d}/etc/sources.list", "w") as f:
            f.write(f"deb [{archopt}signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
                    f"http://deb.debian.org/debian {suite} main\n")
        self.opts = ["-o", f"Dir::Etc::SourceList={d}/etc/sources.list", "-o", f"Dir::Etc::SourceParts={d}/etc/sources.list.d",
                     "-o", f"Dir::Etc::Preferences={d}/etc/preferences", "-o", f"Dir::Etc::PreferencesParts={d}/etc/preferences.d",
                     "-o", f"Dir::State={d}/state", "-o", f"Dir::Cache={d}/cache", "-o", "Acquire::Languages=none",
                     "-o", "APT::Sandbox::User=root"]
        # Another architecture: apt takes it as native (the guest's dpkg status, its downloads).
        if arch != HOST_ARCH:
            self.opts += ["-o", f"APT::Architecture={arch}", "-o", f"APT::Architectures::={arch}"]
        with open(f"{d}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            stamp = f"{d}/updated"
            if (os.environ.get("ISLET_SYSTEST_APT_UPDATE", "0") == "1" or not os.path.isfile(stamp)
                    or time.time() - os.path.getmtime(stamp) > 1440 * 60):
                say(f"apt-get update for {suite} ({arch}; lists in {d})")
                run(["apt-get", *self.opts, "-q", "update"], f"apt-get update for {suite} ({arch}) failed",
                    stdout=2)
                open(stamp, "a").close()
                os.utime(stamp)

    def cache(self, *args):
        return output(["apt-cache", *self.opts, *args])

    def candidate(self, pkg):
        """The candidate version of PKG in this release ('' when there is none)."""
        return " ".join(m for m in re.findall(r"Candidate: *(\S*)", self.cache("policy", pkg)))

    def candidates(self, *pkgs):
        """'PKG VERSION' a line for each (an input of the modules' cache key)."""
        return "\n".join(f"{p} {self.candidate(p)}" for p in pkgs)

    def kernel(self):
        """The kernel (uname -r) that linux-image-ARCH depends on in this release and architecture."""
        shown = self.cache("show", "--no-all-versions", f"linux-image-{self.arch}")
        return first_kernel("\n".join(line[len("Depends: "):] for line in shown.splitlines()
                                      if line.startswith("Depends: ")))

    def policy_summary(self, pkgs):
        """The package and Candidate lines of `apt-cache policy`, spaces squeezed, on one line
        (an input of the image's key: a Debian update of systemd, python3, ... makes a new image)."""
        lines = [ln for ln in self.cache("policy", *pkgs).split("\n")[:-1]
                 if re.match(r"[^ ]", ln) or "Candidate" in ln]
        return "".join(re.sub(" +", " ", ln) + " " for ln in lines)


def host_packages(guest, arch):
    """What the host needs for GUEST. For the host's own release the kernel (image, headers,
    source) comes from the host's packages; for another release from its repository (SuiteApt),
    into the guest image and a throw-away build root."""
    apt_ensure("qemu-system-x86", "qemu-utils", "mmdebstrap", "e2fsprogs", "dpkg-dev", "make", "gcc", "xz-utils",
               "python3", "util-linux", "kmod", "rsync", "mosquitto", "mosquitto-clients")
    if arch == "arm64":
        apt_ensure("qemu-system-arm", "qemu-user-static", "binfmt-support")
        binfmt_arm64(SuiteApt(guest, "arm64"))
        return
    if guest == HOST_SUITE:
        apt_ensure("linux-image-amd64")
        k = guest_kernel()
        if not k:
            die("cannot tell the kernel of linux-image-amd64")
        apt_ensure(f"linux-image-{k}", f"linux-headers-{k}", f"linux-source-{kernel_series(k)}")
    else:
        SuiteApt(guest)


def binfmt_arm64(apt):
    """arm64 programs run on this host through binfmt_misc and qemu-user (mmdebstrap
    --architectures=arm64 runs the packages' maintainer scripts, the module build runs in an arm64
    root): binfmt_misc mounted, qemu-aarch64 enabled, and a static arm64 busybox (from the guest
    release's busybox-static, kept in the cache) must run."""
    bf, d = "/proc/sys/fs/binfmt_misc", f"{CACHE}/binfmt-check"
    if run(["mountpoint", "-q", bf]).returncode != 0:
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", bf],
            f"binfmt_misc is not mounted on {bf} and mounting it failed: arm64 programs cannot run on this host")
    try:
        with open(f"{bf}/qemu-aarch64") as f:
            enabled = f.readline().strip() == "enabled"
    except OSError:
        enabled = False
    if not enabled:
        run(["update-binfmts", "--enable", "qemu-aarch64"],
            "update-binfmts --enable qemu-aarch64 failed (qemu-user-static's binfmt entry): arm64 programs cannot run on this host")
    v = apt.candidate("busybox-static").split(" ")[0]
    if not v:
        die(f"no busybox-static in {apt.arch}'s package lists, for the binfmt check")
    v = re.sub(r"[^A-Za-z0-9.+~-]", "_", v)
    bb = f"{d}/{v}/usr/bin/busybox"
    if not os.access(bb, os.X_OK):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(f"{d}/dl")
        run(["apt-get", *apt.opts, "-q", "download", "busybox-static"], "apt-get download busybox-static (arm64) failed",
            cwd=f"{d}/dl", stdout=2)
        debs = glob.glob(f"{d}/dl/busybox-static_*.deb")
        if run(["dpkg-deb", "-x", *debs, f"{d}/{v}"]).returncode != 0 or not debs:
            die("cannot unpack busybox-static (arm64)")
        shutil.rmtree(f"{d}/dl")
        if not os.access(bb, os.X_OK):
            die("busybox-static (arm64) has no /usr/bin/busybox")
    if output([bb, "uname", "-m"], stdin=subprocess.DEVNULL).strip() != "aarch64":
        die(f"an arm64 binary ({bb}) does not run here: check binfmt_misc ({bf}/qemu-aarch64) and qemu-user-static")
