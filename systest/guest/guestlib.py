"""The guest scenario's library (imported by scenario.py and the steps_*.py, in the guest, as
root): logging, commands with the shell's `set -e` meaning, the step runner with its results
files, status JSON through isletctl, and the simulated hardware (gpio-sim, i2c-stub, the trace).

Everything a step prints, and every command it runs, goes to /results/steps/<step>.log: the
runner points file descriptors 1 and 2 there for the step's duration."""
import datetime
import json
import math
import os
import subprocess
import sys
import time
import types

G = "/host/guest"
R = "/results"
TRACE = "/sys/kernel/tracing"
PHASE_FILE = "/var/lib/systest/phase"
CONF = "/etc/islet/isletd.conf"
DURATION = 3600  # long countdowns: the progress line cannot move a pixel within a step
# The run's settings (run.env and what scenario.py derives from it), filled by scenario.py.
C = types.SimpleNamespace()


class StepFail(Exception):
    """fail "why": the step FAILs with this detail."""


class StepSkip(Exception):
    """skip "why": the step is SKIPped with this detail."""


class CommandFailed(Exception):
    """A command of the step failed: the shell's ERR trap under set -e."""

    def __init__(self, rc, cmd):
        super().__init__("command failed (exit %s): %s" % (rc, cmd))
        self.rc, self.cmd = rc, cmd


def log(*words):
    t = datetime.datetime.now().strftime("%H:%M:%S.%f")[:12]
    print("[%s] %s" % (t, " ".join(str(w) for w in words)), flush=True)


def now():
    return time.time()


def secs_since(t0):
    return "%.1f" % (time.time() - t0)


def fail(why):
    log("FAIL: %s" % why)
    raise StepFail(why)


def skip(why):
    log("SKIP: %s" % why)
    raise StepSkip(why)


def holds(cond):
    """COND() as the shell's `if COND`: a failed command in it makes it false, not the step."""
    try:
        return bool(cond())
    except CommandFailed:
        return False


def check(what, ok):
    """check WHAT OK: OK is a bool or a callable giving one."""
    if holds(ok) if callable(ok) else ok:
        log("ok: %s" % what)
    else:
        fail(what)


def _cmd_text(args):
    return " ".join(str(a) for a in args)


def run(*args, check=True, stdin=None, stdout=None):
    """A command, its output in the step's log; a non-zero exit fails the step unless check=False.
    Returns the exit status."""
    sys.stdout.flush()
    rc = subprocess.run([str(a) for a in args], stdin=stdin, stdout=stdout).returncode
    if rc != 0 and check:
        log("command failed: %s" % _cmd_text(args))
        raise CommandFailed(rc, _cmd_text(args))
    return rc


def out(*args, check=True, err=None):
    """$(command): its output without the trailing newlines (stderr to the log, or to err)."""
    sys.stdout.flush()
    p = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=err, text=True)
    if p.returncode != 0 and check:
        log("command failed: %s" % _cmd_text(args))
        raise CommandFailed(p.returncode, _cmd_text(args))
    return p.stdout.rstrip("\n")


def ok(*args):
    """A command as a condition: True when it exits 0 (its output in the log)."""
    return run(*args, check=False) == 0


