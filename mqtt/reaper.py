"""What the harness started is ended on every way out: the processes it tracks (mosquitto,
isletd, background mosquitto_sub) are killed, then the registered clean-ups run (the network
namespaces), at interpreter exit and on SIGTERM or SIGHUP (then the signal is re-raised).
unittest's own cleanups do this for a case that ends normally; this is for a run that is cut."""
import atexit
import os
import signal
import subprocess

_procs = []
_cleanups = []


def track(proc):
    _procs.append(proc)
    return proc


def untrack(proc):
    if proc in _procs:
        _procs.remove(proc)


def on_exit(fn):
    _cleanups.append(fn)


def reap():
    while _procs:
        p = _procs.pop()
        if p.poll() is None:
            try:
                p.kill()
                p.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
    for fn in list(_cleanups):
        try:
            fn()
        except Exception:  # noqa: BLE001 - the rest must still run
            pass


def _on_signal(signum, frame):
    reap()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


atexit.register(reap)
for _sig in (signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_sig) in (signal.SIG_DFL, None):
        signal.signal(_sig, _on_signal)
