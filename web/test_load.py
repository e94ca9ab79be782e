"""`make test-web`: the page under load (docs/WEB.md "Bounded").

(h) a slowloris (one header byte every 2 s), then 64 event streams from 8 addresses (8 each,
the most one address may hold), then 40 idle connections from 5 more, against a running
countdown, while a person's `isletctl status` runs in a loop beside the control socket's own
round trip (testkit/probe.py's Probe): the socket's round trip keeps p99 under 50 ms (isletctl,
a process start each time, keeps mqtt's bound for that); the ticks stay punctual (frame events
about 1 s apart on the streams, none more than 250 ms late); streams past 32 connections get
503 busy; a request past 64 connections is not served while they are open (closed, or held in
the listen backlog and answered once there is room); near the bound (24 connections and more)
the slowloris and the idle connections are cut within about a second, and a stream is served
again afterwards. Every client address is on loopback (127.0.1.x, 127.0.3.x).
"""
import json
import os
import time

from case import WebCase, figure
from streams import Readers, Slowloris, Stream, answer, asking, ended, idle
from testkit.probe import CTL_P99_MS, Probe  # CTL_P99_MS: isletctl status, a process start each time

STREAMS, IDLE, SOFT_LIMIT, HARD_LIMIT, PER_ADDRESS = 64, 40, 32, 64, 8
# Near the bound a connection owes a whole request within 1 s (docs/WEB.md "Bounds"); the
# deadline is checked at the loop's turns, which a running countdown makes at least once a second.
SOCK_P99_MS, LATE_S, CUT_S, IDLE_CUT_S, HOLD_S = 50, 0.25, (0.8, 3.5), 3.5, 9.0