def quiet_ok(*args):
    """A condition with its output and errors discarded (the shell's >/dev/null 2>&1)."""
    sys.stdout.flush()
    return subprocess.run([str(a) for a in args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def read(path, default=None):
    """cat FILE, without the trailing newlines; default when it cannot be read (else raises)."""
    try:
        with open(path) as f:
            return f.read().rstrip("\n")
    except OSError:
        if default is None:
            raise
        return default


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def shown(v):
    """A value as the shell's jget printed it: JSON for containers, "" for None, else str()."""
    return json.dumps(v) if isinstance(v, (dict, list)) else ("" if v is None else str(v))


def jget(path, expr):
    """jget FILE EXPR: a Python expression over the JSON document d in FILE, as text (shown());
    "" when the file or the expression fails, the reason in the log (as $(jget ...) gave)."""
    try:
        with open(path) as f:
            d = json.load(f)
        return shown(eval(expr, {"d": d}))
    except Exception as e:  # the expression is data: any failure of it is reported the same way
        print("jget: %s: %r" % (expr, e), file=sys.stderr, flush=True)
        return ""


def act(cond="True"):
    """The activity of a timer (or the only one): a Python expression fragment."""
    return '[a for a in d.get("activities", []) if %s][0]' % cond


def act_field(path, field, timer=None):
    """A field of TIMER's activity (or the only one) in a status file."""
    return jget(path, "%s['%s']" % (act("a['timer'] == '%s'" % timer if timer else "True"), field))


def uptime_s():
    return read("/proc/uptime").split()[0]


def status_json(path):
    """isletctl status --json into PATH. The moment of the answer is the midpoint of the call:
    /run/st-up (CLOCK_BOOTTIME, /proc/uptime), /run/st-wall (wall clock), /run/st-halfwidth."""
    u0, w0 = float(uptime_s()), time.time()
    with open(path, "w") as f:
        run("isletctl", "status", "--json", stdout=f)
    u1, w1 = float(uptime_s()), time.time()
    write("/run/st-up", "%.3f\n" % ((u0 + u1) / 2))
    write("/run/st-wall", "%.3f\n" % ((w0 + w1) / 2))
    write("/run/st-halfwidth", "%.3f\n" % ((u1 - u0) / 2))


def unit_prop(prop):
    return out("systemctl", "show", "-p", prop, "--value", "isletd")


def ensure_daemon():
    """A step that drives the daemon starts from a running one, whatever the step before left."""
    if not quiet_ok("systemctl", "is-active", "--quiet", "isletd"):
        log("isletd is not active (%s): starting it for this step" % unit_prop("ActiveState"))
        subprocess.run(["systemctl", "reset-failed", "isletd"], stderr=subprocess.DEVNULL)
        run("systemctl", "start", "isletd")


def wait_for(limit, cond):
    """Polls COND every 0.2 s until it is true (True) or LIMIT seconds have passed (False)."""
    end = time.time() + limit
    while True:
        if holds(cond):
            return True
        if time.time() > end:
            return False
        time.sleep(0.2)


def fcmp(a, b, tol):
    return abs(float(a) - float(b)) <= float(tol)


def ceil(x):
    return str(math.ceil(float(x) - 1e-9))


def installed(pkg):
    p = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return "install ok installed" in p.stdout


def conf_set(path, section, key, value):
    """conf_set.py: sets KEY = VALUE in [SECTION]; returns the key's line number."""
    return out("python3", G + "/conf_set.py", path, section, key, value)


# ---- results ------------------------------------------------------------------------------
STEP_STATUS = {}
STATUS_FILE = "/var/lib/systest/status"


def step(name, fn, *needs):
    """Runs FN with its output in $R/steps/NAME.log and records PASS/FAIL/SKIP with the seconds it
    took in $R/steps.tsv. A needed step that did not pass makes this one SKIP."""
    for need in needs:
        if STEP_STATUS.get(need) != "PASS":
            record("SKIP", name, "0.0", "needs %s, which did not pass" % need)
            return
    t0 = now()
    path = "%s/steps/%s.log" % (R, name)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        log("step %s" % name)
        rc, status, detail = 0, "PASS", ""
        try:
            fn()
        except StepSkip as e:
            rc, status, detail = 2, "SKIP", str(e)
        except StepFail as e:
            rc, status, detail = 1, "FAIL", str(e)
        except CommandFailed as e:
            rc, status, detail = e.rc, "FAIL", str(e)
        except Exception as e:  # a fault of the scenario itself fails the step, with its trace
            import traceback
            traceback.print_exc()
            rc, status, detail = 1, "FAIL", "%s: %s" % (type(e).__name__, e)
        log("step %s: exit %s" % (name, rc))
        if status == "FAIL":
            evidence(name)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    record(status, name, secs_since(t0), detail)


def record(status, name, secs, detail):
    STEP_STATUS[name] = status
    append(R + "/steps.tsv", "%s\t%s\t%s\t%s\n" % (status, name, secs, detail))
    append(STATUS_FILE, "%s\t%s\n" % (name, status))
    log("%s %s (%s s) %s" % (status, name, secs, detail))


def load_statuses():
    """Restores the statuses recorded before a reboot."""
    if os.path.isfile(STATUS_FILE):
        for line in open(STATUS_FILE):
            n, _, s = line.rstrip("\n").partition("\t")
            STEP_STATUS[n] = s


def timing(text):
    """A figure for docs/PERFORMANCE.md, into $R/timings.txt (the host prints them)."""
    append(R + "/timings.txt", text + "\n")
    log("timing: %s" % text)


def evidence(name):
    """The evidence appended to a failed step's log: the daemon's journal and the bus trace's end."""
    print("---- evidence for %s ----" % name, flush=True)
    subprocess.run(["systemctl", "show", "-p", "ActiveState,SubState,Result,StatusText,NRestarts,"
                    "MainPID,ExecMainStatus", "isletd"])
    print("---- journalctl -u isletd (last 40) ----", flush=True)
    subprocess.run(["journalctl", "-u", "isletd", "-o", "short-monotonic", "--no-pager", "-n", "40"])
    print("---- bus trace (last 15 lines) ----", flush=True)
    try:
        lines = [l for l in open(TRACE + "/trace", errors="replace")
                 if any(k in l for k in ("smbus_write", "i2c_write", "tracing_mark"))]
        sys.stdout.write("".join(lines[-15:]))
    except OSError:
        pass
    print("---- the unit's network drop-in; the host's broker (mosquitto.log, last 10) ----", flush=True)
    subprocess.run(["cat", "/run/systemd/generator/isletd.service.d/50-mqtt-network.conf"])
    try:
        sys.stdout.write("".join(open(R + "/mosquitto.log", errors="replace").readlines()[-10:]))
    except OSError:
        pass
    sys.stdout.flush()


def phase_of():
    status_json("/run/p.json")
    return jget("/run/p.json", '(d["activities"][0]["phase"] if d["activities"] else "idle")')


def is_phase(phase):
    return phase_of() == phase


def is_pres(pres):
    status_json("/run/p.json")
    return jget("/run/p.json", 'd["presentation"]') == pres
