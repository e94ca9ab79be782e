"""What a harness started is ended on every way out: the processes it tracks (mosquitto,
isletd, background mosquitto_sub) are killed, then the registered clean-ups run (temp dirs,
network namespaces), at interpreter exit and on SIGTERM or SIGHUP (then the signal is
re-raised). unittest's own cleanups do this for a case that ends normally; this is for a run
that is cut.

MQTT_KEEP=1 (the name the mqtt/ and web/ harnesses have always used) keeps temp dirs: keep().
"""
import atexit
import os
import shutil
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


def keep():
    """True when temp dirs and logs are to be left for a person to read (MQTT_KEEP=1)."""
    return bool(os.environ.get("MQTT_KEEP"))


def remove_at_exit(directory):
    """Removes `directory` at exit, unless keep()."""
    if not keep():
        on_exit(lambda: shutil.rmtree(directory, ignore_errors=True))


def terminate(proc, timeout=10.0):
    """SIGTERM and wait; SIGKILL when it has not exited within `timeout`. True when it ended
    on the SIGTERM (or had already ended)."""
    if proc.poll() is not None:
        return True
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return False


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