class Load(WebCase):
    uses_browser = False

    def test_h_streams_slowloris_and_a_person(self):
        d = self.daemon()
        self.ctl_ok(d, "start", "--seconds", "600")
        time.sleep(0.3)
        probe = Probe(d, interval=0.2).start()
        self.addCleanup(probe.stop)
        slow = Slowloris(d.port).start()
        self.addCleanup(slow.stop)
        streams = []
        self.addCleanup(lambda: [s.close() for s in streams])
        for i in range(STREAMS):
            streams.append(Stream(d.port, source=f"127.0.1.{1 + i // PER_ADDRESS}"))
        readers = Readers(streams).start()
        self.addCleanup(readers.stop)
        t_open = time.monotonic()
        drawn_before = d.status()["status"]["frames"]
        statuses = [s.status for s in streams]
        served = statuses.count(200)
        # Past the hard limit: 32 open (31 streams and the slowloris) + 32 idle; the rest wait.
        waiting = [c for i in range(IDLE // PER_ADDRESS) for c in idle(d.port, PER_ADDRESS, source=f"127.0.3.{i + 1}")]
        self.addCleanup(lambda: [c.close() for c in waiting])
        late = asking(d.port, "/api/session")
        self.addCleanup(late.close)
        time.sleep(1.0)
        closed_at_once = sum(ended(c) for c in waiting)
        late_early = answer(late)
        cut = slow.wait(CUT_S[1] + 2 - (time.monotonic() - slow.t0))
        wait_deadline = time.monotonic() + IDLE_CUT_S
        while time.monotonic() < wait_deadline and sum(ended(c) for c in waiting[:SOFT_LIMIT]) < SOFT_LIMIT:
            time.sleep(0.1)
        idle_cut = sum(ended(c) for c in waiting)
        late_answer = late_early if late_early is not None else answer(late, wait=3.0)
        # The load stands for HOLD_S in all: enough ticks and a person's samples to measure.
        time.sleep(max(0.0, HOLD_S - (time.monotonic() - t_open)))
        for c in waiting:
            c.close()
        waiting.clear()
        time.sleep(0.5)
        again = Stream(d.port)
        streams.append(again)
        t_end = time.monotonic()
        drawn = d.status()["status"]["frames"] - drawn_before
        probe.stop()
        readers.stop()

        frames = [s.times("frame") for s in streams[:served]]
        window = [t for t in frames[0] if t_open <= t <= t_end]
        gaps = [b - a for a, b in zip(window, window[1:])]
        worst = max((b - a for f in frames for a, b in zip(f, f[1:]) if t_open <= a), default=0.0)
        dropped = sum(s.closed for s in streams[:served])
        sock_p99, ctl_p99 = Probe.p99(probe.sock) * 1000, Probe.p99(probe.ctl) * 1000
        late_line = (late_answer or b"").split(b"\r")[0].decode(errors="replace")
        figure(f"{STREAMS} streams: {served} served, {statuses.count(503)} got 503, others {sorted(set(statuses) - {200, 503})}; "
               f"{closed_at_once} of {IDLE} idle connections closed at once, {idle_cut} cut by "
               f"{time.monotonic() - t_open:.1f} s; a request past {HARD_LIMIT}: {late_early!r} within 1 s, then "
               f"{late_line!r}; slowloris cut after {cut if cut is None else round(cut, 1)} s "
               f"({slow.sent} bytes sent); stream afterwards: {again.status}")
        figure(f"person: {probe.summary()}; frames on stream 1: {len(window)} in {t_end - t_open:.1f} s, gaps "
               f"{min(gaps, default=0):.3f}..{max(gaps, default=0):.3f} s; worst gap on any stream {worst:.3f} s; "
               f"{dropped} streams closed by the server; the panel drew {drawn} frames meanwhile (status.frames)")
        problems = []
        if served != SOFT_LIMIT - 1:
            problems.append(f"{served} of {STREAMS} streams were served beside the slowloris (want {SOFT_LIMIT - 1}: {SOFT_LIMIT} connections)")
        busy = [(i, s.status, (s.code or "")[:80]) for i, s in enumerate(streams[:STREAMS]) if s.status != 200]
        if any(st != 503 or '"busy"' not in code for _, st, code in busy):
            problems.append(f"streams past {SOFT_LIMIT} connections did not all get 503 busy: {busy[:3]}")
        if statuses[:served] != [200] * served:
            problems.append(f"a stream before the limit was refused: {statuses}")
        # Past the hard limit a connection is closed, or waits in the backlog and is served once there is room.
        # Near the bound the idle ones are cut within a second, so the late request may already be
        # answered within the first second: whatever it got must be a 200 or a 503.
        if late_answer != b"" and not (late_answer or b"").startswith((b"HTTP/1.1 200", b"HTTP/1.1 503")):
            problems.append(f"the request past {HARD_LIMIT} connections got {late_answer!r} once room was made (want 200 or 503)")
        if idle_cut < HARD_LIMIT - SOFT_LIMIT:
            problems.append(f"only {idle_cut} of the {HARD_LIMIT - SOFT_LIMIT} taken idle connections were cut (deadline 1 s near the bound)")
        if cut is None or not CUT_S[0] <= cut <= CUT_S[1]:
            problems.append(f"the slowloris was cut after {cut} s (want {CUT_S[0]}..{CUT_S[1]} s; {slow.sent} bytes sent)")
        if again.status != 200:
            problems.append(f"a stream after the load got {again.status}: {again.code}")
        if len(window) < (t_end - t_open) - 2:
            problems.append(f"{len(window)} frame events in {t_end - t_open:.1f} s on stream 1 (a running countdown: one a second)")
        if max(gaps, default=99) > 1 + LATE_S:
            problems.append(f"{max(gaps):.3f} s between two frame events on stream 1: a second late by more than {LATE_S} s "
                            f"or skipped (the panel drew {drawn} frames in {t_end - t_open:.1f} s)")
        if dropped:
            problems.append(f"the server closed {dropped} served streams that kept reading")
        if sock_p99 >= SOCK_P99_MS or len(probe.sock) < 30:
            problems.append(f"control socket round trip p99 {sock_p99:.1f} ms over {len(probe.sock)} samples (bound {SOCK_P99_MS} ms)")
        if ctl_p99 >= CTL_P99_MS:
            problems.append(f"isletctl status p99 {ctl_p99:.0f} ms (bound {CTL_P99_MS} ms, a process start each time)")
        if probe.errors:
            problems.append(f"{len(probe.errors)} status requests failed: {probe.errors[:2]}")
        if not d.running:
            problems.append(f"isletd died (exit {d.proc.returncode})")
        self.assertFalse(problems, "; ".join(problems))


class Handshakes(WebCase):
    """(y) HTTPS on: 20 clients speaking plain HTTP to the TLS port in a loop and 20 handshakes
    left half-finished (a ClientHello's record header and 10 of its bytes), from addresses of
    their own, while a person asks the socket for status: a handshake never blocks the turn
    (the socket's round trip p99 stays under 50 ms; seen once at 1,097 ms on a machine shared
    with qemu guests), and the half-finished ones are cut at the first-request deadline."""
    uses_browser = False

    def test_y_half_finished_handshakes(self):
        import threading
        from streams import connect
        d = self.daemon(password="tls pass", tls=True)
        self.ctl_ok(d, "start", "--seconds", "600")
        probe = Probe(d, interval=0.1).start()
        self.addCleanup(probe.stop)
        stop = threading.Event()
        rounds = [0] * 20

        def plain(i):
            while not stop.is_set():
                try:
                    c = connect(d.port, f"127.0.5.{i + 1}", timeout=2)
                    c.sendall(f"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1:{d.port}\r\n\r\n".encode())
                    c.settimeout(2)
                    try:
                        c.recv(4096)
                    except OSError:
                        pass
                    c.close()
                    rounds[i] += 1
                except OSError:
                    time.sleep(0.05)

        half = []
        self.addCleanup(lambda: [c.close() for c in half])
        for i in range(20):
            c = connect(d.port, f"127.0.6.{i + 1}")
            c.sendall(bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0, 0, 0, 0]))
            c.setblocking(False)
            half.append(c)
        threads = [threading.Thread(target=plain, args=(i,), daemon=True) for i in range(20)]
        for t in threads:
            t.start()
        time.sleep(8)
        stop.set()
        for t in threads:
            t.join(5)
        probe.stop()
        cut = sum(ended(c) for c in half)
        web = d.status()["status"]["web"]
        sock_p99 = Probe.p99(probe.sock) * 1000
        figure(f"HTTPS: {sum(rounds)} plain-HTTP attempts from 20 addresses, 20 half-finished handshakes ({cut} cut by "
               f"8 s); person: {probe.summary()}; refused {web['refused']}")
        self.assertLess(sock_p99, SOCK_P99_MS, f"the socket's round trip p99 {sock_p99:.1f} ms beside the handshakes")
        self.assertGreaterEqual(len(probe.sock), 30, f"only {len(probe.sock)} samples")
        self.assertEqual(cut, 20, f"{cut} of 20 half-finished handshakes were cut within 8 s (deadline 5 s)")
        self.assertFalse(probe.errors, f"status failed: {probe.errors[:2]}")


