"""Raw HTTP clients on plain sockets for the load cases: Server-Sent Event streams read by one
thread, a slowloris, idle connections. Only 127.0.0.1 is ever contacted (from other loopback
source addresses where a case needs several clients)."""
import selectors
import socket
import threading
import time

HOST = "127.0.0.1"


class Stream:
    """GET /api/events on its own connection: the answer's status, then (chunked) events with
    the monotonic time each one was whole."""

    def __init__(self, port, timeout=3.0, source=None):
        self.sock = connect(port, source, timeout)
        self.sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.raw, self.body, self.events = b"", b"", []
        self.status, self.code, self.chunked, self.closed = 0, None, False, False
        self._state, self._need = "size", 0
        head = b""
        while b"\r\n\r\n" not in head:
            part = self.sock.recv(65536)
            if not part:
                self.closed = True
                break
            head += part
        head, _, rest = head.partition(b"\r\n\r\n")
        lines = head.decode(errors="replace").split("\r\n")
        if lines[0].startswith("HTTP/"):
            self.status = int(lines[0].split()[1])
        self.chunked = any(ln.lower().replace(" ", "") == "transfer-encoding:chunked" for ln in lines[1:])
        if self.status != 200:
            self.code = rest.decode(errors="replace")
        else:
            self.sock.setblocking(False)
            self.feed(rest, time.monotonic())

    def feed(self, data, now):
        self.raw += data
        if not self.chunked:
            self.body, self.raw = self.body + self.raw, b""
        while self.chunked:
            if self._state == "size":
                line, sep, rest = self.raw.partition(b"\r\n")
                if not sep:
                    break
                self._need, self.raw = int(line.split(b";")[0], 16), rest
                self._state = "data" if self._need else "end"
            elif self._state == "data":
                take = self.raw[:self._need]
                self.body, self.raw, self._need = self.body + take, self.raw[len(take):], self._need - len(take)
                if self._need:
                    break
                self._state = "crlf"
            elif self._state == "crlf":
                if len(self.raw) < 2:
                    break
                self.raw, self._state = self.raw[2:], "size"
            else:
                break
        while b"\n\n" in self.body:
            event, _, self.body = self.body.partition(b"\n\n")
            name = next((ln[7:].strip() for ln in event.decode(errors="replace").split("\n") if ln.startswith("event: ")), "")
            self.events.append((name, now))

    def times(self, name):
        return [t for n, t in self.events if n == name]

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Background:
    """A thread running self._run until stop() sets self._stop."""

    def __init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=10)


class Readers(Background):
    """One thread that reads every open stream until stop()."""

    def __init__(self, streams):
        super().__init__()
        self.streams = [s for s in streams if s.status == 200]

    def _run(self):
        sel = selectors.DefaultSelector()
        for s in self.streams:
            sel.register(s.sock, selectors.EVENT_READ, s)
        while not self._stop.is_set() and sel.get_map():
            for key, _ in sel.select(timeout=0.1):
                s = key.data
                try:
                    data = s.sock.recv(262144)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    s.closed = True
                    sel.unregister(s.sock)
                    continue
                s.feed(data, time.monotonic())
        sel.close()


class Slowloris(Background):
    """Sends a request one byte every `every` s; `cut_after` is the seconds from its connect to
    the server's end of it (None while it is open)."""

    def __init__(self, port, every=2.0, source=None):
        super().__init__()
        self.port, self.every, self.cut_after, self.sent, self.source = port, every, None, 0, source
        self.request = f"GET /api/session HTTP/1.1\r\nHost: {HOST}:{port}\r\nUser-Agent: slowloris\r\nX-Pad: {'a' * 40}\r\n\r\n".encode()

    def start(self):
        self.sock = connect(self.port, self.source)
        self.t0 = time.monotonic()
        return super().start()

    def _run(self):
        s = self.sock
        while not self._stop.is_set() and self.sent < len(self.request):
            try:
                s.sendall(self.request[self.sent:self.sent + 1])
                self.sent += 1
                s.settimeout(self.every)
                if s.recv(4096) == b"":   # an answer or the end: the server is done with it
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        if not self._stop.is_set():
            self.cut_after = time.monotonic() - self.t0
        s.close()

    def wait(self, timeout):
        self._thread.join(timeout)
        return self.cut_after


def connect(port, source=None, timeout=3.0):
    """A connection to the page from `source`, another loopback address (127.0.0.2…): the
    page counts connections and requests per client address, and every address of
    127.0.0.0/8 is this machine."""
    return socket.create_connection((HOST, port), timeout=timeout, source_address=(source, 0) if source else None)


def idle(port, n, source=None):
    """n connections that send nothing (fewer when the server closes one as it is accepted;
    the ones it refused at connect are left out)."""
    out = []
    for _ in range(n):
        try:
            c = connect(port, source)
        except OSError:
            continue
        c.setblocking(False)
        out.append(c)
    return out


def ended(conn):
    """Whether the server has closed `conn` (non-blocking)."""
    try:
        return conn.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def asking(port, path, source=None):
    """A connection that has sent a whole GET of `path` (non-blocking)."""
    c = connect(port, source)
    c.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
    c.setblocking(False)
    return c


def answer(conn, wait=0.0):
    """What the server has sent on `conn` within `wait` s: bytes, b"" when it closed the
    connection without a word, None when nothing came."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return conn.recv(65536)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)
        except OSError:
            return b""
