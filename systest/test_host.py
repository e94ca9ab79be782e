"""The host side's pieces that must match what the shell version did (no VM): the cache key's hash
(a changed hash rebuilds the images: minutes), tail, and how steps.tsv lines are printed."""
import io
import os
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from contextlib import redirect_stdout

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from host import common  # noqa: E402
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

    def test_a_cache_entry_that_changed_is_built_again(self):
        """A cache entry is trusted only while its files match the manifest written when it was
        built: a damaged file, a missing manifest or a file gone means a new build."""
        cache, saved = os.path.join(self.dir.name, "cache"), common.CACHE
        common.CACHE = cache
        self.addCleanup(setattr, common, "CACHE", saved)
        count = self.path("builds", b"")
        builder = ["sh", "-c", 'echo built >> "$1" && mkdir "$2/sub" && echo good > "$2/sub/f"', "sh", count]
        builds = lambda: open(count).read().count("built")  # noqa: E731
        with redirect_stdout(io.StringIO()), open(os.devnull, "w") as null, \
                unittest.mock.patch("sys.stderr", null):
            d = common.cached("thing", "0123456789abcdef", builder)
            self.assertEqual((builds(), open(f"{d}/sub/f").read()), (1, "good\n"))
            common.cached("thing", "0123456789abcdef", builder)
            self.assertEqual(builds(), 1)
            for damage in (lambda: open(f"{d}/sub/f", "w").write("bad\n"), lambda: os.remove(f"{d}/{common.MANIFEST}"),
                           lambda: os.remove(f"{d}/sub/f")):
                damage()
                d = common.cached("thing", "0123456789abcdef", builder)
                self.assertEqual(open(f"{d}/sub/f").read(), "good\n")
            self.assertEqual(builds(), 4)

    def test_shell_words_as_printf_q(self):
        self.assertEqual(shell_words(["qemu", "user,id=net0", "a b", "x=1:2"]), r"qemu user\,id=net0 a\ b x=1:2 ")

class FlagTests(unittest.TestCase):
    """run.py's and pi.py's flags: a value flag takes the next word, a bool flag none, and a
    missing value or an unknown word stops with the flag named."""

    def parse(self, argv):
        return common.parse_flags(argv, {"deb": "", "keep": False}, {"--deb": "a .deb file"}, "doc\n", "prog")

    def stops(self, argv):
        out = io.StringIO()
        with self.assertRaises(SystemExit), unittest.mock.patch("sys.stderr", out), redirect_stdout(out):
            self.parse(argv)
        return out.getvalue()

    def test_values_and_bools(self):
        self.assertEqual(self.parse(["--keep", "--deb", "x.deb"]), {"deb": "x.deb", "keep": True})
        self.assertEqual(self.parse([]), {"deb": "", "keep": False})

    def test_a_missing_value_names_what_it_takes(self):
        self.assertIn("--deb needs a .deb file", self.stops(["--deb"]))
        self.assertIn("--deb needs a .deb file", self.stops(["--deb", ""]))

    def test_an_unknown_word_names_itself_and_the_program(self):
        self.assertIn("unknown argument --debs (see prog --help)", self.stops(["--debs", "x"]))
        # A value flag's name is not a bool flag: --deb without "=" never turns it into True.
        self.assertIn("unknown argument --deb=x", self.stops(["--deb=x"]))



if __name__ == "__main__":
    unittest.main()
