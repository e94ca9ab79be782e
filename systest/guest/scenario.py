#!/usr/bin/env python3
"""The system-test scenario, run in the guest at every boot by systest-boot (through
guest-scenario.sh, from the 9p share /host; results to /results). Phase 1 (first boot): set-up,
steps a-h; then a reboot inside the same qemu run (exit 100) or a power cycle; phase 2 (second
boot, same disk): the rest of h, i, and the checks that span the whole run. Each step is timed
and recorded in /results/steps.tsv as PASS|FAIL|SKIP <step> <seconds> <detail>; its log is
/results/steps/<step>.log. The steps are in steps_*.py, the runner and helpers in guestlib.py."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # /host is read-only in the guest

import guestlib as g  # noqa: E402
import guesthw as hw  # noqa: E402
import steps_daemon  # noqa: E402
import steps_install  # noqa: E402
import steps_net  # noqa: E402
import steps_panel  # noqa: E402
import steps_remote  # noqa: E402

os.environ["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
os.environ["DEBIAN_FRONTEND"] = "noninteractive"
os.environ["LC_ALL"] = "C.UTF-8"

# Islet's runtime libraries in this Debian release: the image must lack them, the package's
# Depends must name them and bring them. trixie: libgpiod 2.x (the v2 backend), t64 libpng.
# WEB_LIB, the web page's libmicrohttpd (loaded with dlopen for [web] only): the image must lack
# it too, and the package Recommends it (trixie's t64 name); step a installs without
# Recommends, so the daemon is seen to run without it, and step j3 adds it.
RUNTIME_LIBS = {
    "bookworm": ("libgpiod2 libi2c0 libfreetype6 libfribidi0 libpng16-16 libmosquitto1 "
                 "xfonts-terminus xfonts-unifont", "libmicrohttpd12"),
    "trixie": ("libgpiod3 libi2c0 libfreetype6 libfribidi0 libpng16-16t64 libmosquitto1 "
               "xfonts-terminus xfonts-unifont", "libmicrohttpd12t64"),
}
# Where the stub's adapter must land, from the guest's machine: on qemu's PC the PIIX4 SMBus
# adapter is i2c-0, so the stub is i2c-1 (the Pi's bus); the arm64 virt machine has no I2C
# controller, so the stub is i2c-0. The bus found in the set-up (sysfs) is used everywhere
# after it, kept on the disk for the second boot, where the stub comes late (step i).
MACHINES = {"amd64": ("x86_64", "i2c-1"), "arm64": ("aarch64", "i2c-0")}
STUB_BUS_FILE = "/var/lib/systest/stub-bus"


def run_env(path="/host/run.env"):
    """run.env's KEY=VALUE lines (the shell sourced it: its values, not exported)."""
    env = {}
    for line in open(path):
        k, sep, v = line.rstrip("\n").partition("=")
        if sep and not k.startswith("#"):
            env[k.strip()] = v
    return env


def configure():
    c = g.C
    env = run_env()
    c.guest, c.low, c.high = env["GUEST"], env["ISLET_LOW"], env["ISLET_HIGH"]
    c.arch = env.get("GUEST_ARCH") or os.environ.get("GUEST_ARCH") or "amd64"
    c.reboot_mode = env.get("REBOOT_MODE") or os.environ.get("REBOOT_MODE") or "reset"
    if c.guest not in RUNTIME_LIBS:
        print("guest-scenario: no runtime library list for %s" % c.guest, file=sys.stderr)
        sys.exit(1)
    libs, c.web_lib = RUNTIME_LIBS[c.guest]
    c.runtime_libs = libs.split()
    if c.arch not in MACHINES:
        print("guest-scenario: no machine for GUEST_ARCH=%s" % c.arch, file=sys.stderr)
        sys.exit(1)
    c.machine, c.expect_stub_bus = MACHINES[c.arch]
    c.stub_bus_file = STUB_BUS_FILE
    c.stub_bus = None
    c.phase = g.read(g.PHASE_FILE, "1") or "1"


