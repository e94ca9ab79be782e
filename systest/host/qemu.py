"""The guest under qemu (TCG): its command line, its boots (a power cycle asks for another), the
steps it reports as they arrive, and the host's side of its MQTT and web requests meanwhile."""
import os
import re
import subprocess
import sys
import time

from host import web
from host.broker import stop_process
from host.common import run, say

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command(arch, smp, image, disk, share, results, root, web_port, broker_port):
    """qemu's argv. The NIC: no DHCP, no DNS, no IPv6, no route out (restrict=on); the forwards
    are the broker's (the guest's 10.0.2.100:1883 to the host's) and the web page's (the host's
    127.0.0.1:WEB_PORT to the guest's 8080). amd64: the PC machine, console ttyS0. arm64: the virt
    machine, firmware-less (its -kernel is the Image that Debian ships as vmlinuz), console on its
    PL011 (ttyAMA0); the disk, the NIC and the shares are virtio-pci devices on its PCIe host
    bridge, as on the PC."""
    relay = f"cmd:python3 -I -S {HERE}/mqtt_relay.py 127.0.0.1 {broker_port} {results}/mqtt-relay.log"
    if arch == "amd64":
        qemu, console = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max"], "ttyS0"
    else:
        cpu = os.environ.get("ISLET_SYSTEST_ARM64_CPU") or "cortex-a72"
        qemu, console = ["qemu-system-aarch64", "-M", "virt", "-accel", "tcg", "-cpu", cpu], "ttyAMA0"
    # In qemu's option syntax a comma in a value is written twice.
    relay = relay.replace(",", ",,")
    return qemu + [
        "-m", "1024", "-smp", str(smp),
        "-nodefaults", "-display", "none", "-no-user-config",
        "-netdev", f"user,id=net0,ipv6=off,restrict=on,hostfwd=tcp:127.0.0.1:{web_port}-:8080,"
                   f"guestfwd=tcp:10.0.2.100:1883-{relay}",
        "-device", "virtio-net-pci,netdev=net0,romfile=",
        "-kernel", f"{image}/vmlinuz", "-initrd", f"{image}/initrd.img",
        "-append", f"root=/dev/vda rw console={console} systemd.show_status=0 panic=-1",
        "-drive", disk,
        "-virtfs", f"local,path={share},mount_tag=host,security_model=none,readonly=on",
        "-virtfs", f"local,path={results},mount_tag=results,security_model=none",
        "-virtfs", f"local,path={root},mount_tag=src,security_model=none,readonly=on",
        "-chardev", f"file,id=console,path={results}/console.log,append=on", "-serial", "chardev:console"]


def disk(mode, image, work):
    """The reboot of step h: "powercycle" powers the guest off and starts qemu again on the same
    disk (a qcow2 overlay over the cached image, in the working directory); "reset" reboots inside
    one qemu run (systemctl reboot, the disk a -snapshot). Both keep the cached image clean.
    Measured under TCG, the second boot after a reset took 110-240 s against 32-40 s for a fresh
    qemu, so powercycle is the default."""
    if mode != "powercycle":
        return f"file={image}/rootfs.img,format=raw,if=virtio,snapshot=on"
    run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", f"{image}/rootfs.img", "-F", "raw", f"{work}/disk.qcow2"],
        "qemu-img create failed")
    return f"file={work}/disk.qcow2,format=qcow2,if=virtio"


def shell_words(argv):
    """argv as bash's printf '%q ' writes it (qemu-command.txt: a command to paste into a shell)."""
    return run(["bash", "-c", 'printf "%q " "$@"', "bash", *argv], capture=True).stdout


def exit_status(rc):
    """A returncode as the shell reports it (128 + the signal's number)."""
    return 128 - rc if rc < 0 else rc


class Steps:
    """Prints the guest's step results (steps.tsv: status, step, seconds, detail; tab-separated)
    as complete lines arrive."""

    def __init__(self, path):
        self.path = path
        self.shown = 0

    def print_new(self):
        try:
            with open(self.path, errors="surrogateescape") as f:
                lines = f.read().split("\n")[:-1]
        except OSError:
            return
        for line in lines[self.shown:]:
            # Tabs as the shell's `read` splits them: runs of them are one separator.
            status, name, secs, detail = (re.split("\t+", line.strip("\t"), maxsplit=3) + ["", "", "", ""])[:4]
            print(f"{status} {name} ({secs} s)" + (f": {detail}" if detail else ""), flush=True)
        self.shown = max(self.shown, len(lines))


class Guest:
    """One guest's qemu runs; self.proc is the running one (stopped by stop())."""

    def __init__(self, argv, results, timeout_s, broker, web_port):
        self.argv, self.results, self.timeout_s = argv, results, timeout_s
        self.broker, self.web_port = broker, web_port
        self.proc = None
        self.timed_out = False
        self.rc = 0
        self.steps = Steps(f"{results}/steps.tsv")

    def run(self):
        """Boots the guest until it finishes, asks for no more power cycles (at most three
        boots) or runs past the time limit."""
        with open(f"{self.results}/qemu-command.txt", "w") as f:
            f.write(shell_words(self.argv))
        deadline = int(time.time()) + self.timeout_s
        boots = 0
        while True:
            boots += 1
            try:
                os.remove(f"{self.results}/power-cycle")
            except FileNotFoundError:
                pass
            sys.stdout.flush()
            # --pdeathsig: even if this run is killed outright, qemu goes with it.
            self.proc = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", *self.argv], stdin=subprocess.DEVNULL)
            while self.proc.poll() is None:
                self.steps.print_new()
                self.broker.serve(self.results)
                web.serve(self.results, self.web_port)
                if time.time() >= deadline:
                    self.timed_out = True
                    break
                time.sleep(0.5)
            if self.timed_out:
                say(f"the guest ran past {self.timeout_s} s: killing qemu")
                self.proc.terminate()
                time.sleep(2)
                self.proc.kill()
            self.rc = exit_status(self.proc.wait())
            self.proc = None
            self.steps.print_new()
            # The scenario asks for a power cycle by leaving this file before it powers off.
            if not self.timed_out and os.path.isfile(f"{self.results}/power-cycle") and boots < 3:
                say("power cycle: starting the guest again on the same disk")
                continue
            break

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            say(f"stopping qemu (pid {self.proc.pid})")
            stop_process(self.proc, 0.5)
        self.proc = None
