"""The scenario's steps about installing: the set-up of the guest, apt-get install (a), purge
(g1), make install's rollback (g2) and make install (g3)."""
import glob
import os
import re
import subprocess

import guesthw as hw
import steps_net as net
from guestlib import (C, CONF, check, fail, installed, log, now, ok, out, quiet_ok, read,
                      run, secs_since, status_json, unit_prop, jget, write, conf_set)

DROPIN = "/etc/systemd/system/isletd.service.d/systest.conf"
GEN_DEB = "/lib/systemd/system-generators/isletd-network-generator"


def deb_field(field, check=True):
    return out("sh", "-c", 'dpkg-deb -f /host/repo/islet_"$1"_*.deb "$2"', "sh", C.low, field,
               check=check)


def force_bus():
    """The config's [display] bus is the stub's, when it is not the default /dev/i2c-1 (the arm64
    guest's i2c-0); on amd64 the default is the stub's bus and the config stays as shipped."""
    if C.stub_bus == "i2c-1":
        return
    conf_set(CONF, "display", "bus", "/dev/" + C.stub_bus)
    if not ok("isletd", "--check-config", "--config", CONF):
        fail("isletd does not take [display] bus = /dev/%s" % C.stub_bus)
    log("config: [display] bus = /dev/%s (the stub's adapter; the default is the Pi's /dev/i2c-1)"
        % C.stub_bus)


def gpio_chip():
    """The gpio-sim chip's device name (gpiochip0 on the PC; on virt the PL061 is gpiochip0)."""
    return os.path.basename(read("/run/systest-simdir"))


def force_smbus():
    """Applies `transport = smbus` (the only transport i2c-stub offers) when isletd knows the key."""
    tmp = out("mktemp")
    run("cp", CONF, tmp)
    conf_set(tmp, "display", "transport", "smbus")
    if ok("isletd", "--check-config", "--config", tmp):
        run("cp", tmp, CONF)
        log("config: [display] transport = smbus")
    else:
        log("isletd does not take [display] transport: left on auto")
    os.remove(tmp)


def step_setup():
    # The image must not have Islet's runtime libraries: they come with the package's Depends.
    deps = deb_field("Depends")
    log("islet %s Depends: %s" % (C.low, deps))
    for p in C.runtime_libs:
        if installed(p):
            fail("the guest image already has %s: the package's Depends would not be tested" % p)
        if not re.search(r"(^|, )%s( |,|$)" % re.escape(p), deps):
            fail("the package does not depend on %s (%s's name of that library)" % (p, C.guest))
    recs = deb_field("Recommends")
    log("islet %s Recommends: %s" % (C.low, recs))
    if installed(C.web_lib):
        fail("the guest image already has %s: the package's Recommends would not be tested" % C.web_lib)
    if not re.search(r"(^|, |\| )%s( |,|$)" % re.escape(C.web_lib), recs):
        fail("the package does not recommend %s (%s's libmicrohttpd, for [web])" % (C.web_lib, C.guest))
    check("the guest's machine is %s (%s)" % (C.machine, C.arch), os.uname().machine == C.machine)
    check("the package is for %s" % C.arch, deb_field("Architecture", check=False) == C.arch)
    hw.setup_trace()
    hw.setup_gpio_sim()
    chips = "".join("%s (%s); " % (os.path.basename(c), os.path.basename(os.path.dirname(
        os.path.realpath(c)))) for c in sorted(glob.glob("/sys/bus/gpio/devices/gpiochip*")))
    log("gpio-sim's chip: /dev/%s; all chips: %s" % (gpio_chip(), chips))
    hw.load_i2c_stub()
    bus = hw.stub_bus()
    if not bus:
        fail("i2c-stub registered no adapter")
    write(C.stub_bus_file, bus + "\n")
    adapters = sorted(glob.glob("/sys/bus/i2c/devices/i2c-*"))
    log("adapters: %s" % "".join("%s=%s; " % (os.path.basename(a), read(a + "/name", ""))
                                 for a in adapters))
    if C.arch == "amd64":
        check("i2c-stub is i2c-1 (PIIX4 takes i2c-0)", bus == "i2c-1")
        name0 = read("/sys/bus/i2c/devices/i2c-0/name", "")
        if "PIIX4" not in name0:
            log("note: i2c-0 is %s" % name0)
    elif C.arch == "arm64":
        check("i2c-stub is i2c-0 (virt has no I2C controller)", bus == C.expect_stub_bus)
        check("the stub is the only adapter", len(adapters) == 1)
    # i2c-dev stays loaded from here on; the package must load it itself at boot (checked in a).
    # Any system call outside the unit's filter kills the daemon for the whole run.
    os.makedirs(os.path.dirname(DROPIN), exist_ok=True)
    write(DROPIN, "[Service]\nSystemCallErrorNumber=kill\n")
    # The guest has a NIC from here on, so the unit's lack of network is the unit's doing.
    net.nic_up()
    run("systemctl", "daemon-reload")
    write("/etc/apt/sources.list.d/systest.list", "deb [trusted=yes] file:/host/repo ./\n")
    # No fsync per file under TCG: the guest's disk is a throw-away snapshot.
    write("/etc/dpkg/dpkg.cfg.d/systest-unsafe-io", "force-unsafe-io\n")
    run("apt-get", "-q", "update", "-o", "Acquire::Languages=none")


