"""The Pi 3 leg's verdicts (systest/pi.py): one line per check, PASS, FAIL or SKIP with what was
seen, into steps.tsv and on standard output; the evidence of a failure beside it."""
import json

from host.pi_checks import (Console, Trace, ascii_art, compare, grouped, mock_transitions, render, render_args,
                            transitions, write_pbm)

# The scripted session of systest/pi/init: marker number, name, what the frame must be.
SESSION = [(2, "countdown"), (3, "tick"), (4, "paused"), (5, "still-paused"), (6, "resumed"), (7, "expanded"),
           (8, "stopwatch"), (9, "until"), (10, "night"), (11, "reset"), (12, "test-pattern"), (13, "pattern-off")]


class Verdicts:
    def __init__(self, results):
        self.results, self.rows = results, []

    def add(self, ok, name, detail):
        status = "PASS" if ok is True else "SKIP" if ok is None else "FAIL"
        self.rows.append((status, name, detail))
        print(f"{status} {name}: {detail}", flush=True)
        return ok

    def ok(self):
        return self.rows and all(s != "FAIL" for s, _, _ in self.rows)

    def write(self):
        with open(f"{self.results}/steps.tsv", "w") as f:
            f.writelines(f"{s}\t{n}\t{d}\n" for s, n, d in self.rows)


