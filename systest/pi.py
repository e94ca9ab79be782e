#!/usr/bin/env python3
"""The Raspberry Pi 3 leg (`make test-pi`): the arm64 package's isletd on the Pi's own I2C
controller and driver. QEMU 10's raspi3b (from a trixie root) boots Debian trixie's arm64 kernel
with Debian's bcm2837-rpi-3-b.dtb; i2c-bcm2835 drives BSC1 as /dev/i2c-1, which offers plain I2C,
so isletd writes with I2C_RDWR. QEMU's I2C trace, decoded by the project's SSD1306 model, must
show `isletctl render`'s frame at each step of a scripted session; the bytes of each change must
be the mock bus's for the same change; then the faults. docs/SYSTEM-TEST.md, "The Pi 3 leg".

  systest/pi.py [--deb FILE] [--results DIR] [--timeout SECONDS] [--keep]

  --deb      the arm64 package (default: the newest dist/arm64/islet_*_arm64.deb, which
             `make test-pi` makes first with `make deb ARCH=arm64`)
  --results  where the console, the trace, the pictures and the verdicts go
             (default systest-results/pi3, emptied first)
  --timeout  the guest's time limit (default 300 s)
  --keep     keep the working directory (the run's root and initramfs)

Needs root (mmdebstrap, chroot) and Debian's apt repository; caches in /var/cache/islet-systest.
"""
import glob
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]

from host import pi_guest  # noqa: E402
from host.apt import binfmt_arm64, SuiteApt  # noqa: E402
from host.common import apt_ensure, die, empty_dir, parse_flags, say, since  # noqa: E402
from host.pi_report import check_all  # noqa: E402


def options(argv):
    o = parse_flags(argv, {"deb": "", "results": f"{ROOT}/systest-results/pi3", "timeout": "300", "keep": False},
                    {"--deb": "a .deb file", "--results": "a directory", "--timeout": "seconds"}, __doc__, "systest/pi.py")
    if not o["timeout"].isdigit():
        die("--timeout takes seconds")
    if not o["deb"]:
        debs = sorted(glob.glob(f"{ROOT}/dist/arm64/islet_*_arm64.deb"), key=os.path.getmtime)
        if not debs:
            die("no dist/arm64/islet_*_arm64.deb: run make deb ARCH=arm64 (make test-pi does)")
        o["deb"] = debs[-1]
    if os.getuid() != 0:
        die("the Pi 3 leg needs root (mmdebstrap, chroot): run it as root")
    return o


def main():
    sys.stdout.reconfigure(line_buffering=True)
    o = options(sys.argv[1:])
    t0 = time.time()
    apt_ensure("mmdebstrap", "qemu-user-static", "binfmt-support", "dpkg-dev", "cpio", "xz-utils", "kmod", "util-linux")
    binfmt_arm64(SuiteApt("trixie", "arm64"))
    times = {}
    t = time.time()
    qroot = pi_guest.qemu_root()
    kern, kver, kpkg = pi_guest.kernel()
    land = pi_guest.userland(o["deb"])
    times["caches"] = since(t)
    say(f"QEMU: {open(qroot + '/version').read().strip()}; kernel {kver} ({kpkg}); package {os.path.basename(o['deb'])}")
    work = tempfile.mkdtemp(prefix="islet-pi.", dir="/var/tmp")
    try:
        t = time.time()
        root, initrd = pi_guest.stage(work, land, kern, o["deb"])
        times["initramfs"] = since(t)
        results = o["results"]
        empty_dir(results)
        argv = pi_guest.command(qroot, kern, initrd, results, f"{work}/qmp.sock")
        say(f"booting raspi3b (limit {o['timeout']} s)")
        t = time.time()
        found = pi_guest.boot(argv, results, int(o["timeout"]))
        times["guest"] = since(t)
        if not found["done"]:
            say(f"the guest did not finish within {o['timeout']} s; its console's end:")
            sys.stdout.write("".join(open(f"{results}/console.log", errors="replace").readlines()[-40:]))
        t = time.time()
        ok = check_all(results, root, found, times)
        times["checks"] = since(t)
    finally:
        if o["keep"]:
            say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    times["total"] = since(t0)
    say("timings: " + ", ".join(f"{k} {v} s" for k, v in times.items()))
    with open(f"{o['results']}/timings.txt", "a") as f:
        f.write("".join(f"{k} {v} s\n" for k, v in times.items()))
    say(f"pi3: {'PASS' if ok else 'FAIL'} (results in {os.path.relpath(o['results'], ROOT)})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
