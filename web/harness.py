"""isletd with a `[web]` page for `make test-web`, and the plain HTTP side of the tests.

WebDaemon is testkit/daemon.py's Daemon (mock bus, temp socket and state dir, copied binaries)
with a `[web]` section on a free 127.0.0.1 port; `password=` writes a password file (mode
0600), `tls=True` a self-signed certificate made with openssl (key mode 0600). curl() runs
Debian's curl and parses its `-i` output; decode() turns the panel's pages into pixels.

Only 127.0.0.1 is ever contacted.
"""
import json
import os
import re
import shutil
import subprocess

import _path  # noqa: F401  (the repository root on sys.path)
from testkit.daemon import Daemon, SetupError, binaries  # noqa: F401  (re-exported for the tests)
from testkit.wait import free_port, wait_port

CURL = shutil.which("curl") or "/usr/bin/curl"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
COOKIE = "islet_session"
LIT, DARK = "L", "D"


def missing_tools():
    return [t for t in (CURL, OPENSSL) if not os.access(t, os.X_OK)]


def self_signed(directory, name="localhost"):
    """A self-signed certificate and its key (mode 0600) in `directory`: (cert path, key path)."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    r = subprocess.run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", f"/CN={name}",
                        "-addext", f"subjectAltName=DNS:{name},IP:127.0.0.1"], capture_output=True, timeout=60)
    if r.returncode != 0:
        raise SetupError(f"openssl req -x509 failed: {r.stderr.decode(errors='replace')[-400:]}")
    os.chmod(key, 0o600)
    return cert, key


class WebDaemon(Daemon):
    """isletd on the mock bus with `[web] listen = 127.0.0.1:<free port>` and `web` keys."""

    def __init__(self, web=None, *, password=None, tls=False, extra=""):
        super().__init__(None)
        self.port = free_port()
        self.password = password
        self.tls = tls
        keys = {"listen": f"127.0.0.1:{self.port}"}
        if password is not None:
            path = os.path.join(self.dir, "web.password")
            with open(path, "w") as f:
                f.write(password + "\n")
            os.chmod(path, 0o600)
            keys["password_file"] = path
        if tls:
            keys["cert_file"], keys["key_file"] = self_signed(self.dir)
        keys.update(web or {})
        self.web_keys = keys
        self.write_config(None, "[web]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()) + extra)

    @property
    def host(self):
        return f"127.0.0.1:{self.port}"

    @property
    def url(self):
        return f"{'https' if self.tls else 'http'}://{self.host}"

    def start(self, timeout=10.0):
        super().start(timeout)
        wait_port(self.port, timeout=5)
        return self

    # The daemon's own view, through isletctl (what a person at the Pi sees).
    def panel(self):
        """(status.panel, the whole `isletctl status --json` answer)."""
        s = self.status()
        return s["status"]["panel"], s

    def activities(self):
        return self.status().get("activities") or []

    def curl(self, path, *args, method=None, data=None, headers=(), cookie=None):
        return curl(self.url + path, *args, method=method, data=data, headers=headers, cookie=cookie, insecure=self.tls)

    def login(self, password):
        """POST /api/login through curl with this page's Origin: the Response."""
        return self.curl("/api/login", method="POST", data=json.dumps({"password": password}),
                         headers=("Content-Type: application/json", f"Origin: {self.url}"))


class Response:
    def __init__(self, status, headers, body, exit_status=0, error=""):
        self.status, self.headers, self.body = status, headers, body
        self.exit_status, self.error = exit_status, error

    def header(self, name):
        """The first value of a header (case-insensitive), or None."""
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def json(self):
        return json.loads(self.body)

    @property
    def code(self):
        """error.code of a JSON answer, else None."""
        try:
            return (self.json().get("error") or {}).get("code")
        except ValueError:
            return None

    def __repr__(self):
        return f"HTTP {self.status} {self.body[:300]!r}" + (f" (curl exit {self.exit_status}: {self.error})" if self.exit_status else "")


def curl(url, *args, method=None, data=None, headers=(), cookie=None, insecure=False, timeout=10):
    """curl -sS -i URL: the Response (status 0 when curl got no answer; its exit status and message)."""
    cmd = [CURL, "-sS", "-i", "--max-time", str(timeout), "-H", "Expect:"]
    if insecure:
        cmd.append("-k")
    if method:
        cmd += ["-X", method]
    for h in headers:
        cmd += ["-H", h]
    if cookie:
        cmd += ["-H", f"Cookie: {COOKIE}={cookie}"]
    if data is not None:
        cmd += ["--data-binary", data]
    r = subprocess.run(cmd + list(args) + [url], capture_output=True, timeout=timeout + 5)
    out = r.stdout
    while True:   # skip interim answers (100 Continue)
        head, sep, rest = out.partition(b"\r\n\r\n")
        if not sep or not re.match(rb"HTTP/\S+ 1\d\d", head):
            break
        out = rest
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    m = re.match(r"HTTP/\S+ (\d{3})", lines[0]) if lines and lines[0] else None
    headers = [tuple(s.strip() for s in ln.split(":", 1)) for ln in lines[1:] if ":" in ln]
    return Response(int(m.group(1)) if m else 0, headers, body.decode(errors="replace"),
                    r.returncode, r.stderr.decode(errors="replace").strip()[-300:])


def cookie_attributes(set_cookie):
    """A Set-Cookie value: (name, value, {attribute lowercased: value or True})."""
    first, *attrs = [p.strip() for p in set_cookie.split(";")]
    name, _, value = first.partition("=")
    out = {}
    for a in attrs:
        k, eq, v = a.partition("=")
        out[k.strip().lower()] = v.strip() if eq else True
    return name, value, out


def decode(panel):
    """status.panel → the lit/dark string of its pixels, row by row (width*height letters), read
    per the SSD1306 page layout: byte page*width + x, bit b is row page*8 + b (LSB on top). A
    panel that is off shows nothing (all dark)."""
    w, h, pages = panel["width"], panel["height"], bytes.fromhex(panel["pages"])
    if len(pages) != w * h // 8:
        raise AssertionError(f"status.panel.pages holds {len(pages)} bytes for a {w}x{h} panel (want {w * h // 8})")
    on = panel.get("on", True)
    out = []
    for y in range(h):
        page, bit = divmod(y, 8)
        out.extend(LIT if on and pages[page * w + x] >> bit & 1 else DARK for x in range(w))
    return "".join(out)


def differences(want, got, width, most=6):
    """Where two pixel strings differ: (count, "(x,y) want/got" for the first few)."""
    diff = [i for i, (a, b) in enumerate(zip(want, got)) if a != b]
    diff += list(range(min(len(want), len(got)), max(len(want), len(got))))
    return len(diff), ", ".join(f"({i % width},{i // width}) {want[i:i + 1] or '-'}/{got[i:i + 1] or '-'}"
                                for i in diff[:most])
