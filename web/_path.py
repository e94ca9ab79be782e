"""Puts the repository root on sys.path once, so that web/'s files import `testkit.<module>`
(web/run.py, web/screenshots.py, or `python3 -m unittest` from web/)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
