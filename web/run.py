#!/usr/bin/env python3
"""`make test-web`: every web/test_*.py (unittest, verbose), each case's seconds, and a closing
line "N passed, M failed". `-k PATTERN` (repeatable) runs the cases whose names contain it.
Exit 0 only when cases ran and every one passed; a case that cannot run (a skip) is a failure.
The runner is testkit/runner.py's, shared with mqtt/run.py."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _path  # noqa: E402,F401  (the repository root on sys.path)
from testkit import runner  # noqa: E402

if __name__ == "__main__":
    sys.exit(runner.main("test-web", HERE, sys.argv[1:], skips_fail=True))
