"""Home Assistant core itself against the test broker and a real isletd: HA discovers the
device from Islet's announcements, shows the timer's state and the pill's picture (its image
entity takes a new one when the timer starts), and its own button and number entities drive
the timer.

HA is run as its users run it (`hass -c DIR`) from the venv of ensure_ha_venv.sh, with a
config entry for MQTT on the test broker. Two pieces of HA's own configuration make it
observable and drivable without its web API: `mqtt_statestream` publishes every state HA holds
for our entities to `hastate/<domain>/<object_id>/state`, and two automations turn a message
on `islet-test/press` (an entity id) into `button.press` and one on `islet-test/minutes` into
`number.set_value`. So a press goes: the test -> the broker -> HA's automation -> HA's button
entity -> Islet's command topic -> isletd -> the activity topic -> HA's sensors -> statestream.

The first run lets HA install the requirements of its default integrations into the venv from
PyPI (about a minute); later runs reuse them.
"""
import datetime
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import _path  # noqa: F401  (the repository root on sys.path)
from testkit import reaper
from testkit.broker import Broker
from testkit.daemon import Daemon

HERE = os.path.dirname(os.path.abspath(__file__))
ENTITIES = ["sensor.ha_core_meditation_phase", "sensor.ha_core_meditation_ends", "sensor.ha_core_meditation_paused_remaining",
            "button.ha_core_meditation_pause", "button.ha_core_meditation_resume", "button.ha_core_meditation_toggle",
            "button.ha_core_meditation_reset", "button.ha_core_meditation_expand", "number.ha_core_meditation_start_minutes",
            "image.ha_core_pill"]
HA_START_TIMEOUT = float(os.environ.get("HA_START_TIMEOUT", "300"))

CONFIGURATION = """
homeassistant:
  name: Islet test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
  currency: EUR
  country: DE
logger:
  default: warning
mqtt:
  sensor:
    - name: washer power
      state_topic: islet-test/washer/power
      unit_of_measurement: W
      device_class: power
    - name: washer phase
      state_topic: islet-test/washer/phase
mqtt_statestream:
  base_topic: hastate
  include:
    entity_globs:
      - "*.ha_core_*"
automation:
  - alias: press
    trigger:
      platform: mqtt
      topic: islet-test/press
    action:
      - service: button.press
        target:
          entity_id: "{{ trigger.payload }}"
  - alias: minutes
    trigger:
      platform: mqtt
      topic: islet-test/minutes
    action:
      - service: number.set_value
        target:
          entity_id: number.ha_core_meditation_start_minutes
        data:
          value: "{{ trigger.payload }}"
"""


