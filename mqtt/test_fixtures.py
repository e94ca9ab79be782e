"""The harness's own fixtures, without isletd: a broken fixture must fail here, not pass a
daemon test by accident. Fast (~10 s)."""
import os
import subprocess
import time
import unittest

import _path  # noqa: F401  (the repository root on sys.path)
import blackhole
from testkit.broker import Broker, missing_tools, port_closed


def setUpModule():
    missing = missing_tools()
    if missing:
        raise RuntimeError(f"missing: {', '.join(missing)} (apt-get install mosquitto mosquitto-clients openssl)")


class BrokerFixture(unittest.TestCase):
    def test_stop_and_restart_on_the_same_port_without_persistence(self):
        with Broker() as b:
            port = b.port
            b.pub("fx/a", "1", retain=True)
            self.assertEqual(b.retained(["fx/#"]), {"fx/a": b"1"})
            b.stop()
            self.assertTrue(port_closed(port))
            b.start()
            self.assertEqual(b.port, port)
            self.assertEqual(b.retained(["fx/#"]), {}, "a restarted broker kept a retained message")

    def test_bytes_empty_payloads_and_retained_reads(self):
        with Broker() as b:
            live = b.listen(["fx/#"])
            self.addCleanup(live.stop)
            b.pub("fx/bin", b"\xff\x00\xfe-x", retain=True)
            b.pub("fx/text", "-starts with a dash")
            got = live.wait_count(lambda m: True, 2, timeout=5)
            self.assertEqual([m.payload for m in got], [b"\xff\x00\xfe-x", b"-starts with a dash"])
            b.pub("fx/bin", b"", retain=True)   # clears it
            self.assertIsNotNone(live.wait_for(lambda m: m.topic == "fx/bin" and m.payload == b"", timeout=5))
            self.assertEqual(b.retained(["fx/#"]), {})
            b.pub("fx/keep", "k", retain=True)
            self.assertEqual(b.retained_wait(["fx/#"], timeout=1), {"fx/keep": b"k"})
            self.assertEqual([m.payload for m in b.sub(["fx/#"], count=1, timeout=2)], [b"k"])

    def test_mqtt5_request_response_with_a_responder(self):
        with Broker() as b:
            # A responder of our own: mosquitto_sub -C 1 prints the request, we publish the answer
            # with the same correlation data (mosquitto_pub -D).
            req = subprocess.Popen(["mosquitto_sub", *b.client_args(v5=True), "-t", "fx/req", "-C", "1", "-F", "%D"],
                                   stdout=subprocess.PIPE)
            self.addCleanup(req.kill)
            time.sleep(0.3)
            rr = subprocess.Popen(["mosquitto_rr", *b.client_args(), "-t", "fx/req", "-e", "fx/resp", "-m", "q",
                                   "-W", "5", "-F", "%D %p", "-D", "publish", "correlation-data", "c-1"],
                                  stdout=subprocess.PIPE)
            corr = req.communicate(timeout=5)[0].strip()
            self.assertEqual(corr, b"c-1")
            b.pub("fx/resp", "answer", v5=True, properties=[("publish", "correlation-data", corr.decode())])
            out = rr.communicate(timeout=10)[0]
            self.assertEqual(out.strip(), b"c-1 answer")

    def test_passwords(self):
        with Broker(users={"u": "right"}, anonymous=False) as b:
            self.assertEqual(b.sub("fx/#", timeout=1, user="u", password="right"), [])
            with self.assertRaisesRegex(RuntimeError, "(?i)not authori"):
                b.sub("fx/#", timeout=1, user="u", password="wrong")
            with self.assertRaisesRegex(RuntimeError, "(?i)not authori"):
                b.sub("fx/#", timeout=1)
            b.set_users({"u": "new"})
            time.sleep(0.3)
            self.assertEqual(b.sub("fx/#", timeout=1, user="u", password="new"), [])

    def test_tls_right_and_wrong_ca(self):
        with Broker(tls=True) as b:
            b.pub("fx/t", "over plain", retain=True)
            got = b.sub("fx/#", timeout=1, retained_only=True, tls=True)
            self.assertEqual([m.payload for m in got], [b"over plain"])
            with self.assertRaisesRegex(RuntimeError, "(?i)tls"):
                b.sub("fx/#", timeout=1, tls=True, ca=b.tls.wrong_ca)

    def test_acl_file_and_dynsec(self):
        with Broker(acl="topic readwrite #\n\nuser w\ntopic read fx/#\n") as b:
            b.pub("fx/x", "anonymous may", retain=True)
            b.pub("fx/x", "w may not", retain=True, v5=True, user="w")   # PUBACK 135; mosquitto_pub still exits 0
            self.assertEqual(b.retained(["fx/#"]), {"fx/x": b"anonymous may"})
        with Broker(dynsec=True) as b:
            for c in (["createRole", "all"], ["addRoleACL", "all", "subscribePattern", "#", "allow"],
                      ["createClient", "s", "-p", "pw"], ["addClientRole", "s", "all"],
                      ["createRole", "deny"], ["addRoleACL", "deny", "subscribeLiteral", "fx/no", "deny"],
                      ["addClientRole", "s", "deny", "10"]):
                b.dynsec(*c)
            r = subprocess.run(["mosquitto_sub", *b.client_args(user="s", password="pw", v5=True), "-t", "fx/no",
                                "-d", "-W", "1"], capture_output=True, text=True)
            self.assertIn("135", r.stdout, r.stdout + r.stderr)


class BlackHoleFixture(unittest.TestCase):
    def test_connect_and_lookup_hang_and_everything_is_removed(self):
        why = blackhole.available()
        self.assertIsNone(why, why)
        bh = blackhole.BlackHole()
        try:
            names = (bh.ns, bh.peer)
            connect, lookup = bh.self_test(connect_wait=1.0, lookup_wait=1.0)
            self.assertGreaterEqual(connect, 0.9)
            self.assertGreaterEqual(lookup, 0.9)
            r = bh.run("cat", "/etc/resolv.conf")
            self.assertIn(f"nameserver {blackhole.DNS}", r.stdout.decode())
        finally:
            bh.close()
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        for n in names:
            self.assertNotIn(n, listed)
            self.assertFalse(os.path.exists(f"/etc/netns/{n}"))


if __name__ == "__main__":
    unittest.main()
