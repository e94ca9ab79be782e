#!/bin/sh
# Makes sure .venv-bench holds luma.oled (make bench-compare). Installs from PyPI only when it is
# missing, so later runs are offline. Prints the reason and exits 3 when it cannot install.
VENV=${1:-.venv-bench}
PY=${PYTHON:-python3}
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import luma.oled, luma.core, smbus2, PIL" 2>/dev/null; then
  exit 0
fi
command -v "$PY" >/dev/null 2>&1 || { echo "no $PY on PATH: install python3 and python3-venv"; exit 3; }
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV" || { echo "cannot create $VENV (Debian: apt-get install python3-venv)"; exit 3; }
fi
echo "bench-compare: installing luma.oled into $VENV from PyPI (once)" >&2
"$VENV/bin/pip" install -q --disable-pip-version-check luma.oled || {
  echo "cannot install luma.oled from PyPI (offline or PyPI unreachable)"; exit 3; }
"$VENV/bin/python" -c "import luma.oled, luma.core, smbus2, PIL" || { echo "luma.oled installed but does not import"; exit 3; }
