#!/usr/bin/env bash
# The Python venv with Home Assistant that mqtt/ha_validate.py runs in (`make test-mqtt`).
#
# Creates $MQTT_VENV (default: .venv-mqtt at the repo's top) with pip's `homeassistant<2024.4`
# (HA 2024.4 and later need Python 3.12; on 3.11 this is 2024.3.3), or reuses it when it is
# there and imports Home Assistant's MQTT schemas. Prints the venv's path on stdout, the rest
# on stderr. Exit 0: ready; 1: it could not be made, with the reason (pip cannot reach PyPI,
# no venv module, ...).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MQTT_VENV:-$ROOT/.venv-mqtt}"
SPEC="${HA_SPEC:-homeassistant<2024.4}"
PY="${PYTHON:-python3}"
# Pinned versions of the dependencies (pip spends minutes backtracking without them); HA_CONSTRAINTS= turns it off.
CONSTRAINTS="${HA_CONSTRAINTS-$ROOT/mqtt/ha-constraints.txt}"
PROBE='import homeassistant.const as c, homeassistant.components.mqtt.sensor, homeassistant.components.mqtt.button, homeassistant.components.mqtt.number, homeassistant.components.mqtt.text, homeassistant.components.mqtt.image, homeassistant.components.mqtt.switch; print(c.__version__)'

say() { echo "ensure_ha_venv: $*" >&2; }

if [ -x "$VENV/bin/python" ] && version="$("$VENV/bin/python" -c "$PROBE" 2>/dev/null)"; then
  say "reusing $VENV (Home Assistant $version)"
  echo "$VENV"
  exit 0
fi

command -v "$PY" >/dev/null || { say "no $PY on PATH: Home Assistant's schemas need Python 3.11 or later"; exit 1; }
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  say "$PY is $("$PY" -V 2>&1); Home Assistant 2024.3 needs Python 3.11 or later"
  exit 1
fi
if [ -e "$VENV" ]; then
  say "$VENV exists but does not import Home Assistant's MQTT schemas: making it again"
  rm -rf "$VENV"
fi
say "making $VENV with '$SPEC' (pip; a few minutes the first time)"
if ! "$PY" -m venv "$VENV" 2>"$ROOT/.venv-mqtt.log"; then
  say "$PY -m venv failed (on Debian: apt-get install python3-venv): $(tail -n 3 "$ROOT/.venv-mqtt.log")"
  rm -rf "$VENV"
  exit 1
fi
log="$VENV/pip-install.log"
if ! "$VENV/bin/pip" install --disable-pip-version-check --no-input ${CONSTRAINTS:+-c "$CONSTRAINTS"} "$SPEC" >"$log" 2>&1; then
  if grep -qiE 'Failed to establish a new connection|Temporary failure in name resolution|Network is unreachable|Name or service not known|ConnectTimeout|Read timed out|ProxyError|Could not fetch URL|No matching distribution found' "$log"; then
    say "pip cannot reach PyPI (or PyPI has no '$SPEC' for this Python), so Home Assistant's schemas cannot be installed:"
  else
    say "pip install '$SPEC' failed:"
  fi
  { grep -iE '^error|warning: retrying|could not|failed' "$log" || tail -n 6 "$log"; } | tail -n 6 >&2
  say "full log: $log; the venv is removed"
  mv "$log" "$ROOT/.venv-mqtt.log" 2>/dev/null || true
  rm -rf "$VENV"
  exit 1
fi
if ! version="$("$VENV/bin/python" -c "$PROBE" 2>"$ROOT/.venv-mqtt.log")"; then
  say "Home Assistant installed but its MQTT schemas do not import: $(tail -n 3 "$ROOT/.venv-mqtt.log")"
  exit 1
fi
rm -f "$ROOT/.venv-mqtt.log"
say "ready: $VENV (Home Assistant $version)"
echo "$VENV"
