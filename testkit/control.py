"""isletd's control socket from Python: JSON Lines over a Unix socket, one request a line and
one answer a line (docs/DAEMON.md).

    request(path, {"op": "status"}, timeout=5.0) -> the answer, parsed
    status(path) -> request(path, {"op": "status"})

For a harness that must do something between sending and reading (kill the daemon while it
writes): connect(path), send(sock, obj), read_answer(sock) (or read_line for the raw bytes).
A closed connection before the newline is an OSError; an answer that is not JSON a ValueError.
"""
import json
import socket


def connect(path, timeout=5.0):
    """A connected socket to the daemon at `path`, with `timeout` on every operation."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
    except BaseException:
        s.close()
        raise
    return s


def send(sock, obj):
    """One request line."""
    sock.sendall((json.dumps(obj) + "\n").encode())


def read_line(sock):
    """Bytes up to and including the first newline (the daemon answers one line a request)."""
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            raise OSError("the daemon closed the connection")
        buf += chunk
    return buf


def read_answer(sock):
    return json.loads(read_line(sock))


def request(path, obj, timeout=5.0):
    """One request on its own connection; the answer parsed."""
    s = connect(path, timeout)
    try:
        send(s, obj)
        return read_answer(s)
    finally:
        s.close()


def status(path, timeout=5.0):
    """The daemon's `status` answer ({"ok": true, "status": {...}, "activities": [...]})."""
    return request(path, {"op": "status"}, timeout)
