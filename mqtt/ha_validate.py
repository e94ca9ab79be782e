"""Checks MQTT discovery payloads with Home Assistant's own schemas (run it in the venv that
mqtt/ensure_ha_venv.sh makes).

Reads the retained discovery configs from a broker (mosquitto_sub -v -W N --retained-only
-t '<prefix>/#'), or {topic: payload} from a JSON file, and for each config topic does what
Home Assistant's MQTT discovery does before it makes an entity
(homeassistant/components/mqtt/discovery.py): matches the topic, parses the JSON, expands the
abbreviated keys (abbreviations.py: the payload's, the device's, the origin's and each
availability entry's, then the `~` topic base), and validates the result with
homeassistant.components.mqtt.<component>.DISCOVERY_SCHEMA.

Those schemas drop keys they do not know (vol.REMOVE_EXTRA) without a word, so a misspelt key
would pass them; this reports each dropped key, and counts it as a failure unless it is
allowed with --allow-ignored COMPONENT:KEY (for a key a newer Home Assistant reads).
Also checked: unique_id is unique, and the payload is a JSON object.

Usage:
  ha_validate.py --port 1883 [--host 127.0.0.1] [--prefix homeassistant] [--wait 2]
  ha_validate.py --file payloads.json
Options: --json (a report on stdout), --allow-ignored sensor:options (repeatable),
         --components sensor,button,number,text,image,switch (the ones accepted; others are failures).
Exit: 0 every config valid, 1 some invalid, 2 nothing to check or bad usage.
"""
import argparse
import copy
import importlib
import json
import subprocess
import sys

try:
    import voluptuous as vol
    from voluptuous.humanize import humanize_error
    from homeassistant.components.mqtt import discovery as ha_discovery
    from homeassistant.components.mqtt.abbreviations import (ABBREVIATIONS, DEVICE_ABBREVIATIONS,
                                                              ORIGIN_ABBREVIATIONS)
    from homeassistant.const import __version__ as HA_VERSION
    from homeassistant.helpers import config_validation as cv
except ImportError as e:  # pragma: no cover - a message for a person
    sys.exit(f"ha_validate: Home Assistant is not importable here ({e}); run it with the venv's python "
             f"(mqtt/ensure_ha_venv.sh prints where it is)")

DEFAULT_COMPONENTS = ("sensor", "button", "number", "text", "image", "switch")


def expand(payload):
    """The payload with its keys expanded as Home Assistant's discovery expands them."""
    p = {ABBREVIATIONS.get(k, k): v for k, v in payload.items()}
    if isinstance(p.get("device"), dict):
        p["device"] = {DEVICE_ABBREVIATIONS.get(k, k): v for k, v in p["device"].items()}
    if isinstance(p.get("origin"), dict):
        p["origin"] = {ORIGIN_ABBREVIATIONS.get(k, k): v for k, v in p["origin"].items()}
        ha_discovery.MQTT_ORIGIN_INFO_SCHEMA(p["origin"])
    if "availability" in p:
        entries = []
        for a in cv.ensure_list(p["availability"]):
            entries.append({ABBREVIATIONS.get(k, k): v for k, v in a.items()} if isinstance(a, dict) else a)
        p["availability"] = entries if isinstance(p["availability"], list) else entries[0]
    base_key = ha_discovery.TOPIC_BASE
    if base_key in p:
        base = p.pop(base_key)
        for k, v in list(p.items()):
            if isinstance(v, str) and v and k.endswith("topic"):
                if v[0] == base_key:
                    p[k] = f"{base}{v[1:]}"
                if v[-1] == base_key:
                    p[k] = f"{v[:-1]}{base}"
        for a in cv.ensure_list(p.get("availability") or []):
            if isinstance(a, dict) and isinstance(a.get("topic"), str) and a["topic"]:
                t = a["topic"]
                if t[0] == base_key:
                    a["topic"] = f"{base}{t[1:]}"
                if t[-1] == base_key:
                    a["topic"] = f"{t[:-1]}{base}"
    return p


def dropped_keys(given, validated, path=""):
    """Keys of `given` that the schema left out of `validated` (recursively for dicts)."""
    out = []
    for k, v in given.items():
        if k not in validated:
            out.append(path + k)
        elif isinstance(v, dict) and isinstance(validated[k], dict):
            out += dropped_keys(v, validated[k], f"{path}{k}.")
    return out


