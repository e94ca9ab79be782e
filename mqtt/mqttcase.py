"""The bases of the mqtt/ test cases (not a test file itself).

MQTTCase: a fresh broker per case and daemons on it (the bridge's own tests); BrokerCase: the
same with a client id prefix and one call for a connected daemon (test_ha, test_image). The
broker and the daemon are testkit's (testkit/broker.py, testkit/daemon.py). figure() prints a
measured figure and keeps it for the summary a module prints when it ends (tearDownModule).
Slow cases (a wait the behaviour needs) have "slow" in their name; MQTT_SKIP_SLOW=1 skips them
through @slow, and says so.
"""
import json
import os
import time
import unittest

import _path  # noqa: F401  (the repository root on sys.path)
from testkit.broker import Broker, missing_tools
from testkit.daemon import Daemon, SetupError, binaries, require_mqtt_support
from testkit.runner import failed

FIGURES = []
SKIP_SLOW = os.environ.get("MQTT_SKIP_SLOW") == "1"
slow = unittest.skipIf(SKIP_SLOW, "slow case skipped because MQTT_SKIP_SLOW=1")
_ids = iter(range(1, 100_000))


def next_id():
    """A number no other case of this run has had (client ids, group names, file names)."""
    return next(_ids)


def figure(text):
    FIGURES.append(text)
    print(f"\n    figure: {text}", flush=True)


def require(who="make test-mqtt", paho=False):
    """What a module's setUpModule checks: mosquitto and its clients, openssl, the binaries and
    their [mqtt] support, and with paho the attacker's python3-paho-mqtt."""
    missing = missing_tools()
    if missing:
        raise SetupError(f"{who} needs Debian's mosquitto and mosquitto-clients, and openssl; missing: "
                         f"{', '.join(missing)} (apt-get install mosquitto mosquitto-clients openssl)")
    if paho:
        import attacker
        why = attacker.missing_paho()
        if why:
            raise SetupError(f"{who} needs python3-paho-mqtt (apt-get install python3-paho-mqtt): {why}")
    binaries()
    require_mqtt_support()


def tearDownModule():
    """The figures the module's cases measured, again in one list."""
    if FIGURES:
        print("\nmqtt figures:\n" + "\n".join(f"  {f}" for f in FIGURES), flush=True)
        FIGURES.clear()


def payload_json(m):
    """The activity a message carries (None for an empty payload: a cleared retained one)."""
    return json.loads(m.payload) if m.payload else None


# The parts of an activity that do not move with the clock between two reports of it.
def stable(a):
    return {k: v for k, v in a.items() if k not in ("remaining_seconds", "elapsed_seconds", "shown")}


def stale(a):
    """An activity shown as stale (a synced display's group state it cannot vouch for)."""
    return bool((a.get("content") or {}).get("stale", a.get("stale")))


class BrokerCase(unittest.TestCase):
    """A fresh broker per case; `daemon()` starts an isletd on it, cleaned up whatever happens."""

    broker_options = {}
    client_prefix = "t"

    def setUp(self):
        self.broker = Broker(**self.broker_options)
        self.addCleanup(self.broker.close)
        self.broker.start()

    def daemon(self, extra="", **mqtt):
        settings = {"url": self.broker.url, "client_id": f"{self.client_prefix}{os.getpid()}x{next_id()}"}
        settings.update(mqtt)
        d = Daemon(settings, extra=extra)
        self.addCleanup(d.close)
        d.start()
        d.wait_mqtt("connected")
        return d


class MQTTCase(BrokerCase):
    """A fresh broker per case, and daemons that are cleaned up whatever happens (their logs
    printed when the case fails)."""

    def daemon(self, start=True, wait="connected", netns=None, **mqtt):
        settings = {"url": self.broker.url, "client_id": f"t{os.getpid()}x{next_id()}", "keepalive": 60}
        settings.update(mqtt)
        d = Daemon(settings, netns=netns)
        self.addCleanup(d.close)
        self.addCleanup(self._log_on_failure, d)
        if start:
            d.start()
            if wait:
                d.wait_mqtt(wait)
        return d

    def ask(self, d, responses, req, timeout=5):
        """`req` (with a request_id) published on d's command topic; its answer, matched by that
        id, from `responses` (a listener on d's response topic), as a dict."""
        mark = responses.mark()
        self.broker.pub(d.topic("command"), json.dumps(req))
        m = responses.wait_for(lambda m: json.loads(m.payload).get("request_id") == req["request_id"], timeout=timeout, start=mark)
        self.assertIsNotNone(m, f"no answer to {req}")
        return json.loads(m.payload)

    def _log_on_failure(self, d):
        # Keep the daemon's log where a person can read it.
        if failed(self):
            print(f"\n--- isletd log ({d.dir}) ---\n{d.log_tail(2500)}\n--- mosquitto log ---\n"
                  f"{self.broker.log_tail(1500)}", flush=True)

    def password_file(self, d, text, mode=0o600):
        path = os.path.join(d.dir, "mqtt.password")
        with open(path, "w") as f:
            f.write(text + "\n")
        os.chmod(path, mode)
        return path

    def assertRunning(self, d, timer="meditation", after=None):
        """The timer runs and its time moves: remaining_seconds drops between two looks."""
        a1 = d.activity(timer)
        self.assertIsNotNone(a1, f"{timer} has no activity")
        self.assertEqual(a1["phase"], "running", a1)
        time.sleep(0.3)
        a2 = d.activity(timer)
        self.assertEqual(a2["phase"], "running", a2)
        self.assertLess(a2["remaining_seconds"], a1["remaining_seconds"], "the countdown did not move")
        if after is not None:
            self.assertEqual(a2["content"]["reference"], after["content"]["reference"],
                             "the running timer's end moved")
        return a2
