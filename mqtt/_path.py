"""Puts the repository root on sys.path once, so that mqtt/'s files import `testkit.<module>`
however they are run (mqtt/run.py, `python3 -m unittest` from mqtt/, or discover -s mqtt)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
