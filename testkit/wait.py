"""Waiting for things on loopback: a condition, a TCP port that accepts, a free port.

Only 127.0.0.1 is ever contacted unless a caller names another host.
"""
import socket
import time

HOST = "127.0.0.1"


def wait_until(what, pred, timeout=15.0, interval=0.05):
    """Polls pred() until it returns something true; returns it. Fails naming `what`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout} s (last: {last!r})")


def elapsed_until(pred, timeout, interval=0.01, since=None):
    """Seconds from `since` (default now) until pred() holds, or None when `timeout` passes."""
    t0 = time.monotonic() if since is None else since
    while True:
        if pred():
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            return None
        time.sleep(interval)


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10.0, host=HOST):
    """Waits until host:port accepts a TCP connection; returns the seconds it took."""
    t0 = time.monotonic()
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return time.monotonic() - t0
        except OSError:
            if time.monotonic() - t0 > timeout:
                raise TimeoutError(f"nothing accepts on {host}:{port} after {timeout} s")
            time.sleep(0.02)


def port_closed(port, host=HOST):
    """True when nothing accepts on host:port now."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return False
    except OSError:
        return True
