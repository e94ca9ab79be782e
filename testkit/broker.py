"""A real MQTT broker for a harness: Debian's mosquitto on loopback, in a temp dir.

Broker(...) writes a fresh mosquitto.conf (a plain listener on a free 127.0.0.1 port, and on
request a TLS listener, a password file made with mosquitto_passwd and an ACL file), starts
it, and waits until every port accepts. stop()/start() keep the ports, so a test can take the
broker away and bring it back where the daemon expects it. Nothing persists across a restart
(persistence false): a restarted broker holds no retained message until a client publishes it.

The client helpers run Debian's own clients: sub() through mosquitto_sub, pub() through
mosquitto_pub, rr() through mosquitto_rr (MQTT 5 request/response), listen() a background
mosquitto_sub; what they return is testkit.mqttclient's Message.

Only 127.0.0.1 is ever contacted.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

from testkit import reaper
from testkit.fixture import Fixture
from testkit.mqttclient import FORMAT, FORMAT_V5, Listener, Message, is_plain_text, parse_line  # noqa: F401
from testkit.tls import TLSMaterial
from testkit.wait import HOST, free_port, port_closed, wait_port, wait_until  # noqa: F401  (for the tests)


HOST = "127.0.0.1"
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
DYNSEC_PLUGIN = "/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so"
for _d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/arm-linux-gnueabihf", "/usr/lib"):
    if os.path.exists(os.path.join(_d, "mosquitto_dynamic_security.so")):
        DYNSEC_PLUGIN = os.path.join(_d, "mosquitto_dynamic_security.so")
        break
TOOLS = ("mosquitto_sub", "mosquitto_pub", "mosquitto_rr", "mosquitto_passwd", "openssl")


def missing_tools():
    """The programs this fixture needs that are not installed (names), empty when all are."""
    out = [] if os.access(MOSQUITTO, os.X_OK) else ["mosquitto"]
    return out + [t for t in TOOLS if shutil.which(t) is None]




class Broker(Fixture):
    """mosquitto on 127.0.0.1, configured afresh in a temp dir.

    users: {name: password} -> a password file made with mosquitto_passwd.
    acl: the text of an ACL file (mosquitto's format), or None.
    anonymous: allow_anonymous (True by default; with users and anonymous=False only those log in).
    tls: also a TLS listener (self.tls_port) with the fixture's CA-signed server certificate.
    """

    def __init__(self, directory=None, *, users=None, acl=None, anonymous=True, tls=False, tls_material=None,
                 max_keepalive=None, client_user=None, dynsec=False, extra_config=()):
        self._own(directory, "islet-broker-")
        self.users = dict(users or {})
        self.acl = acl
        self.anonymous = anonymous
        self.port = free_port()
        self.tls_port = free_port() if tls else None
        self.tls = (tls_material or TLSMaterial(os.path.join(self.dir, "tls"))) if tls else None
        self.max_keepalive = max_keepalive
        # More mosquitto.conf lines, as given (e.g. "max_packet_size 600"), before the listeners.
        self.extra_config = list(extra_config)
        # (name, password) the helpers log in with when a call names no user.
        self.client_user = client_user
        # Mosquitto's dynamic-security plugin (ACLs that a SUBACK can refuse), admin through
        # mosquitto_ctrl (dynsec()).
        self.dynsec_file = os.path.join(self.dir, "dynamic-security.json") if dynsec else None
        self.dynsec_admin = ("islet-test-admin", uuid.uuid4().hex)
        self.proc = None
        self.log_path = os.path.join(self.dir, "mosquitto.log")
        self.starts = 0
        self._write_config()

    # -- configuration --------------------------------------------------------------------

    def _write_config(self):
        lines = ["# written by testkit/broker.py for one test", "persistence false",
                 "log_dest stderr", "log_type error", "log_type warning", "log_type notice", "log_type information",
                 "log_timestamp_format %H:%M:%S", "connection_messages true",
                 "per_listener_settings false", f"allow_anonymous {'true' if self.anonymous else 'false'}"]
        if os.geteuid() == 0:
            lines.append("user root")   # else mosquitto drops to user mosquitto, who cannot read the temp dir
        if self.max_keepalive:
            lines.append(f"max_keepalive {self.max_keepalive}")
        if self.users:
            pw = os.path.join(self.dir, "passwd")
            if os.path.exists(pw):
                os.unlink(pw)
            for name, password in self.users.items():
                args = ["mosquitto_passwd", "-b"] + (["-c"] if not os.path.exists(pw) else []) + [pw, name, password]
                r = subprocess.run(args, capture_output=True)
                if r.returncode != 0:
                    raise RuntimeError(f"mosquitto_passwd failed: {r.stderr.decode(errors='replace')}")
            os.chmod(pw, 0o600)
            lines.append(f"password_file {pw}")
        if self.acl is not None:
            acl = os.path.join(self.dir, "acl")
            with open(acl, "w") as f:
                f.write(self.acl)
            os.chmod(acl, 0o600)
            lines.append(f"acl_file {acl}")
        if self.dynsec_file:
            if not os.path.exists(self.dynsec_file):
                r = subprocess.run(["mosquitto_ctrl", "dynsec", "init", self.dynsec_file, *self.dynsec_admin],
                                   capture_output=True)
                if r.returncode != 0:
                    raise RuntimeError(f"mosquitto_ctrl dynsec init failed: {r.stderr.decode(errors='replace')}")
            lines += [f"plugin {DYNSEC_PLUGIN}", f"plugin_opt_config_file {self.dynsec_file}"]
        lines += self.extra_config
        lines.append(f"listener {self.port} {HOST}")
        if self.tls:
            lines += [f"listener {self.tls_port} {HOST}", f"cafile {self.tls.ca}", f"certfile {self.tls.cert}",
                      f"keyfile {self.tls.key}", "tls_version tlsv1.2"]
        self.config = os.path.join(self.dir, "mosquitto.conf")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")

    # -- lifecycle --------------------------------------------------------------------------

    def start(self, timeout=10.0):
        if self.running:
            return self
        log = open(self.log_path, "ab")
        self.proc = reaper.track(subprocess.Popen([MOSQUITTO, "-c", self.config], stdin=subprocess.DEVNULL,
                                                  stdout=log, stderr=log, start_new_session=True))
        log.close()
        t0 = time.monotonic()
        try:
            for port in filter(None, (self.port, self.tls_port)):
                while True:
                    if self.proc.poll() is not None:
                        raise RuntimeError(f"mosquitto exited {self.proc.returncode}: {self.log_tail()}")
                    try:
                        wait_port(port, timeout=0.2)
                        break
                    except TimeoutError:
                        if time.monotonic() - t0 > timeout:
                            raise TimeoutError(f"mosquitto did not accept on {port} within {timeout} s: {self.log_tail()}")
        except BaseException:
            self.kill()
            raise
        self.starts += 1
        self.started_at = time.monotonic()
        return self

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=10.0):
        """SIGTERM, and waits until it exited and the ports are closed."""
        if self.proc is None:
            return
        reaper.terminate(self.proc, timeout)
        reaper.untrack(self.proc)
        self.proc = None

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None:
            reaper.untrack(self.proc)
        self.proc = None

    def set_users(self, users):
        """A new password file, and SIGHUP: mosquitto reloads it without dropping anyone."""
        self.users = dict(users)
        self._write_config()
        if self.running:
            self.proc.send_signal(signal.SIGHUP)

    def restart(self):
        self.stop()
        return self.start()

    def dynsec(self, *args):
        """One mosquitto_ctrl dynsec command against the running broker, as its admin."""
        r = subprocess.run(["mosquitto_ctrl", "-h", HOST, "-p", str(self.port), "-u", self.dynsec_admin[0],
                            "-P", self.dynsec_admin[1], "dynsec", *args], capture_output=True, timeout=15)
        if r.returncode != 0:
            raise RuntimeError(f"mosquitto_ctrl dynsec {' '.join(args)} failed ({r.returncode}): "
                               f"{(r.stderr + r.stdout).decode(errors='replace')}")
        return r.stdout.decode(errors="replace")

    # -- URLs for the daemon ------------------------------------------------------------------

    @property
    def url(self):
        return f"mqtt://{HOST}:{self.port}"

    @property
    def tls_url(self):
        return f"mqtts://{HOST}:{self.tls_port}"

    # -- clients ----------------------------------------------------------------------------

    def client_args(self, user=None, password=None, tls=False, ca=None, v5=False):
        if tls:
            args = ["-h", HOST, "-p", str(self.tls_port), "--cafile", ca or self.tls.ca]
        else:
            args = ["-h", HOST, "-p", str(self.port)]
        if user is None and self.client_user:
            user, password = self.client_user
        if user is not None:
            args += ["-u", user]
        if password is not None:
            args += ["-P", password]
        if v5:
            args += ["-V", "5"]
        return args

    def sub(self, topics, count=None, timeout=2, retained_only=False, v5=False, **auth):
        """Subscribes (mosquitto_sub), returns the messages received: up to `count`, within
        `timeout` seconds (whole seconds, mosquitto_sub's -W). retained_only: what the broker
        holds retained now (mosquitto_sub exits at the first live message)."""
        if isinstance(topics, str):
            topics = [topics]
        args = ["mosquitto_sub", *self.client_args(v5=v5, **auth), "-F", FORMAT_V5 if v5 else FORMAT,
                "-W", str(max(1, int(round(timeout))))]
        for t in topics:
            args += ["-t", t]
        if count is not None:
            args += ["-C", str(count)]
        if retained_only:
            args.append("--retained-only")
        r = subprocess.run(args, capture_output=True, timeout=timeout + 10)
        # 0: -C reached or --retained-only done; 27: -W timed out (mosquitto_sub's MOSQ_ERR_TIMEOUT).
        if r.returncode not in (0, 27):
            raise RuntimeError(f"mosquitto_sub {topics} exited {r.returncode}: {r.stderr.decode(errors='replace')}")
        return [m for m in (parse_line(l, v5) for l in r.stdout.splitlines(keepends=True)) if m]

    def retained(self, topics, **auth):
        """{topic: payload} the broker holds retained now, for these filters: a fresh subscriber
        (a late one, for a test) that stops once its sync message is back (see Listener)."""
        with Listener(self, topics, **auth) as l:
            return {m.topic: m.payload for m in l.messages if m.retained}

    def retained_wait(self, topics, timeout=2, **auth):
        """The same through mosquitto_sub --retained-only -W (slower: waits out the timeout when
        no live message comes)."""
        return {m.topic: m.payload for m in self.sub(topics, timeout=timeout, retained_only=True, **auth)
                if m.retained}

    def pub(self, topic, payload=b"", retain=False, qos=1, file=None, v5=False, properties=(), **auth):
        """Publishes with mosquitto_pub. payload: str or bytes (bytes go through a file, -f);
        file: a path to send as the payload; empty payload: -n (with retain: clears a retained one)."""
        args = ["mosquitto_pub", *self.client_args(v5=v5, **auth), "-t", topic, "-q", str(qos)]
        if retain:
            args.append("-r")
        for p in properties:
            args += ["-D", *p]
        tmp = None
        if file is not None:
            args += ["-f", file]
        elif isinstance(payload, bytes) and payload and not is_plain_text(payload):
            fd, tmp = tempfile.mkstemp(prefix="islet-payload-")
            with os.fdopen(fd, "wb") as f:
                f.write(payload)
            args += ["-f", tmp]
        elif payload:
            args += ["-m", payload.decode() if isinstance(payload, bytes) else payload]
        else:
            args.append("-n")
        try:
            r = subprocess.run(args, capture_output=True, timeout=15)
        finally:
            if tmp:
                os.unlink(tmp)
        if r.returncode != 0:
            raise RuntimeError(f"mosquitto_pub {topic} exited {r.returncode}: {r.stderr.decode(errors='replace')}")

    def rr(self, topic, response_topic, payload, timeout=5, correlation=None, **auth):
        """MQTT 5 request/response (mosquitto_rr): publishes `payload` to `topic` with a response
        topic (and correlation data when given), returns the first Message on response_topic,
        or None when nothing came within `timeout`."""
        args = ["mosquitto_rr", *self.client_args(**auth), "-t", topic, "-e", response_topic, "-m", payload,
                "-W", str(max(1, int(round(timeout)))), "-F", FORMAT_V5]
        if correlation is not None:
            args += ["-D", "publish", "correlation-data", correlation]
        r = subprocess.run(args, capture_output=True, timeout=timeout + 10)
        if r.returncode == 27 or not r.stdout:
            return None
        if r.returncode != 0:
            raise RuntimeError(f"mosquitto_rr exited {r.returncode}: {r.stderr.decode(errors='replace')}")
        return parse_line(r.stdout.splitlines(keepends=True)[0], True)

    def listen(self, topics, v5=False, **auth):
        """A subscriber that runs in the background from now on (see Listener)."""
        return Listener(self, topics, v5=v5, **auth)

