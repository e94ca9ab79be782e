"""`make test-web`: who may reach the page and act through it (docs/WEB.md "Security").

(d) the password: refused and accepted in the browser, 401 and the cookie's flags through curl,
5 failures a minute then 429; (e) cross-site: an Origin of another site, a rebinding Host, a
form post, a body past 16 KiB are refused with curl and change nothing, while the same request
from the page's own origin acts; (f) read only: the controls are gone from the page and a
POST gets 403 read_only; (i) HTTPS with a self-signed certificate: curl -k works, and the
session cookie is Secure.
"""
import json

from case import WebCase, figure
from harness import COOKIE, cookie_attributes, curl

START = json.dumps({"op": "start", "seconds": 600})
JSON = "Content-Type: application/json"


class Guard(WebCase):
    def session_cookie(self, r, when):
        self.assertEqual(r.status, 200, f"{when}: login with the right password: {r}")
        raw = r.header("Set-Cookie")
        self.assertIsNotNone(raw, f"{when}: the login's answer has no Set-Cookie: {r.headers}")
        name, value, attrs = cookie_attributes(raw)
        self.assertEqual(name, COOKIE, f"{when}: cookie {raw!r}")
        self.assertRegex(value, r"^[0-9a-f]{64}$", f"{when}: the session token is not 64 hex digits: {raw!r}")
        self.assertIs(attrs.get("httponly"), True, f"{when}: no HttpOnly in {raw!r}")
        self.assertEqual(str(attrs.get("samesite", "")).lower(), "strict", f"{when}: no SameSite=Strict in {raw!r}")
        self.assertRegex(str(attrs.get("max-age", "")), r"^[1-9]\d*$", f"{when}: no positive Max-Age in {raw!r}")
        self.assertEqual(attrs.get("path"), "/", f"{when}: Path is not / in {raw!r}")
        return value, attrs, raw

    def test_d_login(self):
        d = self.daemon(password="correct horse")
        s = d.curl("/api/session").json()
        self.assertEqual((s.get("password"), s.get("authenticated")), (True, False), f"/api/session before a login: {s}")
        r = d.curl("/api/status")
        self.assertEqual((r.status, r.code), (401, "login_required"), f"/api/status without a session: {r}")

        b = self.browser.open(d.url, live=False)
        b.wait(lambda: b.visible("#login") and not b.visible("#app"), "the login form shows, the app does not")
        b.type("#password", "wrong horse")
        b.click('#login-form button[type="submit"]')
        error = b.wait(lambda: b.visible("#login-error") and b.text("#login-error"), "#login-error shows")
        self.assertFalse(b.visible("#app"), "the app shows after a wrong password")
        r = d.login("wrong horse")
        self.assertEqual((r.status, r.code), (401, "bad_password"), f"curl, a wrong password: {r}")
        self.assertIsNone(r.header("Set-Cookie"), f"a refused login set a cookie: {r.header('Set-Cookie')}")

        b.type("#password", "correct horse")
        b.click('#login-form button[type="submit"]')
        b.wait(lambda: b.visible("#app") and not b.visible("#login"), "the app shows after the right password")
        b.wait(lambda: b.attr("#conn", "data-state") == "live", "the event stream is live after the login")
        jar = {c["name"]: c for c in b.driver.get_cookies()}
        self.assertIn(COOKIE, jar, f"the browser holds no session cookie: {list(jar)}")
        self.assertTrue(jar[COOKIE].get("httpOnly"), f"the browser's cookie is not HttpOnly: {jar[COOKIE]}")
        self.assertEqual(jar[COOKIE].get("sameSite"), "Strict", f"the browser's cookie: {jar[COOKIE]}")

        token, attrs, raw = self.session_cookie(d.login("correct horse"), "curl")
        self.assertNotIn("secure", attrs, f"a plain-HTTP cookie says Secure (browsers would drop it): {raw!r}")
        r = d.curl("/api/status", cookie=token)
        self.assertEqual(r.status, 200, f"/api/status with the session cookie: {r}")
        r = d.curl("/api/status", cookie="0" * 64)
        self.assertEqual(r.status, 401, f"/api/status with an invented session: {r}")

        # Failures per address: the right login cleared them; five more, then 429 even for the right one.
        codes = [d.login(f"guess {i}").status for i in range(5)]
        self.assertEqual(codes, [401] * 5, f"five wrong passwords: {codes}")
        limited = d.login("guess 6")
        right = d.login("correct horse")
        self.assertEqual((limited.status, limited.code), (429, "rate_limited"), f"the sixth wrong password in a minute: {limited}")
        self.assertEqual(right.status, 429, f"the right password while the address waits: {right}")
        figure(f"login: page said {error!r}; cookie {raw!r}; after 5 failures {limited.status} "
               f"(Retry-After {limited.header('Retry-After')})")

    def test_e_cross_site_requests_change_nothing(self):
        d = self.daemon()
        own = f"Origin: {d.url}"
        refused = {
            "Origin of another site": d.curl("/api/request", method="POST", data=START,
                                             headers=(JSON, "Origin: http://evil.example")),
            "Origin https of this host": d.curl("/api/request", method="POST", data=START,
                                                headers=(JSON, f"Origin: https://{d.host}")),
            "rebinding Host": d.curl("/api/request", method="POST", data=START,
                                     headers=(JSON, "Host: evil.example", "Origin: http://evil.example")),
            "rebinding Host, GET /": d.curl("/", headers=("Host: evil.example",)),
            "rebinding Host with this port": d.curl("/api/status", headers=(f"Host: evil.example:{d.port}",)),
            "form post": d.curl("/api/request", "--data-urlencode", "op=start", method="POST", headers=(own,)),
            "text/plain JSON": d.curl("/api/request", method="POST", data=START, headers=("Content-Type: text/plain", own)),
            "body past 16 KiB": d.curl("/api/request", method="POST", headers=(JSON, own),
                                       data=json.dumps({"op": "start", "title": "x" * 17000})),
        }
        want = {"Origin of another site": (403, "cross_origin"), "Origin https of this host": (403, "cross_origin"),
                "rebinding Host": (421, "bad_host"), "rebinding Host, GET /": (421, "bad_host"),
                "rebinding Host with this port": (421, "bad_host"), "form post": (415, "json_required"),
                "text/plain JSON": (415, "json_required"), "body past 16 KiB": (413, "too_large")}
        for what, r in refused.items():
            self.assertEqual((r.status, r.code), want[what], f"{what}: {r}")
            self.assertTrue((r.header("Content-Security-Policy") or "").startswith("default-src 'self'"),
                            f"{what}: no Content-Security-Policy on the answer: {r.headers}")
            self.assertNotEqual(r.header("Access-Control-Allow-Origin"), "*", f"{what}: wildcard CORS")
        self.assertEqual(d.activities(), [], f"a refused request changed the daemon: {d.activities()}")
        # The same request from the page's own origin (and from a client with no Origin) acts.
        ok = d.curl("/api/request", method="POST", data=START, headers=(JSON, own))
        self.assertEqual(ok.status, 200, f"the page's own origin: {ok}")
        self.assertEqual([a["phase"] for a in d.activities()], ["running"], f"after the same-origin start: {d.activities()}")
        pause = json.dumps({"op": "pause"})
        first = d.curl("/api/request", method="POST", data=pause, headers=(JSON, own))
        again = d.curl("/api/request", method="POST", data=pause, headers=(JSON, own))
        self.assertEqual(first.status, 200, f"a pause from the page's own origin: {first}")
        self.assertEqual((again.status, again.code), (409, "already_paused"), f"a second pause: {again}")
        figure("refused: " + "; ".join(f"{k} {r.status} {r.code}" for k, r in refused.items())
               + f"; same origin: start {ok.status}, pause {first.status}, pause again {again.status} {again.code}")

    def test_f_read_only(self):
        d = self.daemon({"read_only": "on"})
        self.ctl_ok(d, "start", "--seconds", "600")
        b = self.browser.open(d.url)
        b.wait(lambda: b.row("meditation"), "the row of the timer")
        b.wait(lambda: b.js("return document.body.classList.contains('ro')"), "body.ro")
        for sel in ("#start", "#test-pattern", "#start-go", "#list .ops"):
            self.assertFalse(b.visible(sel), f"read only: {sel} is shown")
        enabled = b.js("return [...document.querySelectorAll('button[data-op]')].filter((e) => !e.disabled).map((e) => e.outerHTML)")
        self.assertEqual(enabled, [], f"read only: enabled controls: {enabled}")
        self.assertTrue(b.visible("#ro-note"), "read only: the note saying so is not shown")
        self.assertTrue(b.visible("#pill"), "read only: the pill is not shown")
        for req in ({"op": "pause"}, {"op": "end"}, {"op": "test_pattern"}, {"op": "start", "timer": "x"}):
            r = d.curl("/api/request", method="POST", data=json.dumps(req), headers=(JSON, f"Origin: {d.url}"))
            self.assertEqual((r.status, r.code), (403, "read_only"), f"read only, {req}: {r}")
        acts = d.activities()
        self.assertEqual([(a["timer"], a["phase"]) for a in acts], [("meditation", "running")], f"read only changed: {acts}")
        r = d.curl("/api/status")
        self.assertEqual(r.status, 200, f"read only: /api/status: {r}")
        figure("read only: controls hidden and disabled; pause, end, test_pattern, start: 403 read_only")

    def test_i_https(self):
        d = self.daemon(password="tls pass", tls=True)
        s = d.curl("/api/session")
        self.assertEqual(s.status, 200, f"curl -k {d.url}/api/session: {s}")
        self.assertEqual(s.json().get("ok"), True, f"/api/session: {s}")
        strict = curl(d.url + "/api/session")   # without -k: the certificate is checked, and is ours
        self.assertEqual(strict.status, 0, f"curl without -k accepted a self-signed certificate: {strict}")
        self.assertIn(strict.exit_status, (35, 60), f"curl without -k: {strict}")
        plain = curl(f"http://{d.host}/api/session", timeout=3)
        self.assertNotEqual(plain.status, 200, f"plain HTTP on the HTTPS port answered: {plain}")
        token, attrs, raw = self.session_cookie(d.login("tls pass"), "HTTPS")
        self.assertIs(attrs.get("secure"), True, f"the HTTPS session cookie is not Secure: {raw!r}")
        r = d.curl("/api/request", method="POST", data=START, headers=(JSON, f"Origin: http://{d.host}"), cookie=token)
        self.assertEqual((r.status, r.code), (403, "cross_origin"), f"HTTPS page, Origin http://: {r}")
        r = d.curl("/api/request", method="POST", data=START, headers=(JSON, f"Origin: {d.url}"), cookie=token)
        self.assertEqual(r.status, 200, f"HTTPS page, its own Origin: {r}")
        figure(f"HTTPS: session {s.status}; cookie {raw!r}; curl without -k exit {strict.exit_status}; "
               f"plain HTTP on the port: {plain.status or plain.error[:60]}")
