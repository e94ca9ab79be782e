#!/usr/bin/env python3
"""`make test-web`: every web/test_*.py (unittest, verbose), each case's seconds, and a closing
line "N passed, M failed". `-k PATTERN` (repeatable) runs the cases whose names contain it.
Exit 0 only when cases ran and every one passed; a case that cannot run (a skip) is a failure."""
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class TimedResult(unittest.TextTestResult):
    """Remembers how long each case took, for the summary."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seconds = []

    def startTest(self, test):
        self._t0 = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        self.seconds.append((test.id(), time.monotonic() - self._t0))
        super().stopTest(test)


def main(argv):
    sys.path.insert(0, HERE)
    loader = unittest.TestLoader()
    patterns = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-k"]
    if patterns:
        loader.testNamePatterns = [f"*{p}*" for p in patterns]
    t0 = time.monotonic()
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, resultclass=TimedResult).run(suite)
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses) + len(result.skipped)
    passed = result.testsRun - bad - len(result.expectedFailures)
    for name, seconds in result.seconds:
        print(f"test-web: {seconds:5.1f} s  {name}")
    for test, why in result.skipped:
        print(f"test-web: could not run {test.id()}: {why}")
    print(f"test-web: {time.monotonic() - t0:.0f} s in all")
    print(f"{passed} passed, {bad} failed")
    return 0 if bad == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
