"""The scenario's steps about the daemon's life: reload (d1), stop (d2), the watchdog (d3), clock
steps (e), the upgrade (f), the reboot (h1, h2) and the checks of the whole run (z)."""
import os
import re
import subprocess
import time

from guestlib import (C, CONF, CommandFailed, R, act_field, check, conf_set, ensure_daemon, fail, fcmp, is_phase,
                      jget, log, now, out, quiet_ok, read, run, secs_since, status_json, unit_prop,
                      uptime_s, wait_for, write, DURATION)
import guesthw as hw

DROPIN = "/etc/systemd/system/isletd.service.d/systest.conf"


def journal_since(t):
    return out("journalctl", "-u", "isletd", "--since", "@%s" % t, "--no-pager", "-o",
               "short-monotonic", check=False)


def tee(path, text):
    write(path, text + "\n")
    print(text, flush=True)


def step_d1_reload():
    ensure_daemon()
    pid = unit_prop("MainPID")
    run("cp", CONF, "/run/conf.good")
    conf_set(CONF, "session", "minutes", "7")
    time.sleep(1)
    run("systemctl", "reload", "isletd")
    time.sleep(1)
    check("same process after reload", unit_prop("MainPID") == pid)
    quiet_ok("isletctl", "reset")
    run("isletctl", "toggle")
    status_json("/run/s.json")
    cs = jget("/run/s.json", 'd["activities"][0]["attributes"]["cycle_seconds"]')
    check("a good reload took effect ([session] minutes = 7: toggle starts 420 s, got %s)" % cs, cs == "420")
    run("isletctl", "reset")
    line = conf_set(CONF, "session", "no_such_key", "1")
    t = int(time.time())
    time.sleep(1)
    run("systemctl", "reload", "isletd")
    time.sleep(1.5)
    check("still active after a bad reload", lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd"))
    check("same process after a bad reload", unit_prop("MainPID") == pid)
    j = journal_since(t)
    tee("/run/j.txt", j)
    check("the journal names isletd.conf:%s" % line, "isletd.conf:%s" % line in j)
    run("isletctl", "toggle")
    status_json("/run/s.json")
    cs = jget("/run/s.json", 'd["activities"][0]["attributes"]["cycle_seconds"]')
    check("the old config stays in force after the bad reload (420 s, got %s)" % cs, cs == "420")
    run("isletctl", "reset")
    run("cp", "/run/conf.good", CONF)
    run("systemctl", "reload", "isletd")


def step_d2_stop():
    ensure_daemon()
    run("isletctl", "start", "--seconds", DURATION)
    time.sleep(2)
    hw.mark("d-stop")
    t0 = now()
    run("systemctl", "stop", "isletd")
    log("systemctl stop took %s s" % secs_since(t0))
    check("exit status 0", unit_prop("ExecMainStatus") == "0")
    check("result success", unit_prop("Result") == "success")
    hw.decode(R + "/d-stop", None)
    last = jget(R + "/d-stop.json", '" ".join(d["last_command_transaction"])')
    log("last command transaction: %s; last transaction is a command: %s"
        % (last, jget(R + "/d-stop.json", 'd["last_transaction_is_command"]')))
    check("the last bus transaction is AE (display off)", last == "ae")
    check("and nothing after it", jget(R + "/d-stop.json", 'd["last_transaction_is_command"]') == "True")
    run("systemctl", "start", "isletd")
    check("active again", lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd"))


def step_d3_watchdog():
    ensure_daemon()
    pid, n0 = unit_prop("MainPID"), unit_prop("NRestarts")
    if not (pid.isdigit() and int(pid) > 1):
        fail("no main process to stop (MainPID=%s)" % pid)
    t0, t = now(), int(time.time())
    run("kill", "-STOP", pid)
    log("SIGSTOP to %s; waiting for the watchdog (WatchdogSec=30s)" % pid)

    def restarted():
        p = unit_prop("MainPID")
        return p not in (pid, "0") and quiet_ok("systemctl", "is-active", "--quiet", "isletd")

    if not wait_for(70, restarted):
        fail("no restart within 70 s of SIGSTOP")
    log("restarted as %s after %s s" % (unit_prop("MainPID"), secs_since(t0)))
    check("NRestarts went up by one", unit_prop("NRestarts") == str(int(n0) + 1))
    j = out("journalctl", "--since", "@%s" % t, "--no-pager", "-o", "short-monotonic", check=False)
    seen = [l for l in j.splitlines() if re.search("isletd|watchdog", l, re.I)]
    tee("/run/j.txt", "\n".join(seen))
    if not seen:  # grep found nothing: under pipefail the pipeline failed the step
        raise CommandFailed(1, "journalctl --since @%s | grep -iE 'isletd|watchdog' | tee /run/j.txt" % t)
    check("the journal shows the watchdog timeout", "watchdog timeout" in read("/run/j.txt").lower())
    check("the timer survived", lambda: is_phase("running"))


def expect_remaining(r0, u0, h0, tol, what):
    """The only activity's remaining time is R0 less the time since U0 (CLOCK_BOOTTIME of the
    answer that said R0, ±H0), within TOL seconds plus the uncertainty of the two measurements
    (half of each status call's duration)."""
    status_json("/run/s.json")
    got = act_field("/run/s.json", "remaining_seconds")
    tol = "%.2f" % (tol + float(h0) + float(read("/run/st-halfwidth")))
    want = "%.3f" % (float(r0) - (float(read("/run/st-up")) - float(u0)))
    log("%s: remaining %s, expected %s (±%s)" % (what, got, want, tol))
    try:
        close = fcmp(got, want, tol)
    except ValueError:
        close = False
    if not close:
        fail("%s: remaining %s, expected %s ±%s" % (what, got, want, tol))


def status_now():
    """Remaining time, the answer's CLOCK_BOOTTIME and its half-width."""
    status_json("/run/s.json")
    return (act_field("/run/s.json", "remaining_seconds"), read("/run/st-up"),
            read("/run/st-halfwidth"))


def date_step(delta):
    run("date", "-s", delta, stdout=subprocess.DEVNULL)


def step_e_clock():
    ensure_daemon()
    quiet_ok("isletctl", "reset")
    run("isletctl", "start", "--seconds", DURATION)
    time.sleep(1)
    r0, u0, h0 = status_now()
    date_step("+1 hour")
    log("clock stepped to %s" % out("date"))
    time.sleep(2)
    expect_remaining(r0, u0, h0, 0.3, "running, clock +1 h")
    date_step("-1 hour")
    log("clock stepped back to %s" % out("date"))
    time.sleep(2)
    expect_remaining(r0, u0, h0, 0.3, "running, clock back")
    run("isletctl", "pause")
    f = status_now()[0]
    for delta, what in (("+1 hour", "clock +1 h"), ("-1 hour", "clock back")):
        date_step(delta)
        time.sleep(1.5)
        got = status_now()[0]
        check("paused, %s: frozen %s stays (%s)" % (what, f, got), got == f)
    # Resumed from the frozen time: at the status that follows, the countdown has run at most
    # the time since before the resume (boot clock, 10 ms ticks), whatever the load on the host.
    before = float(uptime_s())
    run("isletctl", "resume")
    r = status_now()[0]
    took = float(uptime_s()) - before
    try:
        held = float(r) <= float(f) and float(f) - float(r) <= took + 0.02
    except ValueError:
        held = False
    check("resumed from the frozen time (%s -> %s within %s s)" % (f, r, "%g" % took), held)
    run("isletctl", "reset")


def until_ends_at():
    """The laundry's `ends_at` as status reports it (none when it is gone)."""
    status_json("/run/u.json")
    return jget("/run/u.json", '[a["content"]["pushed"].get("ends_at") for a in d["activities"] if a["timer"] == "laundry"][0]')


def step_f_upgrade():
    ensure_daemon()
    run("isletctl", "start", "--seconds", DURATION)
    # A pushed activity beside it (state file schema 2): its source's end survives the upgrade.
    run("isletctl", "start", "--until", "+50", "--timer", "laundry", "--title", "Laundry", "--icon", "laundry", "--text", "Washing")
    e0 = until_ends_at()
    time.sleep(1)
    r0, u0, h0 = status_now()
    pid = unit_prop("MainPID")
    run("apt-get", "install", "-y", "-q", "-o", "Dpkg::Options::=--force-confdef", "-o",
        "Dpkg::Options::=--force-confold", "islet=" + C.high)
    v = out("dpkg-query", "-W", "-f=${Version}", "islet")
    check("islet %s installed (got %s)" % (C.high, v), v == C.high)
    check("active after the upgrade", lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd"))
    new = unit_prop("MainPID")
    log("MainPID %s -> %s (%s)" % (pid, new, "restarted" if new != pid else "not restarted"))
    check("the timer is still running", lambda: is_phase("running"))
    expect_remaining(r0, u0, h0, 0.3, "after the upgrade")
    e1 = until_ends_at()
    check("the laundry's end is the same after the upgrade (%s, then %s)" % (e0, e1), e0 == e1 and e0.startswith("20"))
    run("isletctl", "reset", "--timer", "laundry")
    run("isletctl", "reset")


def step_f2_newer_schema():
    """A downgrade meets a state file a newer Islet wrote: moved aside with a message naming
    the schemas, never a crash, never a guess (README.md, "The content state")."""
    ensure_daemon()
    run("systemctl", "stop", "isletd")
    path = "/var/lib/islet/activities.json"
    newer = '{"schema":3,"saved_at":"2026-12-06T10:00:00.000Z","activities":[{"attributes":{"kind":"teleport"}}]}\n'
    write(path, newer)
    run("chown", "--reference=/var/lib/islet", path)
    t = int(time.time())
    time.sleep(1)
    run("systemctl", "start", "isletd")
    check("active with a newer state file", lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd"))
    j = journal_since(t)
    tee("/run/j-schema.txt", j)
    check("the journal names the newer schema and the ones this version reads",
          "schema 3 was written by a newer Islet" in j and "reads schemas 1 to 2" in j)
    aside = [f for f in os.listdir("/var/lib/islet") if f.startswith("activities.json.bad-")]
    check("the newer file is kept aside whole (%s)" % aside, len(aside) == 1 and read("/var/lib/islet/" + aside[0]) == newer.rstrip("\n"))
    check("nothing guessed: no activity", lambda: is_phase("idle"))
    for f in aside:
        os.remove("/var/lib/islet/" + f)


def host_clock_offset():
    """The guest's wall clock minus the host's (a file written on the 9p share gets the host's time)."""
    g = time.time()
    write(R + "/.clock", "")
    h = float(out("stat", "-c", "%.3Y", R + "/.clock"))
    return "%.3f" % (g - h)


def step_h1_before_reboot():
    quiet_ok("isletctl", "reset")
    run("isletctl", "start", "--timer", "run", "--seconds", DURATION)
    run("isletctl", "start", "--timer", "pz", "--seconds", DURATION)
    time.sleep(3)
    run("isletctl", "pause", "--timer", "pz")
    time.sleep(0.5)
    h = "/var/lib/systest/h-status.json"
    status_json(h)
    run("cp", "/run/st-wall", "/var/lib/systest/h-wall")
    run("cp", "/run/st-halfwidth", "/var/lib/systest/h-halfwidth")
    write("/var/lib/systest/h-offset", host_clock_offset())
    run("cp", h, R + "/h-before.json")
    log("before the reboot: run %s, pz paused %s"
        % (act_field(h, "remaining_seconds", "run"), act_field(h, "remaining_seconds", "pz")))


def step_h2_after_reboot():
    if not wait_for(30, lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd")):
        fail("isletd is not active after the reboot")
    h, a = "/var/lib/systest/h-status.json", R + "/h-after.json"
    status_json(a)
    w0, w1 = read("/var/lib/systest/h-wall"), read("/run/st-wall")
    r0, f0 = act_field(h, "remaining_seconds", "run"), act_field(h, "remaining_seconds", "pz")
    r1, f1 = act_field(a, "remaining_seconds", "run"), act_field(a, "remaining_seconds", "pz")
    log("after the reboot (%.1f s of wall clock later): run %s, pz %s"
        % (float(w1) - float(w0), r1, f1))
    check("pz is still paused", act_field(a, "phase", "pz") == "paused")
    check("pz shows its frozen time exactly (%s -> %s)" % (f0, f1), f1 == f0)
    check("run is still running", act_field(a, "phase", "run") == "running")
    want = "%g" % (float(r0) - (float(w1) - float(w0)))
    log("guest clock minus host clock: %s s before the reboot, %s s after"
        % (read("/var/lib/systest/h-offset"), host_clock_offset()))
    # The guest's wall clock across its own reboot is the measure (the daemon cannot know
    # better); ±1 s as promised. The host's clock, through a file's time on the 9p share, is
    # logged beside.
    tol = "%.2f" % (1 + float(read("/var/lib/systest/h-halfwidth")) + float(read("/run/st-halfwidth")))
    try:
        close = fcmp(r1, want, tol)
    except ValueError:
        close = False
    if not close:
        fail("run shows %s s remaining, expected %s ±%s" % (r1, want, tol))
    log("ok: run shows %s, expected %s (±%s: 1 s and the measurements' own width)" % (r1, want, tol))
    stale = jget(a, "%s['content']['stale']" % "[a for a in d.get('activities', []) if a['timer'] == 'run'][0]")
    check("not marked stale", stale == "False")


def step_z_whole_run():
    dropins = unit_prop("DropInPaths")
    log("DropInPaths: %s; SystemCallErrorNumber: %s" % (dropins, unit_prop("SystemCallErrorNumber")))
    check("the drop-in SystemCallErrorNumber=kill is loaded", DROPIN in dropins)
    check("the unit's EPERM is overridden", unit_prop("SystemCallErrorNumber") != "EPERM")
    # The mechanism itself: on this systemd, a filtered call under SystemCallErrorNumber=kill kills.
    run("systemd-run", "--quiet", "--wait", "-p", "SystemCallFilter=~@clock", "-p",
        "SystemCallErrorNumber=kill", "/bin/date", "-s", "@0", check=False)
    j = out("journalctl", "-n", "20", "--no-pager", "-o", "cat", check=False)
    hits = [l for l in j.splitlines() if re.search(r"run-.*(status=31|SYS)", l)]
    r = hits[-1] if hits else ""
    log("control: date -s under ~@clock with kill: %s" % (r or "no SIGSYS line"))
    check("the control unit was killed by SIGSYS", r != "")
    base = ["journalctl", "-u", "isletd", "--no-pager", "-o", "short-monotonic"]
    with open("/run/jall.txt", "w") as f:
        if subprocess.run(base + ["-b", "all"], stdout=f).returncode != 0:
            f.seek(0)
            f.truncate()
            subprocess.run(base, stdout=f)
    bad = [l for l in read("/run/jall.txt", "").splitlines()
           if re.search(r"code=killed, status=(31|SYS)|signal=SYS|SIGSYS", l)]
    if bad:
        print("\n".join(bad), flush=True)
        fail("a system call outside the filter killed isletd (above)")
    j = out("journalctl", "--no-pager", "-o", "short-monotonic", check=False)
    ends = [l for l in j.splitlines() if re.search(r"isletd.*(Main process exited|Failed with result)", l)]
    if ends:
        print("\n".join(ends), flush=True)
    log("no SIGSYS in the journal of either boot")