def documented_laundry_automation(prefix):
    """The washing machine's automation exactly as docs/MQTT.md gives it (the block after
    `<!-- ha-laundry -->`), its list items ready to append to CONFIGURATION's `automation:`;
    the display's topic prefix put in, and the two-minute `for` shortened to two seconds."""
    with open(os.path.join(HERE, "..", "docs", "MQTT.md"), encoding="utf-8") as f:
        text = f.read()
    block = text.split("<!-- ha-laundry -->", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    lines = block.splitlines()
    assert lines[0] == "automation:", lines[0]
    body = "\n".join(lines[1:]) + "\n"
    assert "islet/islet-0123456789ab/command" in body and 'for: "00:02:00"' in body
    return body.replace("islet/islet-0123456789ab", prefix).replace('for: "00:02:00"', 'for: "00:00:02"')


def ha_venv():
    if os.environ.get("HA_VENV"):
        return os.environ["HA_VENV"]
    r = subprocess.run(["bash", os.path.join(HERE, "ensure_ha_venv.sh")], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"no Home Assistant venv: {r.stderr.strip()[-800:]}")
    return r.stdout.strip().splitlines()[-1]


class HomeAssistantCoreTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.venv = ha_venv()
        cls.broker = Broker().start()
        cls.daemon = Daemon({"url": cls.broker.url, "client_id": "ha-core", "keepalive": 5}).start()
        cls.daemon.wait_mqtt("connected")
        cls.dir = tempfile.mkdtemp(prefix="islet-ha-")
        os.makedirs(os.path.join(cls.dir, ".storage"))
        with open(os.path.join(cls.dir, "configuration.yaml"), "w") as f:
            f.write(CONFIGURATION + documented_laundry_automation(cls.daemon.prefix))
        entry = {"entry_id": "isletmqtttest00000000000000001", "version": 1, "minor_version": 1, "domain": "mqtt",
                 "title": "MQTT", "data": {"broker": "127.0.0.1", "port": cls.broker.port, "discovery": True},
                 "options": {}, "pref_disable_new_entities": False, "pref_disable_polling": False, "source": "user",
                 "unique_id": None, "disabled_by": None}
        with open(os.path.join(cls.dir, ".storage", "core.config_entries"), "w") as f:
            json.dump({"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [entry]}}, f)
        cls.states = cls.broker.listen(["hastate/#"])
        cls.log = open(os.path.join(cls.dir, "hass.log"), "wb")
        t0 = time.monotonic()
        cls.hass = subprocess.Popen([os.path.join(cls.venv, "bin", "hass"), "-c", cls.dir], stdout=cls.log,
                                    stderr=cls.log, stdin=subprocess.DEVNULL, start_new_session=True)
        # HA is up for us once it has made every entity and statestream has published them.
        deadline = t0 + HA_START_TIMEOUT
        while time.monotonic() < deadline and cls.hass.poll() is None:
            seen = {m.topic for m in cls.states.messages}
            if all(cls.state_topic(e) in seen for e in ENTITIES):
                break
            time.sleep(0.5)
        cls.ha_start_s = time.monotonic() - t0
        print(f"\nHome Assistant started and made the entities in {cls.ha_start_s:.1f} s")

    @classmethod
    def tearDownClass(cls):
        for name in ("hass",):
            p = getattr(cls, name, None)
            if p and p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        for name in ("states",):
            getattr(cls, name, None) and getattr(cls, name).stop()
        for name in ("daemon", "broker"):
            getattr(cls, name, None) and getattr(cls, name).close()
        if getattr(cls, "log", None):
            cls.log.close()
        if not reaper.keep() and getattr(cls, "dir", None):
            shutil.rmtree(cls.dir, ignore_errors=True)

    @staticmethod
    def state_topic(entity):
        domain, object_id = entity.split(".")
        return f"hastate/{domain}/{object_id}/state"

    def ha_state(self, entity, pred, timeout=30.0, start=0):
        """Waits until HA publishes a state of `entity` for which pred(text) holds; returns it."""
        topic = self.state_topic(entity)
        m = self.states.wait_for(lambda m: m.topic == topic and pred(m.text), timeout=timeout, start=start)
        if m is None:
            got = [x.text for x in self.states.messages if x.topic == topic]
            self.fail(f"Home Assistant never showed the expected state of {entity}; it showed {got}\n"
                      f"hass log: {self.hass_log_tail()}\nisletd log: {self.daemon.log_tail(800)}")
        return m.text

    def hass_log_tail(self):
        try:
            with open(os.path.join(self.dir, "hass.log"), "rb") as f:
                return f.read()[-1500:].decode(errors="replace")
        except OSError:
            return "(no log)"

    def panel_rows(self):
        """The emulated panel's picture from `status.panel` (page-packed bytes, bit 0 on top),
        as rows of "#" and "."; None while the panel is off."""
        p = self.daemon.status()["status"]["panel"]
        if not p["on"]:
            return None
        data = bytes.fromhex(p["pages"])
        w, h = p["width"], p["height"]
        return ["".join("#" if data[(y // 8) * w + x] >> (y % 8) & 1 else "." for x in range(w)) for y in range(h)]

    def rendered(self, *flags):
        """What `isletctl render` draws for that state on this panel, as rows."""
        r = self.daemon.ctl("render", "--size", "128x64", *flags, "-o", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        bits = "".join(r.stdout.decode().split("\n", 2)[2].split())
        return [bits[y * 128:(y + 1) * 128].replace("1", "#").replace("0", ".") for y in range(64)]

    def wait_laundry(self, pred, what, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            a = self.daemon.activity("laundry")
            if pred(a):
                return a
            time.sleep(0.2)
        self.fail(f"the laundry never {what}: {self.daemon.activity('laundry')}\nhass log: {self.hass_log_tail()}\n"
                  f"isletd log: {self.daemon.log_tail(800)}")

    def test_a_documented_automation_pushes_the_laundry_to_the_pill(self):
        """docs/MQTT.md's washing machine, run by Home Assistant: the plug's power starts an until
        activity, the program phase updates it, the power dropping ends it; the panel shows each."""
        # The automation may subscribe its triggers a little after HA is up: power is sent again
        # (off, then on: numeric_state fires on crossing) until the laundry starts.
        for _ in range(20):
            self.broker.pub("islet-test/washer/power", "0", qos=1, retain=True)
            time.sleep(0.5)
            t = time.time()
            self.broker.pub("islet-test/washer/power", "1850", qos=1, retain=True)
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline and self.daemon.activity("laundry") is None:
                time.sleep(0.2)
            if self.daemon.activity("laundry"):
                break
        a = self.wait_laundry(lambda a: a is not None, "started")
        self.assertEqual((a["attributes"]["kind"], a["attributes"]["title"], a["attributes"]["icon"]), ("until", "Laundry", "laundry"))
        self.assertEqual(a["content"]["pushed"]["text"], "Washing")
        # 55 minutes from when the power rose, to the second (the automation sends whole seconds).
        self.assertLess(abs(a["remaining_seconds"] - (55 * 60 - (time.time() - t))), 5, a)
        # The panel shows the laundry's icon where isletctl render draws it for the same activity
        # (the digits tick, the icon does not): 128x64 compact, the 32 px drawing at the left.
        want = self.rendered("--until", "--remaining", "3300", "--text", "Washing", "--title", "Laundry", "--icon", "laundry")
        rows = self.panel_rows()
        self.assertIsNotNone(rows, "the panel is off")
        self.assertEqual([r[:36] for r in rows], [r[:36] for r in want], "\n".join(rows))

        # The program phase changes: an update, the same activity.
        self.broker.pub("islet-test/washer/phase", 'Rinse "eco"', qos=1, retain=True)
        b = self.wait_laundry(lambda a: a and a["content"]["pushed"].get("text") == 'Rinse "eco"', "took the phase")
        self.assertEqual(b["started_at"], a["started_at"], "an update does not start a new activity")

        # The power drops for two seconds: Done with an alert, then the end; the check mark shows.
        self.broker.pub("islet-test/washer/power", "0.4", qos=1, retain=True)
        c = self.wait_laundry(lambda a: a and a["phase"] == "complete", "ended")
        self.assertEqual(c["content"]["pushed"]["text"], "Done")
        self.assertEqual(c["dismissal"], "after")
        done = self.rendered("--until", "--state", "complete", "--text", "Done", "--title", "Laundry", "--icon", "laundry")
        # The alert's expanded view lasts expand_seconds (5); then the compact check mark.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and self.panel_rows() != done:
            time.sleep(0.3)
        self.assertEqual(self.panel_rows(), done, "the panel does not show the laundry's end")
        self.daemon.request({"op": "reset", "timer": "laundry"})

    def test_home_assistant_makes_the_entities_and_drives_the_timer(self):
        seen = {m.topic for m in self.states.messages}
        missing = [e for e in ENTITIES if self.state_topic(e) not in seen]
        self.assertEqual(missing, [], f"Home Assistant did not create {missing} within {HA_START_TIMEOUT} s\n{self.hass_log_tail()}")

        # Its number entity starts a 5-minute session. The automations may subscribe their MQTT
        # triggers a little after the entities appear: the first request is repeated until it acts.
        mark = self.states.mark()
        topic = self.state_topic("sensor.ha_core_meditation_phase")
        for _ in range(20):
            t = time.time()
            self.broker.pub("islet-test/minutes", "5", qos=1)
            if self.states.wait_for(lambda m: m.topic == topic and m.text == "running", timeout=3, start=mark):
                break
        self.assertEqual(self.ha_state("sensor.ha_core_meditation_phase", lambda s: s == "running", start=mark), "running")
        # The image entity's state is when its picture last changed: a new one came with the start.
        self.ha_state("image.ha_core_pill", lambda s: s[:1].isdigit(), start=mark)
        ends = self.ha_state("sensor.ha_core_meditation_ends", lambda s: s[:1].isdigit(), start=mark)
        end = datetime.datetime.fromisoformat(ends).timestamp()
        self.assertLess(abs(end - (t + 300)), 10, f"HA shows the end at {ends}, not 5 minutes from now")
        a = self.daemon.activity()
        self.assertEqual((a["phase"], a["attributes"]["cycle_seconds"]), ("running", 300))

        # Its pause button pauses; the frozen time is what isletd shows.
        mark = self.states.mark()
        self.broker.pub("islet-test/press", "button.ha_core_meditation_pause", qos=1)
        self.ha_state("sensor.ha_core_meditation_phase", lambda s: s == "paused", start=mark)
        remaining = int(self.ha_state("sensor.ha_core_meditation_paused_remaining", lambda s: s.isdigit(), start=mark))
        self.assertTrue(280 <= remaining <= 300, remaining)
        self.assertEqual(self.ha_state("sensor.ha_core_meditation_ends", lambda s: True, start=mark), "unavailable",
                         "a paused timer has no end time")
        a = self.daemon.activity()
        self.assertEqual(a["phase"], "paused")
        self.assertLess(abs(a["remaining_seconds"] - remaining), 1.5)

        # Resume, then reset: the activity is dismissed and HA's phase says idle.
        mark = self.states.mark()
        self.broker.pub("islet-test/press", "button.ha_core_meditation_resume", qos=1)
        self.ha_state("sensor.ha_core_meditation_phase", lambda s: s == "running", start=mark)
        mark = self.states.mark()
        self.broker.pub("islet-test/press", "button.ha_core_meditation_reset", qos=1)
        self.ha_state("sensor.ha_core_meditation_phase", lambda s: s == "idle", start=mark)
        self.assertIsNone(self.daemon.activity())

        # Islet stops: its entities become unavailable (its clean stop publishes `offline`).
        mark = self.states.mark()
        self.daemon.stop()
        self.ha_state("sensor.ha_core_meditation_phase", lambda s: s == "unavailable", start=mark)
        self.ha_state("button.ha_core_meditation_toggle", lambda s: s == "unavailable", start=mark)


if __name__ == "__main__":
    unittest.main()
