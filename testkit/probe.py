"""A person at the control socket while something heavy runs: Probe samples `isletctl status`
(a process start each time) and the socket's own round trip in a thread; CTL_P99_MS is the
bound the mqtt/ and web/ load cases hold isletctl's p99 to."""
import threading
import time

# A person at the socket is served: the defect was a 10 s timeout. `isletctl status` is a process
# start each time, whose p99 on a loaded 2-core CI machine reached 56 ms with the daemon idle
# between samples, so its bound is 250 ms (40 times under the defect).
CTL_P99_MS = 250


# `sock_interval`: the socket's own round trip sampled in a thread of its own that often. An MQTT
# flood lasts 2-3 s, and at the isletctl pace (a process start, then 0.1 s) that is ~19 samples,
# whose "p99" is the single worst one: one scheduling stall on a CI machine that shares its 2
# cores with a TCG guest (135 ms, once) failed a run; mqtt/test_untrusted samples every 20 ms.
# Without it (the web load cases: 8 s each, ~60 samples) the socket is sampled right after each
# isletctl status, in the same thread.
class Probe:
    """Samples `isletctl status` (a person at the socket) every `interval` s in a thread until
    stop(): latencies in seconds; and the control socket's own round trip, after each of those or,
    with `sock_interval`, in a second thread that often."""

    def __init__(self, daemon, interval=0.1, sock_interval=None):
        self.d, self.interval, self.sock_interval = daemon, interval, sock_interval
        self.ctl, self.sock, self.errors = [], [], []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True)]
        if sock_interval is not None:
            self._threads.append(threading.Thread(target=self._run_sock, daemon=True))

    def start(self):
        for t in self._threads:
            t.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                r = self.d.ctl("status", timeout=10)
                if r.returncode != 0:
                    self.errors.append(f"isletctl status exited {r.returncode}")
                self.ctl.append(time.monotonic() - t0)
                if self.sock_interval is None:
                    t1 = time.monotonic()
                    self.d.request({"op": "status"}, timeout=10)
                    self.sock.append(time.monotonic() - t1)
            except Exception as e:   # a dead or silent daemon: a sample as slow as the timeout
                self.errors.append(str(e)[:100])
                self.ctl.append(time.monotonic() - t0)
            self._stop.wait(self.interval)

    def _run_sock(self):
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                self.d.request({"op": "status"}, timeout=10)
            except Exception as e:
                self.errors.append(str(e)[:100])
            self.sock.append(time.monotonic() - t0)
            self._stop.wait(self.sock_interval)

    def stop(self):
        self._stop.set()
        for t in self._threads:
            t.join(timeout=30)
        return self

    @staticmethod
    def p99(xs):
        if not xs:
            return float("inf")
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(round(0.99 * (len(xs) - 1))))]

    def summary(self):
        return (f"isletctl status p99 {self.p99(self.ctl) * 1000:.0f} ms, max {max(self.ctl or [0]) * 1000:.0f} ms "
                f"over {len(self.ctl)} samples (socket round trip p99 {self.p99(self.sock) * 1000:.1f} ms, "
                f"max {max(self.sock or [0]) * 1000:.1f} ms over {len(self.sock)})"
                + (f"; {len(self.errors)} errors, first: {self.errors[0]}" if self.errors else ""))

