"""The Raspberry Pi 3 guest of `make test-pi` (systest/pi.py): QEMU from a trixie root, Debian's
arm64 kernel and device tree, an initramfs of busybox, the package's libraries and the package's
own files, and one run of it: the console watched for the scenario's end, QMP asked to attach a
device after boot and then to quit."""
import glob
import json
import os
import shutil
import socket
import subprocess
import time

from host.apt import SuiteApt
from host.common import CACHE, cached, die, hash_of, hold_cached, output, pkg_version, run, say, since

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PI = f"{HERE}/pi"
MIRROR = "http://deb.debian.org/debian"


def qemu_root():
    """trixie's qemu-system-arm in a root of its own (cached, keyed by its candidate version)."""
    apt = SuiteApt("trixie")
    key = hash_of("pi-qemu", MIRROR, apt.policy_summary(["qemu-system-arm", "qemu-system-data", "libc6"]),
                  pkg_version("mmdebstrap"), f"{PI}/build-qemu-root.sh")
    d = cached("pi-qemu-trixie", key, [f"{PI}/build-qemu-root.sh", MIRROR])
    hold_cached(d)
    return d


def download(apt, pkg):
    """PKG (apt's candidate for the guest's architecture) in the deb cache; its path."""
    os.makedirs(f"{CACHE}/debs", exist_ok=True)
    version = apt.candidate(pkg).split(" ")[0]
    if not version:
        die(f"trixie's arm64 archive has no {pkg}")
    want = f"{CACHE}/debs/{pkg}_{version.replace(':', '%3a')}_arm64.deb"
    if not os.path.isfile(want):
        run(["apt-get", *apt.opts, "-q", "download", f"{pkg}={version}"], f"apt-get download {pkg} (arm64) failed",
            cwd=f"{CACHE}/debs", stdout=2)
    return want


def kernel():
    """Debian trixie's arm64 kernel: vmlinuz, bcm2837-rpi-3-b.dtb and the two I2C modules (cached)."""
    apt = SuiteApt("trixie", "arm64")
    kver = apt.kernel()
    if not kver:
        die("cannot tell the kernel of trixie's linux-image-arm64")
    version = apt.candidate(f"linux-image-{kver}")
    key = hash_of("pi-kernel", kver, version, f"{PI}/build-kernel.sh")
    d = cached("pi-kernel-trixie-arm64", key, [f"{PI}/build-kernel.sh", download(apt, f"linux-image-{kver}"), kver])
    hold_cached(d)
    return d, kver, version


def depends_names(deb):
    """The package names of a .deb's Depends (versions and alternatives' others dropped)."""
    field = output(["dpkg-deb", "-f", deb, "Depends"])
    return sorted({alt.split("|")[0].split("(")[0].strip() for alt in field.split(",") if alt.strip()})


def userland(deb):
    """busybox-static and what the package depends on, for arm64, extracted (cached, keyed by the
    names and their candidate versions)."""
    apt = SuiteApt("trixie", "arm64")
    names = [n for n in depends_names(deb) if n != "passwd"]  # passwd: for the postinst's user only
    key = hash_of("pi-userland", MIRROR, ",".join(names), apt.policy_summary(["busybox-static", *names]),
                  pkg_version("mmdebstrap"), f"{PI}/build-userland.sh")
    d = cached("pi-userland-trixie-arm64", key, [f"{PI}/build-userland.sh", MIRROR, ",".join(names)])
    hold_cached(d)
    return d


