"""A network namespace where a broker address and a DNS server are black holes.

No tc netem, iptables or nft here, so the hole is made with the neighbour table: the daemon's
namespace ("<name>-d") has a veth whose peer sits in a second namespace ("<name>-p"); the
"broker" (BROKER, 10.231.0.2) and the "DNS server" (DNS, 10.231.0.53) are given permanent
neighbour entries with MAC addresses nobody has. Frames to them leave on the veth and the peer
drops them (not its MAC): a TCP connect to BROKER hangs without an answer, and a DNS query to DNS
gets none. /etc/netns/<name>-d/resolv.conf names DNS as the only server (ip netns exec
bind-mounts it over /etc/resolv.conf), so a broker URL with a host name (HOSTNAME, under
.invalid, which glibc does not short-circuit: self_test() shows the lookup waits for the
server) hangs in getaddrinfo.

Nothing leaves the namespaces: they have no route anywhere else. Every exit path removes them
(close(), the context manager, and testkit/reaper.py at exit and on SIGTERM/SIGHUP); namespaces left by a run that was
killed -9 are removed by the next run (their owner pid is dead).
"""
import os
import re
import shutil
import subprocess
import time

import _path  # noqa: F401  (the repository root on sys.path)
from testkit import procfs, reaper

PREFIX = "islet-mqtt-"
SUBNET = "10.231.0"
SELF = f"{SUBNET}.1"
BROKER = f"{SUBNET}.2"
DNS = f"{SUBNET}.53"
HOSTNAME = "broker.islet-test.invalid"
_live = []


def _ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)
    if check and r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


def available():
    """None when namespaces can be made here, else why not."""
    if shutil.which("ip") is None:
        return "iproute2's ip is not installed"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    return None


def _namespaces():
    r = _ip("netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def remove_stale():
    """Removes namespaces (and their /etc/netns files) of ours whose owning process is gone (a
    run killed -9)."""
    etc = os.listdir("/etc/netns") if os.path.isdir("/etc/netns") else []
    for ns in set(_namespaces()) | set(etc):
        m = re.fullmatch(re.escape(PREFIX) + r"(\d+)-\d+-[dp]", ns)
        if m and not procfs.alive(m.group(1)):
            if ns in _namespaces():
                _ip("netns", "del", ns, check=False)
            shutil.rmtree(f"/etc/netns/{ns}", ignore_errors=True)


class BlackHole:
    _count = 0

    def __init__(self, resolver_timeout=5, resolver_attempts=2):
        why = available()
        if why:
            raise RuntimeError(f"cannot make the black-hole namespace: {why}")
        remove_stale()
        BlackHole._count += 1
        base = f"{PREFIX}{os.getpid()}-{BlackHole._count}"
        self.ns, self.peer = base + "-d", base + "-p"
        # Interface names are at most 15 bytes, and live in the namespaces' own tables.
        self.dev, self.peer_dev = "bh-a", "bh-b"
        self.closed = False
        _live.append(self)
        try:
            _ip("netns", "add", self.ns)
            _ip("netns", "add", self.peer)
            _ip("-n", self.ns, "link", "add", self.dev, "type", "veth", "peer", "name", self.peer_dev,
                "netns", self.peer)
            _ip("-n", self.ns, "link", "set", "lo", "up")
            _ip("-n", self.ns, "addr", "add", f"{SELF}/24", "dev", self.dev)
            _ip("-n", self.ns, "link", "set", self.dev, "up")
            _ip("-n", self.peer, "link", "set", self.peer_dev, "up")
            for addr, mac in ((BROKER, "02:00:00:00:00:99"), (DNS, "02:00:00:00:00:98")):
                _ip("-n", self.ns, "neigh", "add", addr, "lladdr", mac, "dev", self.dev, "nud", "permanent")
            self.etc = f"/etc/netns/{self.ns}"
            os.makedirs(self.etc, exist_ok=True)
            with open(os.path.join(self.etc, "resolv.conf"), "w") as f:
                f.write(f"# mqtt/blackhole.py: the only server is a black hole\nnameserver {DNS}\n"
                        f"options timeout:{resolver_timeout} attempts:{resolver_attempts}\n")
            # A hosts file of our own, so no host entry of this machine's answers the name.
            with open(os.path.join(self.etc, "hosts"), "w") as f:
                f.write("127.0.0.1 localhost\n")
        except BaseException:
            self.close()
            raise

    def exec_prefix(self):
        return ["ip", "netns", "exec", self.ns]

    def run(self, *cmd, timeout=30):
        return subprocess.run(self.exec_prefix() + list(cmd), capture_output=True, timeout=timeout)

    def close(self):
        if self.closed:
            return
        self.closed = True
        for ns in (self.ns, self.peer):
            _ip("netns", "del", ns, check=False)
        shutil.rmtree(f"/etc/netns/{self.ns}", ignore_errors=True)
        if self in _live:
            _live.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def self_test(self, connect_wait=2.0, lookup_wait=2.0):
        """Measures that the holes are holes: (seconds a TCP connect to BROKER:1883 waited before
        we gave up, seconds `getent hosts HOSTNAME` waited before we gave up). Raises when either
        answered (a refusal, an address) instead of hanging."""
        probe = ("import socket,sys,time\n"
                 "s=socket.socket(); s.settimeout(float(sys.argv[1])); t=time.monotonic()\n"
                 "try:\n s.connect((sys.argv[2],1883)); print('CONNECTED')\n"
                 "except socket.timeout: print('TIMEOUT %.3f' % (time.monotonic()-t))\n"
                 "except OSError as e: print('ERROR', e)\n")
        r = self.run("python3", "-c", probe, str(connect_wait), BROKER)
        out = r.stdout.decode().strip()
        if not out.startswith("TIMEOUT"):
            raise RuntimeError(f"the broker address {BROKER} is no black hole: {out} {r.stderr.decode()}")
        connect = float(out.split()[1])
        t0 = time.monotonic()
        try:
            r = subprocess.run(self.exec_prefix() + ["getent", "hosts", HOSTNAME], capture_output=True,
                               timeout=lookup_wait)
            raise RuntimeError(f"looking up {HOSTNAME} did not hang: exit {r.returncode} after "
                               f"{time.monotonic() - t0:.2f} s ({r.stdout.decode().strip()})")
        except subprocess.TimeoutExpired:
            lookup = time.monotonic() - t0
        return connect, lookup


def _close_all():
    for bh in list(_live):
        bh.close()


# After the processes (a daemon inside keeps a namespace alive), on every way out (testkit/reaper.py).
reaper.on_exit(_close_all)