def check(topic, raw, prefix, components, allowed_ignored):
    """One config message: a dict with topic, component, ok, errors, ignored."""
    r = {"topic": topic, "component": None, "ok": False, "errors": [], "ignored": [], "removal": False}
    trimmed = topic.replace(f"{prefix}/", "", 1)
    match = ha_discovery.TOPIC_MATCHER.match(trimmed)
    if not match or not topic.startswith(prefix + "/"):
        r["errors"].append("not a discovery config topic Home Assistant accepts (its TOPIC_MATCHER)")
        return r
    component, node_id, object_id = match.groups()
    r.update(component=component, node_id=node_id, object_id=object_id)
    if component not in ha_discovery.SUPPORTED_COMPONENTS:
        r["errors"].append(f"Home Assistant {HA_VERSION} has no MQTT component {component!r}")
        return r
    if component not in components:
        r["errors"].append(f"component {component!r} is not one this check accepts ({', '.join(components)})")
        return r
    if not raw:
        r.update(ok=True, removal=True)
        return r
    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        r["errors"].append(f"the payload is not JSON: {e}")
        return r
    if not isinstance(payload, dict):
        r["errors"].append(f"the payload is JSON but not an object ({type(payload).__name__})")
        return r
    try:
        expanded = expand(payload)
    except vol.Invalid as e:
        r["errors"].append(f"origin: {e}")
        return r
    schema = importlib.import_module(f"homeassistant.components.mqtt.{component}").DISCOVERY_SCHEMA
    try:
        validated = schema(copy.deepcopy(expanded))
    except vol.Invalid as e:
        r["errors"].append(humanize_error(expanded, e))
        return r
    r["unique_id"] = validated.get("unique_id")
    for k in dropped_keys(expanded, validated):
        r["ignored"].append(k)
        if f"{component}:{k}" not in allowed_ignored:
            r["errors"].append(f"key {k!r} is not in Home Assistant {HA_VERSION}'s {component} schema: "
                               f"it would be dropped without a word")
    r["ok"] = not r["errors"]
    return r


def from_broker(host, port, prefix, wait, user=None, password=None):
    args = ["mosquitto_sub", "-h", host, "-p", str(port), "-v", "-W", str(wait), "--retained-only",
            "-t", f"{prefix}/#"]
    if user:
        args += ["-u", user] + (["-P", password] if password else [])
    r = subprocess.run(args, capture_output=True, timeout=wait + 15)
    if r.returncode not in (0, 27):   # 27: the -W timeout, the normal end of a retained read
        sys.exit(f"ha_validate: mosquitto_sub exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    out = {}
    for line in r.stdout.decode("utf-8", "surrogateescape").split("\n"):
        if not line:
            continue
        topic, _, payload = line.partition(" ")
        out[topic] = payload.encode("utf-8", "surrogateescape")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int)
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--prefix", default="homeassistant")
    ap.add_argument("--wait", type=int, default=2)
    ap.add_argument("--file")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--allow-ignored", action="append", default=[])
    ap.add_argument("--components", default=",".join(DEFAULT_COMPONENTS))
    a = ap.parse_args(argv)
    if (a.port is None) == (a.file is None):
        ap.error("give --port (read a broker) or --file (a JSON object of topic: payload)")
    if a.file:
        with open(a.file) as f:
            data = json.load(f)
        messages = {t: (p if isinstance(p, str) else json.dumps(p)).encode() for t, p in data.items()}
    else:
        messages = from_broker(a.host, a.port, a.prefix, a.wait, a.user, a.password)
    components = tuple(c for c in a.components.split(",") if c)
    allowed = set(a.allow_ignored)
    results = [check(t, p, a.prefix, components, allowed) for t, p in sorted(messages.items())
               if t.endswith("/config")]
    seen = {}
    for r in results:
        uid = r.get("unique_id")
        if uid is not None:
            if uid in seen:
                r["errors"].append(f"unique_id {uid!r} is also used by {seen[uid]}")
                r["ok"] = False
            seen[uid] = r["topic"]
    configs = [r for r in results if not r["removal"]]
    valid = sum(r["ok"] for r in configs)
    if a.json:
        print(json.dumps({"home_assistant": HA_VERSION, "results": results, "valid": valid,
                          "invalid": len(configs) - valid}, indent=1))
    else:
        for r in results:
            state = "removal" if r["removal"] else ("valid" if r["ok"] else "INVALID")
            extra = f" (ignored, allowed: {', '.join(r['ignored'])})" if r["ignored"] and r["ok"] else ""
            print(f"{state:8} {r['topic']}{extra}")
            for e in r["errors"]:
                print(f"         {e}")
        print(f"ha_validate: Home Assistant {HA_VERSION}: {valid} valid, {len(configs) - valid} invalid "
              f"discovery configs")
    if not configs:
        print("ha_validate: no discovery config to check", file=sys.stderr)
        return 2
    return 0 if valid == len(configs) else 1


if __name__ == "__main__":
    sys.exit(main())