def stage(work, land, kern, deb):
    """The run's root (the userland, the package's files, /init, the modules) and its initramfs:
    the userland's cpio with the run's own files appended (the kernel unpacks both)."""
    root = f"{work}/root"
    run(["cp", "-a", f"{land}/root", root], "copying the userland failed")
    extra = f"{work}/extra"
    os.makedirs(f"{extra}/lib/modules")
    for d in ("proc", "sys", "dev", "run", "tmp"):
        os.makedirs(f"{extra}/{d}")
    run(["dpkg-deb", "-x", deb, extra], f"dpkg-deb -x {deb} failed")
    shutil.copy(f"{PI}/init", f"{extra}/init")
    for ko in glob.glob(f"{kern}/modules/*.ko"):
        shutil.copy(ko, f"{extra}/lib/modules/")
    # /lib is a link to usr/lib in the userland: the modules go where it points.
    os.makedirs(f"{extra}/usr/lib", exist_ok=True)
    shutil.move(f"{extra}/lib/modules", f"{extra}/usr/lib/modules")
    os.rmdir(f"{extra}/lib")
    run(["cp", "-a", f"{extra}/.", root], "staging the package's files failed")
    listing = subprocess.run(["sh", "-c", "find . -mindepth 1 | LC_ALL=C sort"], cwd=extra, capture_output=True, check=True).stdout
    with open(f"{work}/extra.cpio", "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=extra, input=listing, stdout=f, check=True)
    with open(f"{work}/initrd.cpio", "wb") as out:
        for part in (f"{land}/userland.cpio", f"{work}/extra.cpio"):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 20)
    return root, f"{work}/initrd.cpio"


def command(qroot, kern, initrd, results, qmp):
    """raspi3b with Debian's kernel and dtb; at 0x3c on BSC1 (QEMU's i2c-bus.1, the kernel's
    i2c-1) an EEPROM model, which ACKs every byte like a panel; at 0x50 the markers' EEPROM."""
    r = f"{qroot}/root"
    return ["setpriv", "--pdeathsig", "KILL", f"{r}/lib64/ld-linux-x86-64.so.2", "--library-path", f"{r}/usr/lib/x86_64-linux-gnu",
            f"{r}/usr/bin/qemu-system-aarch64", "-L", f"{r}/usr/share/qemu",
            "-M", "raspi3b", "-kernel", f"{kern}/vmlinuz", "-dtb", f"{kern}/bcm2837-rpi-3-b.dtb", "-initrd", initrd,
            "-append", "console=ttyAMA0 rdinit=/init loglevel=3",
            "-display", "none", "-monitor", "none", "-serial", f"file:{results}/console.log",
            "-qmp", f"unix:{qmp},server=on,wait=off",
            "-device", "at24c-eeprom,bus=i2c-bus.1,address=0x3c,rom-size=256",
            "-device", "at24c-eeprom,bus=i2c-bus.1,address=0x50,rom-size=256",
            "-trace", "i2c_*", "-D", f"{results}/i2c-trace.log", "-msg", "timestamp=on"]


class QMP:
    def __init__(self, path, deadline):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.f = self.sock.makefile("rw")
        self.f.readline()
        self.ask("qmp_capabilities")

    def ask(self, command, **arguments):
        self.f.write(json.dumps({"execute": command, **({"arguments": arguments} if arguments else {})}) + "\n")
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                return {"error": {"desc": "QMP closed"}}
            answer = json.loads(line)
            if "event" not in answer:
                return answer


def boot(argv, results, timeout):
    """Runs the guest to its '@@done' line (or the time limit); returns the timings and QMP's
    answer to a device_add of a panel on the I2C bus after boot."""
    with open(f"{results}/qemu-command.txt", "w") as f:
        f.write(" ".join(argv) + "\n")
    qmp_path = argv[argv.index("-qmp") + 1].split(",")[0][len("unix:"):]
    t0 = time.time()
    with open(f"{results}/qemu-stderr.txt", "w") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    found = {"hotplug": None, "done": False, "seconds": None}
    try:
        qmp = QMP(qmp_path, t0 + 30)
        console = f"{results}/console.log"
        while time.time() - t0 < timeout and p.poll() is None:
            if os.path.isfile(console):
                with open(console, "rb") as f:
                    text = f.read()
                if b"\n@@done" in text:
                    found["done"] = True
                    break
                if b"Kernel panic" in text:
                    say("the guest's kernel panicked")
                    time.sleep(1)
                    break
            time.sleep(0.5)
        found["seconds"] = since(t0)
        # A panel that appears after boot: QEMU's answer says whether that case can be run here.
        found["hotplug"] = qmp.ask("device_add", driver="at24c-eeprom", bus="i2c-bus.1", address=0x3e, id="late",
                                   **{"rom-size": 256})
        qmp.ask("quit")
    except OSError as e:
        say(f"QMP: {e}")
    finally:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return found
