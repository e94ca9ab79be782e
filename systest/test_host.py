"""The host side's pieces that must match what the shell version did (no VM): the cache key's hash
(a changed hash rebuilds the images: minutes), tail, and how steps.tsv lines are printed."""
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from host.common import hash_of, tail  # noqa: E402
from host.qemu import Steps, shell_words  # noqa: E402

# The shell version's hash_of, verbatim: the reference for the keys of the images in the cache.
SHELL_HASH_OF = r'''
for a in "$@"; do
    if [ -f "$a" ]; then printf 'file %s\n' "${a##*/}"; sha256sum < "$a"
    else printf 'text %s\n' "$a"; fi
done | sha256sum | cut -c1-16
'''


class HostTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name, data):
        p = os.path.join(self.dir.name, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_hash_of_is_the_shell_pipelines(self):
        script = self.path("build-image.sh", b"#!/bin/sh\necho \xc3\xa9\n")
        args = ["trixie", "6.12.117+deb13-amd64", "linux-headers-x 1.0\nlinux-source-6.12 ", "", script,
                "systemd:\n Candidate: 257 python3:\n Candidate: 3.13 ", os.path.join(self.dir.name, "missing")]
        shell = subprocess.run(["bash", "-c", SHELL_HASH_OF, "bash", *args], capture_output=True, text=True, check=True)
        self.assertEqual(hash_of(*args), shell.stdout.strip())

    def test_tail_is_tail(self):
        for data in (b"", b"a\n", b"a\nb", b"".join(b"%d\n" % i for i in range(100)), b"x\r\ny\n\n"):
            p = self.path("f", data)
            for n in (1, 3, 60):
                want = subprocess.run(["tail", "-n", str(n), p], capture_output=True, check=True).stdout
                self.assertEqual(tail(p, n), want, (data, n))

    def test_steps_print_complete_lines_once(self):
        p = self.path("steps.tsv", b"PASS\tsetup\t17.1\t\nFAIL\tb-bus-frame\t2.0\tframe differs\tmore\nSKIP\tc")
        steps, out = Steps(p), io.StringIO()
        with redirect_stdout(out):
            steps.print_new()
            steps.print_new()
        self.assertEqual(out.getvalue(), "PASS setup (17.1 s)\nFAIL b-bus-frame (2.0 s): frame differs\tmore\n")

    def test_shell_words_as_printf_q(self):
        self.assertEqual(shell_words(["qemu", "user,id=net0", "a b", "x=1:2"]), r"qemu user\,id=net0 a\ b x=1:2 ")


if __name__ == "__main__":
    unittest.main()
