"""The guest's kernel, its simulated devices' modules and its image, from the cache (built by
systest/build-module.sh and systest/build-image.sh when their key is new). The keys hash exactly
what the shell version hashed, in the same order, so the images it cached stay valid."""
import os
import re
import time

from host.apt import SuiteApt
from host.common import (HOST_ARCH, HOST_SUITE, build_seconds, cached, die, guest_kernel, hash_of, hold_cached,
                         kernel_series, pkg_version, say, since)

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Kernel:
    """The guest's kernel: the host's package for the host's own release and architecture,
    otherwise linux-image-ARCH's of the guest's release (installed into the image)."""

    def __init__(self, guest, arch):
        self.guest, self.arch = guest, arch
        self.label = guest if arch == "amd64" else f"{guest}-{arch}"
        if guest == HOST_SUITE and arch == HOST_ARCH:
            self.apt = SuiteApt()
            self.kver = guest_kernel()
            self.source = "host"
            say(f"guest kernel {self.kver} ({pkg_version(f'linux-image-{self.kver}')}, the host's package)")
        else:
            self.apt = SuiteApt(guest, arch)
            self.kver = self.apt.kernel()
            if not self.kver:
                die(f"cannot tell the kernel of {guest}'s linux-image-{arch}")
            self.source = "image"
            say(f"guest kernel {self.kver} ({self.apt.candidate(f'linux-image-{self.kver}')}, "
                f"from {guest}'s {arch} repository)")
        self.series = kernel_series(self.kver)


def modules(k):
    """gpio-sim.ko (and i2c-stub.ko) for the guest kernel (cached): built on the host from its
    packages for the host's release; for another release in a throw-away root of that release
    (its headers want its compiler); for arm64 cross-built in such a root (that kernel lacks
    i2c-stub too, so build-module.sh builds it). Keyed by the packages' versions."""
    script, kbuild = f"{HERE}/build-module.sh", f"{HERE}/gpio-sim/Kbuild"
    if k.source == "host":
        key = hash_of(k.kver, pkg_version(f"linux-headers-{k.kver}"), pkg_version(f"linux-source-{k.series}"),
                      script, kbuild)
        args = [k.kver, k.series]
    else:
        key = hash_of(k.label, k.kver, k.apt.candidates(f"linux-headers-{k.kver}", f"linux-source-{k.series}"),
                      script, kbuild, f"{HERE}/i2c-stub/Kbuild")
        args = [k.kver, k.series, k.guest] + ([] if k.arch == "amd64" else [k.arch])
    t0 = time.time()
    name = f"gpio-sim-{k.guest}" if k.arch == "amd64" else f"modules-{k.label}"
    moddir = cached(name, key, [script, *args])
    hold_cached(moddir)
    kos = " ".join(sorted(f for f in os.listdir(moddir) if f.endswith(".ko")))
    say(f"modules ready: {kos} ({since(t0)} s; built in {build_seconds(moddir)} s)")
    return moddir, key


def image(k, moddir, module_key):
    """The guest image (cached), keyed by the scripts that build it, the kernel, the module and
    the candidate versions of what it installs (so a Debian update of systemd, python3, ...
    makes a new image)."""
    script = f"{HERE}/build-image.sh"
    with open(script) as f:
        include = [p for m in re.findall(r"^INCLUDE=(.*)$", f.read(), re.M) for p in m.split(",") if p]
    if k.source == "image":
        include.append(f"linux-image-{k.kver}")
    candidates = k.apt.policy_summary(include)
    kernel_pkg = pkg_version(f"linux-image-{k.kver}") if k.source == "host" else "image"
    key = hash_of(k.label, k.kver, kernel_pkg, module_key, candidates, pkg_version("mmdebstrap"), script,
                  f"{HERE}/image-customize.sh", f"{HERE}/guest/systest-boot", f"{HERE}/guest/systest.service")
    t0 = time.time()
    args = [k.guest, k.kver, moddir, k.source] + ([] if k.arch == "amd64" else [k.arch])
    d = cached(f"image-{k.label}", key, [script, *args])
    hold_cached(d)
    say(f"guest image ready ({since(t0)} s; built in {build_seconds(d)} s)")
    return d