def cpu_seconds(pid):
    """User and system CPU seconds of a process so far, from /proc/PID/stat (clock ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid):
    """Voluntary and involuntary context switches of every thread of a process so far."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


class StalledHandshake(WebCase):
    """(q) HTTPS on, an idle panel: one client sends the first byte of a TLS record and goes
    quiet, three times in a row (each is cut at the 5 s first-request deadline). The daemon must
    sleep meanwhile: found by the outside probe, libmicrohttpd asked for a run at once for as
    long as the handshake waited, and the loop spun at 93 % of a core."""
    uses_browser = False

    def test_q_a_stalled_handshake_costs_no_cpu(self):
        from streams import connect
        d = self.daemon(password="tls pass", tls=True)
        time.sleep(0.5)
        pid = d.proc.pid
        cpu0, cs0, t0 = cpu_seconds(pid), context_switches(pid), time.monotonic()
        for _ in range(3):
            c = connect(d.port, "127.0.6.1")
            c.sendall(b"\x16")
            time.sleep(2.0)
            c.close()
        elapsed = time.monotonic() - t0
        cpu, switches = cpu_seconds(pid) - cpu0, context_switches(pid) - cs0
        share, rate = cpu / elapsed, switches / elapsed
        figure(f"a TLS handshake stalled after one byte, 3 x 2 s: isletd used {cpu:.2f} s of CPU in {elapsed:.1f} s "
               f"({share * 100:.1f} % of a core), {rate:.0f} wake-ups a second")
        self.assertLess(share, 0.10, f"isletd used {share * 100:.0f} % of a core beside a stalled TLS handshake")
        self.assertLess(rate, 120, f"{rate:.0f} wake-ups a second beside a stalled TLS handshake (pacing: at most 50)")
        r = d.curl("/api/session")
        self.assertEqual(r.status, 200, f"the page after the stalls: {r}")


class PipelinedSources(WebCase):
    """(p) The control socket beside 16 sources pipelining updates to an `until` activity, 64 at
    a time each, for 8 s, while a person asks for status (issue 44 §7: `isletctl status` reached
    p99 780 ms behind them on a loaded machine, 178 ms here, the socket's round trip 110 ms):
    the clients that pipeline share 32 requests a turn, so the person's request waits behind a
    bounded share of theirs. Bounds: the socket's round trip p99 < 50 ms, isletctl's < 250 ms."""
    uses_browser = False

    def test_p_sixteen_sources_and_a_person(self):
        import socket
        import threading
        d = self.daemon()
        self.ctl_ok(d, "start", "--timer", "wash", "--until", "+90", "--title", "Laundry")
        stop = threading.Event()
        answered = [0] * 16

        def source(i):
            s = socket.socket(socket.AF_UNIX)
            s.connect(d.sock)
            line = (json.dumps({"op": "update", "timer": "wash", "progress": 0.5, "text": f"s{i}"}) + "\n").encode()
            try:
                while not stop.is_set():
                    s.sendall(line * 64)
                    got = 0
                    while got < 64:
                        part = s.recv(1 << 20)
                        if not part:
                            return
                        got += part.count(b"\n")
                    answered[i] += 64
            finally:
                s.close()

        threads = [threading.Thread(target=source, args=(i,), daemon=True) for i in range(16)]
        probe = Probe(d, interval=0.1).start()
        self.addCleanup(probe.stop)
        t0 = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(8)
        stop.set()
        probe.stop()
        for t in threads:
            t.join(5)
        elapsed = time.monotonic() - t0
        sock_p99, ctl_p99 = Probe.p99(probe.sock) * 1000, Probe.p99(probe.ctl) * 1000
        figure(f"16 sources pipelining updates: {sum(answered)} answered in {elapsed:.1f} s "
               f"({sum(answered) / elapsed:.0f} a second); person: {probe.summary()}")
        self.assertGreater(sum(answered), 1000, f"the sources were hardly served: {answered}")
        self.assertLess(sock_p99, SOCK_P99_MS, f"the socket's round trip p99 {sock_p99:.1f} ms behind 16 pipelining sources")
        self.assertLess(ctl_p99, CTL_P99_MS, f"isletctl status p99 {ctl_p99:.0f} ms behind 16 pipelining sources")
        self.assertFalse(probe.errors, f"status failed: {probe.errors[:2]}")
