"""What the broker and the daemon fixtures share: a temp dir of their own (removed on close and
at exit unless MQTT_KEEP=1), a log file, and `with` support."""
import os
import shutil
import tempfile

from testkit import reaper


class Fixture:
    """Subclasses call _own(directory, prefix) first, set self.log_path, and define start() and
    kill(); close() kills and removes the dir the fixture made."""

    def _own(self, directory, prefix):
        self._own_dir = directory is None
        self.dir = directory or tempfile.mkdtemp(prefix=prefix)
        if self._own_dir:
            reaper.remove_at_exit(self.dir)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def log_tail(self, n=3000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return "(no log)"

    def close(self):
        self.kill()
        if self._own_dir and not reaper.keep():
            shutil.rmtree(self.dir, ignore_errors=True)
