"""What Debian's mosquitto clients print, read back, and a subscriber in the background.

Messages come back as Message(topic, payload bytes, retained, correlation), read with a -F
format that carries the payload as hex, so any bytes (and empty payloads) survive the trip.
Listener runs mosquitto_sub for as long as a test needs it; testkit.broker.Broker makes them.

Only 127.0.0.1 is ever contacted.
"""
import binascii
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass

from testkit import reaper


@dataclass
class Message:
    topic: str
    payload: bytes
    retained: bool
    correlation: bytes = b""

    @property
    def text(self):
        return self.payload.decode("utf-8", "replace")

    def __repr__(self):
        p = self.payload if len(self.payload) <= 120 else self.payload[:117] + b"..."
        return f"Message({self.topic!r}, {p!r}, retained={self.retained})"


# One message a line: retained flag, topic, payload in hex, correlation data (MQTT 5) in hex.
# Topics here never hold spaces (the fixture's and Islet's topics are our own).
FORMAT = "%r %t %x"
FORMAT_V5 = "%r %t %x %D"


def parse_line(line, v5):
    parts = line.rstrip(b"\n").split(b" ")
    if len(parts) < 2:
        return None
    retained = parts[0] == b"1"
    topic = parts[1].decode("utf-8", "replace")
    payload = binascii.unhexlify(parts[2]) if len(parts) > 2 and parts[2] else b""
    corr = b""
    if v5 and len(parts) > 3:
        # %D prints the raw correlation bytes; ours are printable ASCII without spaces.
        corr = b" ".join(parts[3:])
    return Message(topic, payload, retained, corr)



def is_plain_text(b):
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return "\0" not in s and not s.startswith("-")


class Listener:
    """mosquitto_sub in the background. Returns once the subscription is in force: it also
    subscribes to a sync topic of its own and publishes there until it hears itself, so no
    message published after the constructor returns can be missed."""

    def __init__(self, broker, topics, v5=False, **auth):
        if isinstance(topics, str):
            topics = [topics]
        self.broker, self.v5 = broker, v5
        self.sync = f"islet-test/sync/{uuid.uuid4().hex}"
        args = ["mosquitto_sub", *broker.client_args(v5=v5, **auth), "-F", FORMAT_V5 if v5 else FORMAT]
        for t in topics:
            args += ["-t", t]
        # Last: the broker sends the retained messages of the filters before it routes our sync
        # publish, so once the sync message is back every retained one has arrived.
        args += ["-t", self.sync]
        self.proc = reaper.track(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                  stdin=subprocess.DEVNULL))
        self._messages = []   # (monotonic time received, Message)
        self._lock = threading.Condition()
        self._synced = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._synced:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto_sub exited {self.proc.returncode}: {self.proc.stderr.read().decode(errors='replace')}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError("the background subscriber never heard its own sync message")
            broker.pub(self.sync, "sync", qos=0, **auth)
            with self._lock:
                self._lock.wait_for(lambda: self._synced, timeout=0.2)
        self.t0 = time.monotonic()

    def _read(self):
        for line in self.proc.stdout:
            m = parse_line(line, self.v5)
            if m is None:
                continue
            with self._lock:
                if m.topic == self.sync:
                    self._synced = True
                else:
                    self._messages.append((time.monotonic(), m))
                self._lock.notify_all()

    @property
    def messages(self):
        with self._lock:
            return [m for _, m in self._messages]

    def timed(self):
        """[(seconds since subscribed, Message)]."""
        with self._lock:
            return [(t - self.t0, m) for t, m in self._messages]

    def wait_for(self, pred, timeout=10.0, start=0):
        """Waits until pred(message) holds for a message (from index `start` on); returns it, or None."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for _, m in self._messages[start:]:
                    if pred(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(timeout=min(left, 0.2))

    def wait_count(self, pred, n, timeout=10.0):
        """Waits until n messages satisfy pred; returns them (fewer when the time ran out)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                got = [m for _, m in self._messages if pred(m)]
                left = deadline - time.monotonic()
                if len(got) >= n or left <= 0:
                    return got
                self._lock.wait(timeout=min(left, 0.2))

    def mark(self):
        """The index of the next message: pass it as `start` to wait only for later ones."""
        with self._lock:
            return len(self._messages)

    def since(self, index):
        with self._lock:
            return [m for _, m in self._messages[index:]]

    def stop(self):
        reaper.terminate(self.proc, timeout=5)
        self._thread.join(timeout=2)
        reaper.untrack(self.proc)
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