def frame_step(v, c, tr, root, results, n, name):
    """The decoded glass at the step's marker is isletctl render of the state the daemon reported
    just before or just after the marker (a second may turn between the two answers)."""
    glass, report = tr.decode_to(n)
    write_pbm(f"{results}/{n:02d}-{name}-decoded.pbm", glass)
    with open(f"{results}/{n:02d}-{name}-decoded.json", "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    tried = []
    for which in ("before", "after"):
        _, st = c.status.get((n, which), (None, None))
        if st is None:
            continue
        args = render_args(st)
        if args in [a for a, _ in tried]:
            continue
        pic = render(root, args, f"{results}/{n:02d}-{name}-render-{which}.pbm")
        tried.append((args, compare(glass, pic)))
        if tried[-1][1] == 0:
            return v.add(True, f"{n:02d}-{name}", f"decoded = isletctl render {' '.join(args)} (0 of 8192 pixels differ)"), report
    if not tried:
        return v.add(False, f"{n:02d}-{name}", "no status answer from the guest"), report
    print("decoded:\n" + ascii_art(glass), flush=True)
    return v.add(False, f"{n:02d}-{name}", "; ".join(f"render {' '.join(a)}: {d} pixels differ" for a, d in tried)), report


def status_of(c, n, which="after"):
    return (c.status.get((n, which)) or (None, None))[1] or {}


def check_all(results, root, found, times):
    v = Verdicts(results)
    try:
        _check(v, results, root, found, times)
    except Exception as e:  # a missing marker or answer: the run's evidence is in the results
        v.add(False, "checks", f"stopped: {type(e).__name__}: {e}")
    v.write()
    return v.ok()


def _check(v, results, root, found, times):
    c = Console(f"{results}/console.log")
    v.add(found["done"], "guest", f"the scenario ran to its end in {found['seconds']} s" if found["done"]
          else f"no end within the limit ({found['seconds']} s); failures it printed: {c.fails}")
    for f in c.fails:
        v.add(False, "guest", f)
    times["kernel to /init (guest uptime)"] = c.one("uptime_at_init")
    times["both daemons answering (guest uptime)"] = c.one("daemons_up")
    v.add("Raspberry Pi 3 Model B" in c.one("model"), "machine", f"device tree model {c.one('model')!r}, {c.one('uname')}")
    adapters = {a.split("|")[0]: a.split("|") for a in c.info.get("adapter", [])}
    one = adapters.get("i2c-1", [])
    v.add(one[1:] == ["bcm2835 (i2c@7e804000)", "3f804000.i2c", "i2c-bcm2835", "/dev/i2c-1"], "bsc1",
          f"i2c-1: {one[1:]} (want BSC1, 3f804000.i2c, bound to i2c-bcm2835, /dev/i2c-1); adapters {sorted(adapters)}")
    funcs = c.blocks.get("funcs", [])
    plain = [ln for ln in funcs if ln.startswith("I2C ")]
    v.add(bool(plain) and plain[0].split()[-1] == "yes", "funcs", f"i2cdetect -F 1: {plain[0] if plain else 'no I2C line'}")
    st = status_of(c, 1)
    text = " ".join(c.blocks.get("status-text", []))
    v.add(st.get("status", {}).get("transport") == "i2c" and "I2C_RDWR" in text, "transport",
          f"status transport {st.get('status', {}).get('transport')!r}; isletctl status: {text[:200]!r}")
    tr = Trace(f"{results}/i2c-trace.log")
    missing = [n for n, _ in SESSION if n not in tr.marks]
    if missing:
        v.add(False, "markers", f"no marker in the trace for steps {missing}")
        return
    reports = {}
    for n, name in SESSION:
        if name in ("night",):
            continue
        _, reports[n] = frame_step(v, c, tr, root, results, n, name)
    quiet = tr.panel(tr.marks[4], tr.marks[5])
    v.add(not quiet, "frozen", f"{len(quiet)} panel transactions in the {2.5} s paused (none may change a frozen picture)")
    sent = sum(len(d) + 1 for _, d in tr.panel(end=tr.marks[5]))
    counted = status_of(c, 5).get("status", {}).get("bus_bytes")
    v.add(sent == counted, "bus-bytes", f"the trace carried {sent} bytes to 0x3c (address bytes included); "
          f"status bus_bytes {counted}")
    night = status_of(c, 10).get("status", {}).get("night") or {}
    window = [d for _, d in tr.panel(tr.marks[9], tr.marks[10])]
    want = night.get("contrast")
    glass, rep = tr.decode_to(10)
    v.add(want == 7 and [0x00, 0x81, 7] in window and rep["contrast"] == 7, "night",
          f"status night {night}; contrast command 81h {'07h on the bus' if [0x00, 0x81, 7] in window else 'not on the bus'}; "
          f"decoded contrast {rep['contrast']}")
    for n in (11, 13):
        v.add(reports[n]["display_on"] is False, f"{n:02d}-dark",
              f"display on {reports[n]['display_on']}, last command {reports[n]['last_command_transaction']}")
    bytes_per_change(v, c, tr)
    faults(v, c)
    if found["hotplug"] is not None:
        err = (found["hotplug"].get("error") or {}).get("desc")
        v.add(None, "late-panel", f"QMP device_add after boot: {err}: a panel cannot appear on this bus later in "
              "this QEMU (a late bus is step i-late-bus of make test-system)" if err
              else "QMP device_add worked: this QEMU can attach a panel later; the case is not written yet")


def bytes_per_change(v, c, tr):
    real = transitions(grouped(tr.panel()))
    mock = mock_transitions(c.blocks.get("capture", []))
    costs = {}
    for before, after, wire in mock:
        costs.setdefault((before, after), set()).add(wire)
    same, differ, unmatched = 0, [], 0
    for before, after, wire in real:
        if before[:2] == after[:2]:
            continue  # commands that change neither RAM nor the display switch: the night step checks 81h
        m = costs.get((before, after))
        if m is None:
            unmatched += 1
        elif m == {wire}:
            same += 1
        else:
            differ.append((wire, sorted(m)))
    ticks = [w for (b, a, w) in real if b[:2] != a[:2] and (b, a) in costs]
    v.add(not differ and same >= 5, "bytes-per-change",
          f"{same} changes of the picture from the same controller state, seen on both buses, cost the same bytes on each ("
          f"{min(ticks) if ticks else 0}-{max(ticks) if ticks else 0} bytes); {len(differ)} differ {differ[:5]}; "
          f"{unmatched} of {len(real)} seen on the Pi's bus only (a second that turned for one daemon and not the other)")


def faults(v, c):
    early, late = status_of(c, 20, "early").get("status", {}), status_of(c, 21, "late").get("status", {})
    err = late.get("panel_error") or ""
    log = "\n".join(c.blocks.get("nack-log", []))
    grown = (late.get("bus_errors") or 0) - (early.get("bus_errors") or 0)
    v.add(late.get("panel_present") is False and "0x3d" in err and ("Remote I/O" in err or "errno 121" in err),
          "nack-status", f"panel_present {late.get('panel_present')}, panel_error {err[:160]!r}")
    lines = [ln for ln in log.splitlines() if "panel not answering" in ln]
    v.add(bool(lines) and len(lines) <= 2 and "0x3d" in lines[0], "nack-journal",
          f"{len(lines)} line(s) in the daemon's log: {lines[0][:200] if lines else log[:200]!r}")
    # The backoff doubles from 250 ms to 8 s: in the 12 s between the answers, two or three tries.
    v.add(1 <= grown <= 4, "nack-retries", f"bus_errors {early.get('bus_errors')} then {late.get('bus_errors')} 12 s later "
          "(retries with a backoff doubling to 8 s)")
    v.add(c.one("nack_alive") == "yes" and c.one("nack_status_rc") == "0" and c.one("nack_exit") == "0", "nack-alive",
          f"the socket answered (exit {c.one('nack_status_rc')}), the daemon ran on and stopped cleanly (exit {c.one('nack_exit')})")
    wrong = status_of(c, 22, "late").get("status", {}).get("panel_error") or ""
    wlog = "\n".join(c.blocks.get("wrongbus-log", []))
    names = ["/dev/i2c-0 (bcm2835 (i2c@7e205000))", "/dev/i2c-1 (bcm2835 (i2c@7e804000))", "/dev/i2c-2 (bcm2835 (i2c@7e805000))"]
    v.add("/dev/i2c-7" in wrong and all(n in wrong and n in wlog for n in names), "wrong-bus",
          f"panel_error {wrong[:260]!r}")
    v.add(c.one("wrongbus_alive") == "yes" and c.one("wrongbus_exit") == "0", "wrong-bus-alive",
          f"the daemon ran on, exit {c.one('wrongbus_exit')}")
