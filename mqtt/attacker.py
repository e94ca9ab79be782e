"""The rogue side of mqtt/test_untrusted*.py: floods, forged records, a silent broker.

The attacker's MQTT client is Debian's python3-paho-mqtt (a client we did not write), run as a
process of its own (`python3 attacker.py publish ...`) so that its work competes with isletd
for the CPU as another device's would, and not with the test's own measurements. Its input is
a file of lines `topic<TAB>retain (0/1)<TAB>payload`; `%NOW%` in a payload is replaced by the
wall clock in milliseconds when the message is sent. QoS 0, one connection.

Also here: SilentBroker (a TCP listener on 127.0.0.1 that accepts and never says a word: a
broker that never sends CONNACK), dir_size(). The person at the socket during a flood is
testkit/probe.py's Probe; the daemon's peak memory, testkit/procfs.py's vm_hwm().

Only 127.0.0.1 is ever contacted.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
HERE = os.path.dirname(os.path.abspath(__file__))


def import_paho():
    """paho.mqtt.client, from this Python or from Debian's python3-paho-mqtt."""
    try:
        import paho.mqtt.client as mqtt
    except ImportError:
        if os.path.isdir("/usr/lib/python3/dist-packages") and "/usr/lib/python3/dist-packages" not in sys.path:
            sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import paho.mqtt.client as mqtt
        except ImportError:
            raise RuntimeError("the attacker needs Debian's python3-paho-mqtt: apt-get install python3-paho-mqtt")
    return mqtt


def missing_paho():
    """None when the attacker can run, else why not."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "attacker.py"), "check"], capture_output=True, timeout=20)
    return None if r.returncode == 0 else (r.stderr or r.stdout).decode(errors="replace").strip()[-300:]


def now_ms():
    return int(time.time() * 1000)


def write_messages(path, messages):
    """messages: iterable of (topic, payload str, retain bool)."""
    with open(path, "w") as f:
        for topic, payload, retain in messages:
            assert "\t" not in topic and "\n" not in payload
            f.write(f"{topic}\t{1 if retain else 0}\t{payload}\n")


class Flood:
    """`attacker.py publish` in the background: start() returns at once, wait() gives its report
    ({"sent": N, "seconds": S})."""

    def __init__(self, port, path, rate=None):
        args = [sys.executable, os.path.join(HERE, "attacker.py"), "publish", "--port", str(port), "--file", path]
        if rate:
            args += ["--rate", str(rate)]
        self.args = args
        self.proc = None

    def start(self):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return self

    def wait(self, timeout=60):
        out, err = self.proc.communicate(timeout=timeout)
        self.t1 = time.monotonic()
        if self.proc.returncode != 0:
            raise RuntimeError(f"the attacker's publisher exited {self.proc.returncode}: {err.decode(errors='replace')[-800:]}")
        return json.loads(out.decode().strip().splitlines()[-1])

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class SilentBroker:
    """A TCP listener on 127.0.0.1 that accepts every connection, reads what comes, and answers
    nothing: a broker that never sends CONNACK. accepted: the number of connections taken."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.conns = []
        self.closed = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self.closed:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.conns.append(c)
            threading.Thread(target=self._drain, args=(c,), daemon=True).start()

    @staticmethod
    def _drain(c):
        try:
            while c.recv(4096):
                pass
        except OSError:
            pass

    def close(self):
        self.closed = True
        self.sock.close()
        for c in self.conns:
            c.close()


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for n in files:
            try:
                total += os.path.getsize(os.path.join(root, n))
            except OSError:
                pass
    return total


def _publish(port, path, rate):
    mqtt = import_paho()
    c = mqtt.Client(client_id=f"rogue-{os.getpid()}", protocol=mqtt.MQTTv311)
    c.connect(HOST, port, keepalive=60)
    c.loop_start()
    t0 = time.monotonic()
    sent = 0
    info = None
    with open(path) as f:
        for line in f:
            topic, retain, payload = line.rstrip("\n").split("\t", 2)
            payload = payload.replace("%NOW%", str(now_ms()))
            info = c.publish(topic, payload, qos=0, retain=retain == "1")
            sent += 1
            if rate:
                ahead = t0 + sent / rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
            elif sent % 500 == 0:
                # Let the network thread drain: the queue stays bounded, not 10,000 deep.
                while c._out_packet and len(c._out_packet) > 2000:
                    time.sleep(0.001)
    if info is not None:
        info.wait_for_publish()
    took = time.monotonic() - t0
    c.disconnect()
    c.loop_stop()
    print(json.dumps({"sent": sent, "seconds": round(took, 3)}))


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check")
    pub = sub.add_parser("publish")
    pub.add_argument("--port", type=int, required=True)
    pub.add_argument("--file", required=True)
    pub.add_argument("--rate", type=float, default=None, help="messages per second (default: as fast as it goes)")
    a = p.parse_args()
    if a.cmd == "check":
        import_paho()
    else:
        _publish(a.port, a.file, a.rate)
