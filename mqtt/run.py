#!/usr/bin/env python3
"""`make test-mqtt`: runs every mqtt/test_*.py (unittest, verbose) and closes with one line
"test-mqtt: N passed, N failed, N skipped". Arguments are unittest's (-k PATTERN, -f, ...).
Exit 0 only when every case ran and passed (a skip is printed with its reason, and counted).
The runner is testkit/runner.py's, shared with web/run.py."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _path  # noqa: E402,F401  (the repository root on sys.path)
from testkit import runner  # noqa: E402

if __name__ == "__main__":
    sys.exit(runner.main("test-mqtt", HERE, sys.argv[1:]))