def active():
    return quiet_ok("systemctl", "is-active", "--quiet", "isletd")


def step_a_install():
    t0 = now()
    run("apt-get", "install", "-y", "-q", "--no-install-recommends", "islet=" + C.low)
    log("apt-get install took %s s" % secs_since(t0))
    for p in C.runtime_libs:
        if not installed(p):
            fail("%s did not come with the package" % p)
    # A Recommends, not a Depends: without Recommends it stays out, and the daemon runs anyway.
    if installed(C.web_lib):
        fail("%s came with --no-install-recommends: the package Depends on it" % C.web_lib)
    log("ok: %s (the web page's library, recommended) is not installed; the daemon needs it only "
        "for [web]" % C.web_lib)
    closure = [l for l in open("/host/repo/closure.txt") if l.strip("\n")]
    log("came with the package: %d Debian packages from the local repository" % len(closure))
    check("isletd --version works without a toolchain", lambda: ok("isletd", "--version"))
    # Which libgpiod the daemon runs on: 1.6 (libgpiod.so.2, the v1 backend) on bookworm, 2.x
    # (libgpiod.so.3, islet_gpio_v2.c) on trixie.
    isletd = out("sh", "-c", "command -v isletd")
    so = " ".join(l.split()[0] for l in out("ldd", isletd).splitlines() if "libgpiod" in l)
    log("isletd loads %s" % (so or "no libgpiod"))
    if C.guest == "bookworm":
        check("isletd loads libgpiod.so.2 (libgpiod 1.6)", so == "libgpiod.so.2")
    elif C.guest == "trixie":
        check("isletd loads libgpiod.so.3 (libgpiod 2.x)", so == "libgpiod.so.3")
    check("isletd.service is active", active)
    s = unit_prop("SubState")
    check("READY reached (Type=notify: running, not start)", s == "running")
    s = unit_prop("StatusText")
    log("StatusText: %s" % s)
    check("StatusText says idle", "idle" in s)
    check("unit is enabled", lambda: quiet_ok("systemctl", "is-enabled", "--quiet", "isletd"))
    check("i2c-dev is loaded at boot by the package", lambda: quiet_ok(
        "grep", "-rqs", "^i2c-dev", "/usr/lib/modules-load.d", "/etc/modules-load.d",
        "/lib/modules-load.d"))
    bus, chip = C.stub_bus, gpio_chip()
    check("/dev/%s belongs to group i2c" % bus, out("stat", "-c", "%G", "/dev/" + bus, check=False) == "i2c")
    check("/dev/%s (gpio-sim) belongs to group gpio" % chip,
          out("stat", "-c", "%G", "/dev/" + chip, check=False) == "gpio")
    if not quiet_ok("id", "alice"):
        run("useradd", "-m", "-G", "islet", "alice")
    if not quiet_ok("id", "bob"):
        run("useradd", "-m", "bob")
    check("isletctl status as alice (group islet)",
          lambda: ok("runuser", "-u", "alice", "--", "isletctl", "status"))
    p = subprocess.run(["runuser", "-u", "bob", "--", "isletctl", "status"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    err = p.stdout.rstrip("\n")
    log("as bob (not in islet): exit %d: %s" % (p.returncode, err))
    check("isletctl as bob exits 69", p.returncode == 69)
    check("isletctl as bob names the group to join", "islet" in err)
    if bus != "i2c-1":
        force_bus()
        run("systemctl", "restart", "isletd")
        check("active after restart with [display] bus = /dev/%s" % bus, active)
    status_json("/run/s.json")
    check("panel present on /dev/%s" % bus, jget("/run/s.json", 'd["status"]["panel_present"]') == "True")
    check("bus is /dev/%s" % bus, jget("/run/s.json", 'd["status"]["bus"]') == "/dev/" + bus)
    # The shipped config has no [mqtt]: the unit has no network.
    net.expect_closed(GEN_DEB)
    check("the package's generator runs /usr/bin/isletd",
          lambda: quiet_ok("grep", "-qx", "ISLETD=/usr/bin/isletd", GEN_DEB))
    force_smbus()
    run("systemctl", "restart", "isletd")
    check("active after restart with the SMBus transport", active)


def step_g1_purge():
    run("apt-get", "purge", "-y", "-q", "islet")
    check("/etc/islet is gone", not os.path.exists("/etc/islet"))
    check("/var/lib/islet is gone", not os.path.exists("/var/lib/islet"))
    check("/usr/bin/isletd is gone", not os.path.exists("/usr/bin/isletd"))
    check("the unit is gone", unit_prop("LoadState") == "not-found")
    check("the generator is gone", not os.path.exists(GEN_DEB))
    user = subprocess.run(["getent", "passwd", "islet"], stdout=subprocess.PIPE, text=True)
    log("user islet after purge: %s; the drop-in stays: %s"
        % (user.stdout.rstrip("\n") or "none", DROPIN))


def make_install(**kw):
    """`make install` from the source tree (read-only, no Swift): dist/bin when it holds the
    binaries under test, else the artifacts' through BIN_DIR. Returns make's exit status."""
    same = all(quiet_ok("cmp", "-s", "/src/dist/bin/" + b, "/host/artifacts/" + b)
               for b in ("isletd", "isletctl"))
    if same:
        log("make -C /src install (dist/bin holds the binaries under test)")
        return run("make", "-C", "/src", "install", **kw)
    log("make -C /src install SKIP_BUILD=1 BIN_DIR=/host/artifacts (the tree's dist/bin is not "
        "the artifacts')")
    return run("make", "-C", "/src", "install", "SKIP_BUILD=1", "BIN_DIR=/host/artifacts", **kw)


def step_g2_install_rollback():
    os.makedirs("/etc/islet", exist_ok=True)
    write(CONF, "[session]\nno_such_key = 1\n")
    with open("/run/mi.txt", "w") as f:
        fd1, fd2 = os.dup(1), os.dup(2)
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            rc = make_install(check=False)
        finally:
            os.dup2(fd1, 1)
            os.dup2(fd2, 2)
            os.close(fd1)
            os.close(fd2)
    mi = read("/run/mi.txt", "")
    print(mi, flush=True)
    os.remove(CONF)
    check("make install fails when the first start fails (exit %d)" % rc, rc != 0)
    check("it printed the journal (isletd.conf:2)", "isletd.conf:2" in mi)
    enabled = subprocess.run(["systemctl", "is-enabled", "isletd"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.rstrip("\n")
    check("the unit is left disabled", enabled == "disabled")
    check("the unit is left inactive", unit_prop("ActiveState") == "inactive")


def step_g3_make_install():
    make_install()
    check("isletd.service is active", active)
    check("READY reached", unit_prop("SubState") == "running")
    log("StatusText: %s" % unit_prop("StatusText"))
    check("StatusText says idle", "idle" in unit_prop("StatusText"))
    check("/usr/local/bin/isletctl", os.access("/usr/local/bin/isletctl", os.X_OK))
    run("usermod", "-aG", "islet", "alice")
    check("isletctl status as alice",
          lambda: ok("runuser", "-u", "alice", "--", "/usr/local/bin/isletctl", "status"))
    net.expect_closed(net.GEN_LOCAL)
    check("make install's generator runs /usr/local/bin/isletd",
          lambda: quiet_ok("grep", "-qx", "ISLETD=/usr/local/bin/isletd", net.GEN_LOCAL))
    net.named_broker_dropin()
    force_bus()
    force_smbus()
    run("systemctl", "restart", "isletd")
    check("active after restart", active)
