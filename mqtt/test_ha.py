"""`make test-mqtt`, Home Assistant's side: Islet's discovery payloads checked by Home Assistant's
own schemas (mqtt/ha_validate.py in the venv of mqtt/ensure_ha_venv.sh), with and without
`[web]` (the device's `configuration_url`), and the discovery life cycle: announced at connect,
again after Home Assistant's birth message, cleared by `discovery = off` and when an ad-hoc
timer's activity is dismissed. The pill's image itself: test_image.py.

The venv is made on first use (pip, a few minutes) and reused after; when it cannot be made
(no PyPI), every case here fails with the reason: nothing is skipped.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

from mqttcase import BrokerCase, figure, require, tearDownModule  # noqa: F401
from testkit.broker import free_port
from testkit.daemon import SetupError

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = None
# Home Assistant reads a sensor's `options` from 2024.9 on; the 2024.3 that installs on Python 3.11
# drops the key (the enum sensor works, without its list of states). Allowed, and reported.
ALLOWED_IGNORED = ["sensor:options"]
ENTITIES = {"sensor": ["phase", "ends", "paused_remaining"],
            "button": ["pause", "resume", "toggle", "reset", "expand"],
            "number": ["start_minutes"]}
# The device's own entities, whatever the timers: the pill as an image, the panel's contrast as a
# number and night mode as a switch (docs/MQTT.md).
DEVICE_ENTITIES = {"image": ["pill"], "number": ["contrast"], "switch": ["night"]}
PER_TIMER = sum(len(es) for es in ENTITIES.values())
PER_DEVICE = sum(len(es) for es in DEVICE_ENTITIES.values())


def setUpModule():
    global VENV
    require()
    r = subprocess.run(["bash", os.path.join(HERE, "ensure_ha_venv.sh")], capture_output=True, text=True, timeout=1800)
    sys.stderr.write(r.stderr)
    if r.returncode != 0 or not r.stdout.strip():
        raise SetupError(f"the Home Assistant venv could not be made, so its schemas cannot check Islet's payloads:\n"
                         f"{r.stderr.strip()}")
    VENV = r.stdout.strip().splitlines()[-1]


def validate(*args):
    """Runs ha_validate.py in the venv: (exit status, parsed JSON report, stderr)."""
    r = subprocess.run([os.path.join(VENV, "bin", "python"), os.path.join(HERE, "ha_validate.py"), "--json", *args],
                       capture_output=True, text=True, timeout=120)
    try:
        report = json.loads(r.stdout)
    except ValueError:
        report = None
    return r.returncode, report, r.stderr


def expected_topics(node, timer, prefix="homeassistant"):
    # docs/MQTT.md: "_" is written "__" and "." "_d", so two timers never share an object id.
    key = timer.replace("_", "__").replace(".", "_d")
    return {f"{prefix}/{c}/{node}/{key}_{e}/config" for c, es in ENTITIES.items() for e in es}


def device_topics(node, prefix="homeassistant"):
    return {f"{prefix}/{c}/{node}/{e}/config" for c, es in DEVICE_ENTITIES.items() for e in es}


def spec_payloads(node="islet-0123456789ab", timer="meditation", prefix="homeassistant"):
    """Discovery payloads written by hand from docs/MQTT.md's entity table (not Islet's output),
    for checking the validator itself. Abbreviated keys on purpose (stat_t, cmd_t, dev, avty_t,
    ~): the validator must expand them as Home Assistant does."""
    base = f"islet/{node}"
    dev = {"ids": [f"islet_{node}"], "name": f"Islet {node}", "mf": "Islet", "mdl": "SSD1306 128x64", "sw": "0.1.0"}
    common = {"~": base, "avty_t": "~/availability", "dev": dev}
    out = {}
    def put(component, entity, fields):
        out[f"{prefix}/{component}/{node}/{timer}_{entity}/config"] = dict(
            common, name=f"{timer} {entity.replace('_', ' ')}", uniq_id=f"islet_{node}_{timer}_{entity}", **fields)
    st = {"stat_t": f"~/activity/{timer}"}
    put("sensor", "phase", dict(st, dev_cla="enum", val_tpl="{{ value_json.phase }}"))
    put("sensor", "ends", dict(st, dev_cla="timestamp", val_tpl="{{ value_json.content.reference }}"))
    put("sensor", "paused_remaining", dict(st, dev_cla="duration", unit_of_meas="s",
                                           val_tpl="{{ value_json.remaining_seconds }}"))
    for b in ("pause", "resume", "toggle", "reset", "expand"):
        put("button", b, {"cmd_t": "~/command", "pl_prs": json.dumps({"op": b, "timer": timer})})
    put("number", "start_minutes", dict(st, cmd_t="~/command", min=1, max=1440, step=1, unit_of_meas="min",
                                        cmd_tpl='{"op":"start","timer":"%s","seconds":{{ (value * 60) | int }}}' % timer,
                                        val_tpl="{{ value_json.attributes.cycle_seconds / 60 }}"))
    out[f"{prefix}/image/{node}/pill/config"] = dict(common, name="pill", uniq_id=f"islet_{node}_pill",
                                                     dev=dict(dev, cu="http://islet.local:8080/"),
                                                     img_t="~/image", cont_type="image/png")
    out[f"{prefix}/number/{node}/contrast/config"] = dict(common, name="contrast", uniq_id=f"islet_{node}_contrast",
                                                          cmd_t="~/command", stat_t="~/brightness", min=0, max=255, step=1,
                                                          cmd_tpl='{"op":"brightness","contrast":{{ value | int }}}',
                                                          val_tpl="{{ value_json.contrast }}", mode="slider")
    out[f"{prefix}/switch/{node}/night/config"] = dict(common, name="night mode", uniq_id=f"islet_{node}_night",
                                                       cmd_t="~/command", stat_t="~/brightness",
                                                       pl_on='{"op":"brightness","night":true}',
                                                       pl_off='{"op":"brightness","night":false}',
                                                       val_tpl="{{ 'ON' if value_json.night else 'OFF' }}",
                                                       stat_on="ON", stat_off="OFF")
    return out


class Validator(unittest.TestCase):
    """ha_validate.py itself: it passes what the spec describes and fails what Home Assistant refuses."""

    def run_file(self, payloads, *extra):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(payloads, f)
        self.addCleanup(os.unlink, f.name)
        return validate("--file", f.name, *extra)

    def test_hand_written_spec_payloads_pass(self):
        payloads = spec_payloads()
        rc, report, err = self.run_file(payloads)
        self.assertEqual(rc, 0, json.dumps(report, indent=1) if report else err)
        self.assertEqual(report["valid"], 12)
        figure(f"validator: {report['valid']} hand-written spec payloads valid under Home Assistant "
               f"{report['home_assistant']}")

    def test_wrong_device_class_fails(self):
        payloads = spec_payloads()
        t = next(t for t in payloads if t.endswith("_phase/config"))
        payloads[t]["dev_cla"] = "meditation_phase"
        rc, report, err = self.run_file(payloads)
        self.assertEqual(rc, 1, err)
        bad = [r for r in report["results"] if not r["ok"]]
        self.assertEqual([r["topic"] for r in bad], [t])
        self.assertIn("device_class", " ".join(bad[0]["errors"]))

    def test_other_refusals_fail(self):
        cases = {
            "a misspelt key (dropped by the schema)": ("_phase/config", lambda p: p.update(stat_topic=p.pop("stat_t"))),
            "min not below max": ("_start_minutes/config", lambda p: p.update(min=1440, max=1)),
            "a template that does not compile": ("_ends/config", lambda p: p.update(val_tpl="{{ value_json.x ")),
            "a button without a command topic": ("_pause/config", lambda p: p.pop("cmd_t")),
            "a unit that is no string": ("_paused_remaining/config", lambda p: p.update(unit_of_meas=["s"])),
            "an image without its topic": ("/pill/config", lambda p: p.pop("img_t")),
            "a page link that is no URL": ("/pill/config", lambda p: p["dev"].update(cu="islet.local:8080")),
            "a switch without a command topic": ("/night/config", lambda p: p.pop("cmd_t")),
            "a contrast slider in an unknown mode": ("/contrast/config", lambda p: p.update(mode="dial")),
        }
        for what, (suffix, change) in cases.items():
            with self.subTest(what):
                payloads = spec_payloads()
                t = next(t for t in payloads if t.endswith(suffix))
                change(payloads[t])
                rc, report, err = self.run_file(payloads)
                self.assertEqual(rc, 1, f"{what}: accepted\n{err}")
                self.assertEqual([r["topic"] for r in report["results"] if not r["ok"]], [t], what)
        # Two entities with one unique_id.
        payloads = spec_payloads()
        a, b = [t for t in payloads if "/button/" in t][:2]
        payloads[b]["uniq_id"] = payloads[a]["uniq_id"]
        rc, report, _ = self.run_file(payloads)
        self.assertEqual(rc, 1)

    def test_bad_topic_and_unknown_component_fail(self):
        payloads = {"homeassistant/sensor/node/bad.id/config": {"stat_t": "x"},
                    "homeassistant/teapot/node/x/config": {"stat_t": "x"}}
        rc, report, _ = self.run_file(payloads)
        self.assertEqual((rc, report["invalid"]), (1, 2))


class Discovery(BrokerCase):
    client_prefix = "ha"

    def configs(self, node):
        return {t: p for t, p in self.broker.retained([f"homeassistant/+/{node}/+/config"]).items() if p}

    def wait_configs(self, node, pred, timeout=5):
        deadline = time.monotonic() + timeout
        while True:
            c = self.configs(node)
            if pred(c) or time.monotonic() > deadline:
                return c
            time.sleep(0.1)

    def test_islets_payloads_pass_home_assistants_schemas(self):
        d = self.daemon(timers="meditation, desk.lamp")
        want = (expected_topics(d.client_id, "meditation") | expected_topics(d.client_id, "desk.lamp")
                | device_topics(d.client_id))
        got = self.wait_configs(d.client_id, lambda c: set(c) >= want)
        self.assertEqual(set(got), want, "the announced entities are not the spec's")
        report = self.validated()
        self.assertEqual(report["valid"], 2 * PER_TIMER + PER_DEVICE)
        ignored = sorted({k for r in report["results"] for k in r["ignored"]})
        figure(f"Home Assistant {report['home_assistant']} schemas: {report['valid']} of Islet's discovery payloads "
               f"valid; keys this version drops (allowed): {ignored or 'none'}")
        # Every entity names the device, and its availability is the daemon's; without [web]
        # there is no page to link to.
        for t, p in got.items():
            c = json.loads(p)
            self.assertEqual(c["device"]["identifiers"], [f"islet_{d.client_id}"], t)
            self.assertNotIn("configuration_url", c["device"], t)
            avail = c.get("availability_topic") or c["availability"][0]["topic"]
            self.assertEqual(avail, d.topic("availability"), t)
        pill = json.loads(got[f"homeassistant/image/{d.client_id}/pill/config"])
        self.assertEqual((pill["image_topic"], pill["content_type"]), (d.topic("image"), "image/png"))
        for kind, name in (("number", "contrast"), ("switch", "night")):
            c = json.loads(got[f"homeassistant/{kind}/{d.client_id}/{name}/config"])
            self.assertEqual((c["command_topic"], c["state_topic"]), (d.topic("command"), d.topic("brightness")), name)

    def validated(self):
        """ha_validate.py on what the broker holds: its report, every config valid."""
        args = ["--port", str(self.broker.port)]
        for a in ALLOWED_IGNORED:
            args += ["--allow-ignored", a]
        rc, report, err = validate(*args)
        self.assertIsNotNone(report, err)
        bad = [r for r in report["results"] if not r["ok"]]
        self.assertEqual(bad, [], json.dumps(bad, indent=1))
        self.assertEqual(rc, 0, err)
        return report

    def test_with_a_page_the_device_links_to_it(self):
        """[web] on every address with a host name: every entity's device carries the page's
        address by that name (not status.web.url's loopback one), and Home Assistant's schema
        takes it (its configuration_url). On loopback there is no link: "Visit" would open the
        Home Assistant user's own machine."""
        port = free_port()
        d = self.daemon(extra=f"[web]\nlisten = 0.0.0.0:{port}\nhostnames = islet.test, desk.lan\nread_only = on\n")
        want = expected_topics(d.client_id, "meditation") | device_topics(d.client_id)
        got = self.wait_configs(d.client_id, lambda c: set(c) >= want and all("configuration_url" in json.loads(p)["device"] for p in c.values()))
        self.assertEqual(set(got), want)
        url = f"http://islet.test:{port}/"
        for t, p in got.items():
            self.assertEqual(json.loads(p)["device"].get("configuration_url"), url, t)
        report = self.validated()
        self.assertEqual(report["valid"], PER_TIMER + PER_DEVICE)
        d.stop()
        port = free_port()
        local = self.daemon(extra=f"[web]\nlisten = 127.0.0.1:{port}\n")
        self.assertEqual(local.status()["status"]["web"]["url"], f"http://127.0.0.1:{port}/")
        got = self.wait_configs(local.client_id, lambda c: set(c) >= device_topics(local.client_id))
        for t, p in got.items():
            self.assertNotIn("configuration_url", json.loads(p)["device"], t)
        figure(f"configuration_url {url} in all {report['valid']} discovery payloads, valid under Home Assistant "
               f"{report['home_assistant']}; none with the page on 127.0.0.1")

    def test_discovery_off_clears_what_was_announced(self):
        d = self.daemon()
        want = expected_topics(d.client_id, "meditation") | device_topics(d.client_id)
        self.assertEqual(set(self.wait_configs(d.client_id, lambda c: set(c) >= want)), want)
        self.assertIn(d.topic("image"), self.broker.retained([d.topic("image")]))
        d.stop()
        d.write_config(dict(d.mqtt_settings, discovery="off"))
        t0 = time.monotonic()
        d.start()
        d.wait_mqtt("connected")
        left = self.wait_configs(d.client_id, lambda c: not c)
        figure(f"discovery = off: {len(want)} retained configs cleared {time.monotonic() - t0:.2f} s after the start")
        self.assertEqual(left, {}, "retained discovery configs are left with discovery = off")
        self.assertEqual(self.broker.retained([d.topic("image")]), {}, "the pill's picture is left with discovery = off")
        self.assertEqual(self.broker.retained([d.topic("availability")]), {d.topic("availability"): b"online"})

    def test_birth_message_reannounces(self):
        d = self.daemon()
        topic = f"homeassistant/+/{d.client_id}/+/config"
        self.wait_configs(d.client_id, lambda c: len(c) >= PER_TIMER + PER_DEVICE)
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        fresh = lambda m: not m.retained   # the subscription itself hands over the retained ones
        self.assertEqual(len([m for m in live.messages if m.retained]), PER_TIMER + PER_DEVICE)
        # Only `online` counts: an `offline` (Home Assistant stopping) announces nothing.
        self.broker.pub("homeassistant/status", "offline")
        time.sleep(1.0)
        self.assertEqual([m for m in live.messages if fresh(m)], [], "announced again on an offline status")
        mark = live.mark()
        t0 = time.monotonic()
        self.broker.pub("homeassistant/status", "online")
        got = live.wait_count(fresh, PER_TIMER + PER_DEVICE, timeout=5)
        elapsed = time.monotonic() - t0
        time.sleep(0.5)
        after = [m for m in live.since(mark) if fresh(m)]
        figure(f"birth message: {len(after)} config messages within {elapsed:.2f} s after homeassistant/status online")
        self.assertEqual({m.topic for m in after}, expected_topics(d.client_id, "meditation") | device_topics(d.client_id))
        self.assertEqual(len(after), PER_TIMER + PER_DEVICE, f"expected each of the {PER_TIMER + PER_DEVICE} configs once: {after}")
        self.assertTrue(all(m.payload for m in got))

    def test_contrast_and_night_mode_round_trip(self):
        """What Home Assistant's number and switch send (their command template and payloads, as
        announced) changes the panel, and the retained brightness topic they read follows."""
        d = self.daemon()
        got = self.wait_configs(d.client_id, lambda c: set(c) >= device_topics(d.client_id))
        number = json.loads(got[f"homeassistant/number/{d.client_id}/contrast/config"])
        switch = json.loads(got[f"homeassistant/switch/{d.client_id}/night/config"])
        state = d.topic("brightness")
        brightness = lambda pred, timeout=5.0: self.retained_json(state, pred, timeout)
        first = brightness(lambda v: True)
        self.assertIsNotNone(first, "no retained brightness state")
        self.assertEqual(set(first), {"night", "contrast"})
        self.broker.pub(d.topic("command"), number["command_template"].replace("{{ value | int }}", "42"))
        self.assertEqual(brightness(lambda v: v["contrast"] == 42)["contrast"], 42)
        self.assertEqual(d.status()["status"]["night"]["contrast"], 42)
        self.broker.pub(d.topic("command"), switch["payload_on"])
        on = brightness(lambda v: v["night"])
        self.assertTrue(on["night"], on)
        self.assertEqual(d.status()["status"]["night"]["source"], "override")
        self.broker.pub(d.topic("command"), switch["payload_off"])
        self.assertFalse(brightness(lambda v: not v["night"])["night"])
        figure(f"contrast number and night switch: brightness state {first} -> 42 -> night on -> off, retained")

    def retained_json(self, topic, pred, timeout=5.0):
        """The broker's retained JSON on `topic` once `pred` holds (or the last seen at the timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            held = self.broker.retained([topic]).get(topic)
            value = json.loads(held) if held else None
            if (value is not None and pred(value)) or time.monotonic() > deadline:
                return value
            time.sleep(0.1)

    def test_page_settings_show_in_the_contrast_and_night_entities(self):
        """The page's settings overlay (isletctl settings, the same op as the page): the retained
        brightness state Home Assistant's contrast number and night switch read follows it."""
        d = self.daemon()
        state = d.topic("brightness")
        brightness = lambda pred, timeout=5.0: self.retained_json(state, pred, timeout)
        self.assertIsNotNone(brightness(lambda v: True), "no retained brightness state")
        r = d.ctl("settings", "set", "display.contrast", "77")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(brightness(lambda v: v["contrast"] == 77), {"night": False, "contrast": 77})
        # A night window over (almost) the whole day, with its own contrast: night, at 9.
        for key, value in (("display.night_contrast", "9"), ("display.night", "00:00-23:59")):
            r = d.ctl("settings", "set", key, value)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(brightness(lambda v: v["night"]), {"night": True, "contrast": 9})
        r = d.ctl("settings", "reset", "display.night")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(brightness(lambda v: not v["night"]), {"night": False, "contrast": 77})
        figure("page settings: contrast 77, a night window at 9, reset: the retained brightness state follows each")

    def test_an_ad_hoc_timer_gets_entities_while_it_has_an_activity(self):
        d = self.daemon()
        want = expected_topics(d.client_id, "yoga")
        d.request({"op": "start", "timer": "yoga", "seconds": 600})
        got = self.wait_configs(d.client_id, lambda c: set(c) >= want)
        self.assertTrue(want <= set(got), f"no entities for the ad-hoc timer: {sorted(got)}")
        d.request({"op": "end", "timer": "yoga", "dismissal": "immediate"})
        got = self.wait_configs(d.client_id, lambda c: not (set(c) & want))
        self.assertEqual(set(got) & want, set(), "the dismissed ad-hoc timer's entities are still announced")
        self.assertEqual(set(got), expected_topics(d.client_id, "meditation") | device_topics(d.client_id),
                         "the configured timer's (or the device's) entities went too")


if __name__ == "__main__":
    unittest.main()
