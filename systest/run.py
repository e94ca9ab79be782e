#!/usr/bin/env python3
"""The system test (`make test-system`): Islet's .deb and `make install` in Debian guests under
qemu (TCG), on a real kernel and a live systemd, with the panel on i2c-stub and the buttons on
gpio-sim. docs/SYSTEM-TEST.md describes the rig; systest/guest/ the scenario's steps.

  systest/run.py [--guest bookworm,trixie] [--arch amd64|arm64] [--results DIR] [--keep]
                 [--timeout SECONDS] [--smp N] [--reboot powercycle|reset]

  --arch      the guests' architecture: amd64 (default: qemu-system-x86_64) or arm64 (an aarch64
              guest, qemu-system-aarch64 -M virt; trixie only, the release Islet ships for arm64)
  --guest     the Debian suites of the guests, comma-separated (default: bookworm,trixie).
              Several guests: the artifacts of each are built first, one after the other, then
              the guests run side by side (each qemu has its own vCPUs), each line of output
              prefixed with its guest; the run fails if any guest fails.
  --results   where the logs go (default: <root>/systest-results/<guest>/, for arm64
              <root>/systest-results/<guest>-arm64/, emptied first; with
              several guests DIR/<guest>/)
  --keep      keep the run's working directory (the shares, the local repository) and say where
  --timeout   hard limit for each guest, in seconds (default 900, arm64 1500); qemu is killed past it
  --smp       virtual CPUs per guest (default 1: with TCG on 2 host cores it was faster than 2)
  --reboot    how step h reboots the guest: powercycle (default: poweroff, a new qemu on the same
              disk) or reset (systemctl reboot inside one qemu run); see docs/SYSTEM-TEST.md

Environment: ISLET_ARTIFACTS=DIR (one guest only) or ISLET_ARTIFACTS_<SUITE>=DIR (e.g.
ISLET_ARTIFACTS_TRIXIE; ISLET_ARTIFACTS_TRIXIE_ARM64 for arm64) uses DIR's isletd, isletctl and
two islet_<version>_<arch>.deb (the higher version is the upgrade) instead of building them:
`make -C <root> release deb` for the
host's own Debian release, scripts/build-in-root.sh SUITE for another (trixie: libgpiod 2.x;
for arm64 ARCH=arm64 scripts/build-in-root.sh trixie, cross-compiled);
ISLET_SYSTEST_CACHE=DIR caches the modules and the images there (default
/var/cache/islet-systest). Needs root (apt-get, mmdebstrap, the image).
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]  # host.* (this run's modules) and testkit.*

from host import artifacts, images, report, repo  # noqa: E402
from host.apt import host_packages  # noqa: E402
from host.broker import Broker  # noqa: E402
from host.common import HOST_ARCH, HOST_SUITE, die, empty_dir, parse_flags, say, since  # noqa: E402
from host.qemu import Guest, command, disk, exit_status  # noqa: E402
from testkit.wait import free_port  # noqa: E402

SUPPORTED = {"amd64:bookworm", "amd64:trixie", "arm64:trixie"}


def options(argv):
    o = {"guest": "", "arch": "amd64", "results": "", "keep": False, "timeout": os.environ.get("ISLET_SYSTEST_TIMEOUT", ""),
         "smp": "1", "reboot": "powercycle"}
    parse_flags(argv, o, {"--guest": "a suite", "--arch": "amd64 or arm64", "--results": "a directory",
                          "--timeout": "seconds", "--smp": "a number", "--reboot": "powercycle or reset"},
                __doc__, "systest/run.py")
    if o["reboot"] not in ("powercycle", "reset"):
        die("--reboot takes powercycle or reset")
    # arm64: trixie alone. Debian has no Swift for bookworm's arm64 and Islet's arm64 package is
    # the trixie build; TCG emulating an aarch64 CPU is slower, hence the longer default limit
    # (see docs/SYSTEM-TEST.md, the arm64 guest).
    if o["arch"] not in ("amd64", "arm64"):
        die(f"--arch takes amd64 or arm64, not '{o['arch']}'")
    o["guest"] = o["guest"] or ("bookworm,trixie" if o["arch"] == "amd64" else "trixie")
    o["timeout"] = o["timeout"] or ("900" if o["arch"] == "amd64" else "1500")
    if not o["timeout"].isdigit():
        die(f"--timeout takes seconds, not '{o['timeout']}'")
    if HOST_ARCH != "amd64":
        die(f"the system test runs on an amd64 host (this one is {HOST_ARCH})")
    o["guests"] = o["guest"].split(",")
    if o["guests"][-1] == "":  # as the shell's `read -a`: a trailing comma names nothing
        o["guests"].pop()
    for g in o["guests"]:
        if f"{o['arch']}:{g}" in SUPPORTED:
            continue
        if f"{o['arch']}:{g}" == "arm64:bookworm":
            die("no arm64 bookworm guest: Debian 12 has no Swift for arm64 and Islet's arm64 package is the trixie "
                "build (use --arch arm64 --guest trixie)")
        die(f"guest '{g}' is not supported: bookworm (Debian 12, kernel 6.1) or trixie (Debian 13, kernel 6.12)")
    if not o["guests"]:
        die("--guest names no suite")
    if os.getuid() != 0:
        die("the system test needs root (apt-get, mmdebstrap, mke2fs): run it as root")
    if not HOST_SUITE:
        die("cannot tell this host's Debian release (/etc/os-release has no VERSION_CODENAME)")
    if len(o["guests"]) > 1 and os.environ.get("ISLET_ARTIFACTS"):
        die("ISLET_ARTIFACTS is for one guest; with several use ISLET_ARTIFACTS_<SUITE> (e.g. ISLET_ARTIFACTS_TRIXIE)")
    return o


class Run:
    """The run's working directory and what must stop with the run: a qemu, the broker, the runs
    of the other guests."""

    def __init__(self, keep):
        self.keep = keep
        self.guest = None
        self.broker = Broker()
        self.children = []
        # Working directories of runs that were killed outright (SIGKILL leaves no cleanup) go first.
        for old in glob.glob("/var/tmp/islet-systest.*"):
            try:
                with open(f"{old}/pid") as f:
                    os.kill(int(f.read()), 0)
            except ProcessLookupError:
                shutil.rmtree(old, ignore_errors=True)
            except (OSError, ValueError):
                pass
        self.work = tempfile.mkdtemp(prefix="islet-systest.", dir="/var/tmp")
        with open(f"{self.work}/pid", "w") as f:
            f.write(f"{os.getpid()}\n")

    def cleanup(self):
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        if self.guest:
            self.guest.stop()
        self.broker.stop()
        # The runs of the other guests (several guests): each stops its own qemu on TERM.
        for p in self.children:
            if p.poll() is None:
                p.terminate()
        for p in self.children:
            p.wait()
        if self.keep:
            say(f"kept the working directory {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)


def side_by_side(o, run, t_start):
    """Builds each guest's artifacts, one after the other (both builds want both cores), then runs
    one run.py per guest with them, side by side, each line of its output prefixed [<guest>]."""
    art = {}
    for g in o["guests"]:
        t0 = time.time()
        art[g] = artifacts.folder(g, o["arch"], ROOT, run.work)
        say(f"artifacts for {g} ready ({since(t0)} s)")
    base = o["results"] or f"{ROOT}/systest-results"
    passed = (["--keep"] if o["keep"] else []) + ["--arch", o["arch"], "--timeout", o["timeout"], "--smp", o["smp"],
                                                  "--reboot", o["reboot"]]
    lock = threading.Lock()

    def relay(g, stream):
        for line in iter(stream.readline, b""):
            with lock:
                sys.stdout.buffer.write(f"[{g}] ".encode() + line)
                sys.stdout.buffer.flush()

    readers = []
    for g in o["guests"]:
        # Emptied here too: a guest's run that fails before its own emptying leaves no old verdict.
        empty_dir(f"{base}/{g}")
        env = dict(os.environ, ISLET_ARTIFACTS=art[g], ISLET_SYSTEST_CHILD="1")
        # --pdeathsig: if this run dies outright, each guest's run gets TERM and stops its qemu.
        p = subprocess.Popen(["setpriv", "--pdeathsig", "TERM", sys.executable, os.path.abspath(__file__),
                              "--guest", g, "--results", f"{base}/{g}", *passed],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        run.children.append(p)
        t = threading.Thread(target=relay, args=(g, p.stdout), daemon=True)
        t.start()
        readers.append(t)
    say(f"running the guests side by side: {' '.join(o['guests'])}")
    rc_of = {g: exit_status(p.wait()) for g, p in zip(o["guests"], run.children)}
    run.children = []
    for t in readers:
        t.join()
    return report.guests(base, rc_of, since(t_start))


def one_guest(o, run, t_start):
    g, arch = o["guests"][0], o["arch"]
    k = images.Kernel(g, arch)
    results = o["results"] or f"{ROOT}/systest-results/{k.label}"
    moddir, module_key = images.modules(k)
    image = images.image(k, moddir, module_key)
    # Islet's artifacts after the module and the image, which do not depend on them: a broken
    # rig shows before a Swift build.
    share = f"{run.work}/host"
    for d in ("artifacts", "repo", "guest"):
        os.makedirs(f"{share}/{d}", exist_ok=True)
    art = artifacts.folder(g, arch, ROOT, run.work)
    low, high = artifacts.take(art, arch, f"{share}/artifacts", f"{share}/repo")
    repo.make(f"{share}/repo", image, k.apt, arch, low, high)

    # The shares (the guest's /host) and the results folder.
    shutil.copytree(f"{HERE}/guest", f"{share}/guest", dirs_exist_ok=True)
    shutil.copy(f"{HERE}/decode_ssd1306_trace.py", f"{share}/guest/")
    # The harnesses' shared library (the guest imports it from /host/testkit).
    shutil.copytree(f"{ROOT}/testkit", f"{share}/testkit")
    with open(f"{share}/run.env", "w") as f:
        f.write(f"ISLET_LOW={low}\nISLET_HIGH={high}\nGUEST={g}\nGUEST_ARCH={arch}\nKVER={k.kver}\n")
    empty_dir(results)
    shutil.copy(f"{image}/packages.txt", f"{results}/guest-packages.txt")
    shutil.copy(f"{share}/repo/closure.txt", f"{results}/repo-closure.txt")

    # The MQTT broker (host/broker.py): mosquitto reads its password file as its own user, so it
    # must pass through the working directory.
    os.chmod(run.work, 0o711)
    run.broker.start(f"{run.work}/broker", results, share)
    # The guest's web page from the host's side (host/web.py): qemu forwards 127.0.0.1:web_port
    # to the guest's 8080; the guest asks for pages by leaving web/request-N in the results.
    web_port = free_port()

    drive = disk(o["reboot"], image, run.work)
    with open(f"{share}/run.env", "a") as f:
        f.write(f"REBOOT_MODE={o['reboot']}\n")
    say(f"booting the {k.label} guest (qemu TCG, -smp {o['smp']}, reboot by {o['reboot']}, limit {o['timeout']} s)")
    argv = command(arch, o["smp"], image, drive, share, results, ROOT, web_port, run.broker.port)
    t_boot = time.time()
    run.guest = Guest(argv, results, int(o["timeout"]), run.broker, web_port)
    run.guest.run()
    return report.one_guest(results, run.guest, k.label, since(t_boot), since(t_start),
                            os.environ.get("ISLET_SYSTEST_CHILD", "0") == "1")


def main():
    sys.stdout.reconfigure(line_buffering=True)
    o = options(sys.argv[1:])
    t_start = time.time()
    run = Run(o["keep"])

    def stop(text, status):
        def handler(signum, frame):
            say(text)
            sys.exit(status)
        return handler

    signal.signal(signal.SIGINT, stop("interrupted", 130))
    signal.signal(signal.SIGTERM, stop("terminated", 143))
    try:
        for g in o["guests"]:
            host_packages(g, o["arch"])
        rc = (side_by_side if len(o["guests"]) > 1 else one_guest)(o, run, t_start)
    finally:
        run.cleanup()
    sys.exit(rc)


if __name__ == "__main__":
    main()
