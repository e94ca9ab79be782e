#!/usr/bin/env python3
"""`make test-mqtt`: runs every mqtt/test_*.py (unittest, verbose) and closes with one line
"test-mqtt: N passed, N failed, N skipped". Arguments are unittest's (-k PATTERN, -f, ...).
Exit 0 only when every case ran and passed (a skip is printed with its reason, and counted)."""
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    sys.path.insert(0, HERE)
    t0 = time.monotonic()
    prog = unittest.main(module=None, argv=["test-mqtt", "discover", "-s", HERE, "-t", HERE, "-p", "test_*.py", "-v",
                                            *argv], exit=False)
    r = prog.result
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    skipped = len(r.skipped)
    passed = r.testsRun - failed - skipped - len(r.expectedFailures)
    for test, why in r.skipped:
        print(f"test-mqtt: skipped {test.id()}: {why}")
    print(f"test-mqtt: {time.monotonic() - t0:.0f} s")
    print(f"test-mqtt: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and r.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
