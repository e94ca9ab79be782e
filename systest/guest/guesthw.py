"""The guest's simulated hardware, for the scenario's steps: gpio-sim buttons, the i2c-stub
panel bus, the kernel's trace of that bus and its decoding as the panel."""
import os
import subprocess
import sys
import time

from guestlib import C, DURATION, G, TRACE, CommandFailed, log, quiet_ok, read, run, write

# ---- the simulated hardware --------------------------------------------------------------
GPIOSIM = "/sys/kernel/config/gpio-sim/islet"
BUTTON_LINES = (17, 27, 22)  # lines of the simulated bcm2711 bank (docs/HARDWARE.md wiring)


def setup_gpio_sim():
    run("modprobe", "configfs")
    if not quiet_ok("mountpoint", "-q", "/sys/kernel/config"):
        run("mount", "-t", "configfs", "none", "/sys/kernel/config")
    run("modprobe", "gpio-sim")
    if not os.path.isdir(GPIOSIM):
        os.mkdir(GPIOSIM)
        os.mkdir(GPIOSIM + "/bank0")
        write(GPIOSIM + "/bank0/num_lines", "32\n")
        write(GPIOSIM + "/bank0/label", "pinctrl-bcm2711\n")
        for n in BUTTON_LINES:
            os.mkdir("%s/bank0/line%d" % (GPIOSIM, n))
            write("%s/bank0/line%d/name" % (GPIOSIM, n), "GPIO%d\n" % n)
        write(GPIOSIM + "/live", "1\n")
    dev, chip = read(GPIOSIM + "/dev_name"), read(GPIOSIM + "/bank0/chip_name")
    simdir = "/sys/devices/platform/%s/%s" % (dev, chip)
    write("/run/systest-simdir", simdir + "\n")
    # Buttons wired to ground with the Pi's pull-ups: idle high.
    for n in BUTTON_LINES:
        write("%s/sim_gpio%d/pull" % (simdir, n), "pull-up\n")
    log("gpio-sim: %s (%s) at %s" % (chip, read(GPIOSIM + "/bank0/label", "pinctrl-bcm2711"), simdir))


def press(line, hold_ms, bounce=None, marker=None, edges_json=None):
    """A finger on the button of LINE (active low), with bounce (gpio_press.py)."""
    env = dict(os.environ)
    if marker:
        env["PRESS_MARKER"] = marker
    if edges_json:
        env["PRESS_JSON"] = edges_json
    args = ["python3", G + "/gpio_press.py", read("/run/systest-simdir"), str(line), str(hold_ms)]
    args += [str(bounce)] if bounce is not None else []
    sys.stdout.flush()
    rc = subprocess.run(args, env=env).returncode
    if rc != 0:
        log("command failed: press %s %s" % (line, hold_ms))
        raise CommandFailed(rc, "press %s %s %s" % (line, hold_ms, bounce))


def load_i2c_stub():
    """i2c-stub at the panel's address: i2c-1 on the PC (PIIX4 takes i2c-0), i2c-0 on arm64 virt
    (no I2C controller); stub_bus() finds it by name."""
    run("modprobe", "i2c-dev")
    run("modprobe", "i2c-stub", "chip_addr=0x3c", "functionality=0x0f7f0000")
    run("udevadm", "settle", check=False)


def stub_bus():
    base = "/sys/bus/i2c/devices"
    for a in sorted(os.listdir(base)):
        if a.startswith("i2c-") and "SMBus stub" in read("%s/%s/name" % (base, a), ""):
            return a
    return None


def setup_trace():
    if not quiet_ok("mountpoint", "-q", TRACE):
        run("mount", "-t", "tracefs", "nodev", TRACE)
    for f, v in (("tracing_on", "0"), ("trace_clock", "mono"), ("buffer_size_kb", "16384"),
                 ("trace", ""), ("events/smbus/smbus_write/enable", "1"),
                 ("events/smbus/smbus_result/enable", "1"), ("events/i2c/i2c_write/enable", "1"),
                 ("tracing_on", "1")):
        write("%s/%s" % (TRACE, f), v + "\n")


def mark(name):
    """Remembers CLOCK_MONOTONIC now (the trace's clock, trace_clock=mono) as NAME."""
    write("/run/systest-mark-%s" % name, "%.6f\n" % time.monotonic())


def mark_ts(name):
    return read("/run/systest-mark-%s" % name)


def decode(out_prefix, size, *args, check=False):
    """The trace so far, decoded as the panel: OUT_PREFIX.trace, .pbm, .json. Returns the exit."""
    run("cp", TRACE + "/trace", out_prefix + ".trace", check=False)
    return run("python3", G + "/decode_ssd1306_trace.py", out_prefix + ".trace",
               "--bus", C.stub_bus.replace("i2c-", "", 1), "--size", size or "128x64",
               "-o", out_prefix + ".pbm", "--report", out_prefix + ".json", *args, check=check)


def render_paused(path, size, pres, remaining):
    """isletctl render of a paused countdown."""
    run("isletctl", "render", "--size", size, "--presentation", pres, "--state", "paused",
        "--remaining", remaining, "--duration", DURATION, "-o", path)


def pixels(size):
    w, _, h = size.partition("x")
    return int(w) * int(h)