def boot_timing():
    """The boot's figures by systemd's CLOCK_MONOTONIC timestamps (from the kernel's start)."""
    p = subprocess.run(["systemd-analyze", "time"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    t = " ".join(p.stdout.replace("\n", " ").split())
    g.timing("boot %s (systemd-analyze time, CLOCK_MONOTONIC from the kernel's start): %s"
             % (g.C.phase, t or "systemd-analyze time gave nothing"))


def finish():
    phase, R = g.C.phase, g.R
    boot_timing()
    with open(R + "/isletd-journal.txt", "w") as f:
        subprocess.run(["journalctl", "-u", "isletd", "-o", "short-monotonic", "--no-pager"],
                       stdout=f, stderr=f)
    with open(R + "/journal-all.txt", "w") as f:
        subprocess.run(["journalctl", "-o", "short-monotonic", "--no-pager"], stdout=f, stderr=f)
    subprocess.run(["cp", g.TRACE + "/trace", "%s/trace-boot%s.txt" % (R, phase)],
                   stderr=subprocess.DEVNULL)
    with open("%s/boot%s-analyze.txt" % (R, phase), "w") as f:
        subprocess.run(["systemd-analyze"], stdout=f, stderr=f)
        blame = subprocess.run(["systemd-analyze", "blame"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True).stdout
        f.write("".join(blame.splitlines(True)[:15]))


def stub_bus_after_setup():
    return g.read(STUB_BUS_FILE, "") or g.C.expect_stub_bus


def phase1():
    S, d, i, n, p = g.step, steps_daemon, steps_install, steps_net, steps_panel
    S("setup", i.step_setup)
    g.C.stub_bus = stub_bus_after_setup()
    S("a-apt-install", i.step_a_install, "setup")
    S("b-bus-frame", p.step_b_bus_frame, "a-apt-install")
    S("b2-sh1106-frame", p.step_b2_sh1106_frame, "a-apt-install")
    S("c-buttons", p.step_c_buttons, "a-apt-install")
    S("d1-reload", d.step_d1_reload, "a-apt-install")
    S("d2-stop", d.step_d2_stop, "a-apt-install")
    S("d3-watchdog", d.step_d3_watchdog, "a-apt-install")
    S("e-clock-step", d.step_e_clock, "a-apt-install")
    S("f-upgrade", d.step_f_upgrade, "a-apt-install")
    S("f2-newer-schema", d.step_f2_newer_schema, "a-apt-install")
    S("j1-mqtt", steps_remote.step_j1_mqtt, "a-apt-install")
    S("j3-web", steps_remote.step_j3_web, "a-apt-install")
    S("g1-purge", i.step_g1_purge, "a-apt-install")
    S("g2-install-rollback", i.step_g2_install_rollback, "g1-purge")
    S("g3-make-install", i.step_g3_make_install, "g1-purge")
    S("h1-before-reboot", d.step_h1_before_reboot, "g3-make-install")
    finish()
    g.write(g.PHASE_FILE, "2\n")
    os.sync()
    if g.STEP_STATUS.get("h1-before-reboot") == "PASS":
        if g.C.reboot_mode == "powercycle":
            g.log("powering off for phase 2 (the host starts the guest again on the same disk)")
            g.write(g.R + "/power-cycle", "")
            return 0
        g.log("rebooting for phase 2")
        return 100
    g.record("SKIP", "h2-after-reboot", "0.0", "needs h1-before-reboot, which did not pass")
    g.record("SKIP", "i-late-bus", "0.0", "needs the reboot")
    g.record("SKIP", "j2-closed-after-boot", "0.0", "needs the reboot")
    S("z-whole-run", d.step_z_whole_run, "a-apt-install")
    return None


def phase2():
    S, d, n, p = g.step, steps_daemon, steps_net, steps_panel
    g.load_statuses()
    hw.setup_trace()
    n.nic_up()
    S("h2-after-reboot", d.step_h2_after_reboot, "h1-before-reboot")
    g.C.stub_bus = stub_bus_after_setup()
    S("i-late-bus", p.step_i_late_bus, "h1-before-reboot")
    S("j2-closed-after-boot", n.step_j2_closed_after_boot, "h1-before-reboot")
    S("z-whole-run", d.step_z_whole_run, "a-apt-install")
    finish()


def main():
    os.makedirs("/var/lib/systest", exist_ok=True)
    os.makedirs(g.R + "/steps", exist_ok=True)
    configure()
    c = g.C
    g.log("scenario phase %s, kernel %s (%s), islet %s -> %s"
          % (c.phase, os.uname().release, os.uname().machine, c.low, c.high))
    if c.phase == "1":
        rc = phase1()
        if rc is not None:
            return rc
    else:
        phase2()
    g.write(g.R + "/done", "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
