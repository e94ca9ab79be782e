"""The runner of the unittest harnesses (`make test-mqtt`, `make test-web`): discovers every
test_*.py in a folder, runs them verbosely, and closes with the harness's summary line.
Arguments are unittest's (-k PATTERN, -f, ...).

Two policies, as the harnesses have always had them:
- mqtt: a skip is printed with its reason and counted apart ("N passed, N failed, N skipped");
- web (skips_fail=True): a case that cannot run is a failure, and each case's seconds are listed
  ("N passed, M failed").
Exit 0 only when cases ran and none failed.
"""
import sys
import time
import unittest


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


class TimedRunner(unittest.TextTestRunner):
    resultclass = TimedResult


def main(name, here, argv, skips_fail=False):
    """Runs the cases under `here` (put on sys.path, as the test files import their neighbours);
    returns the exit status."""
    if here not in sys.path:
        sys.path.insert(0, here)
    t0 = time.monotonic()
    prog = unittest.main(module=None, argv=[name, "discover", "-s", here, "-t", here, "-p", "test_*.py", "-v", *argv],
                         testRunner=TimedRunner, exit=False)
    r = prog.result
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    skipped = len(r.skipped)
    passed = r.testsRun - failed - skipped - len(r.expectedFailures)
    took = time.monotonic() - t0
    if skips_fail:
        for test, seconds in r.seconds:
            print(f"{name}: {seconds:5.1f} s  {test}")
        for test, why in r.skipped:
            print(f"{name}: could not run {test.id()}: {why}")
        print(f"{name}: {took:.0f} s in all")
        print(f"{passed} passed, {failed + skipped} failed")
        return 0 if failed + skipped == 0 and r.testsRun > 0 else 1
    for test, why in r.skipped:
        print(f"{name}: skipped {test.id()}: {why}")
    print(f"{name}: {took:.0f} s")
    print(f"{name}: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and r.testsRun > 0 else 1


def failed(case):
    """True when `case` has failed or errored so far: a cleanup asks it to print a daemon's log
    (unittest has no "did it fail" hook)."""
    result = getattr(getattr(case, "_outcome", None), "result", None)
    return bool(result) and any(t is case for t, _ in result.failures + result.errors)
