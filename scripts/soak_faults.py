"""`make soak` steps 2 and 3 and the full disk: client abuse beside a person, the mock bus unplugged
for a while, and a full filesystem under the state directory (scripts/soak.py says more)."""
import json, os, subprocess, time

from soak_common import Daemon, connect, fail, request


def abuse(tmp):
    d = Daemon(tmp)
    d.start()
    request(d.sock, {"op": "start", "seconds": 600})
    stuck = []
    for _ in range(8):
        s = connect(d.sock)
        s.sendall(b'{"op":"watch"}\n')
        stuck.append(s)   # never read
    tricklers = [connect(d.sock) for _ in range(8)]
    stop = time.monotonic() + float(os.environ.get("SOAK_ABUSE_SECONDS", "20"))
    import threading
    flooded = [0]

    def flooder():
        try:
            s = connect(d.sock, timeout=10)
            line = b'{"op":"status"}\n' * 200
            while time.monotonic() < stop:
                s.sendall(line)
                got = 0
                buf = b""
                while got < 200:
                    chunk = s.recv(1 << 20)
                    if not chunk:
                        return
                    got += chunk.count(b"\n")
                flooded[0] += 200
            s.close()
        except OSError:
            pass

    threads = [threading.Thread(target=flooder) for _ in range(4)]
    for t in threads:
        t.start()
    lat = []
    i = 0
    while time.monotonic() < stop:
        i += 1
        if i % 10 == 0:
            for t in tricklers:
                try:
                    t.sendall(b" ")
                except OSError:
                    pass
        t0 = time.monotonic()
        r = request(d.sock, {"op": "status"}, timeout=10)
        lat.append((time.monotonic() - t0) * 1000)
        if not r.get("ok"):
            fail(f"a person's status was refused during abuse: {r}")
        time.sleep(0.02)
    for t in threads:
        t.join()
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print(f"soak: abuse (4 flooders, 8 stuck watchers, 8 tricklers): a person's status over {len(lat)} requests: "
          f"p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, max {lat[-1]:.1f} ms; flooders got {flooded[0]} answers", flush=True)
    for s in stuck + tricklers:
        s.close()
    d.stop()


def bus_faults(tmp):
    d = Daemon(tmp, ["--mock-unplug", "1:3"])
    d.start()
    request(d.sock, {"op": "start", "seconds": 60})
    left0 = request(d.sock, {"op": "status"})["activities"][0]["remaining_seconds"]
    t0 = time.monotonic()
    time.sleep(2)
    st = request(d.sock, {"op": "status"})
    if st["status"]["panel_present"]:
        fail("the unplugged mock panel was reported present")
    time.sleep(4)
    st = request(d.sock, {"op": "status"})
    left = st["activities"][0]["remaining_seconds"]
    if abs((left0 - (time.monotonic() - t0)) - left) > 1:
        fail(f"the timer lost time over a bus fault: {left} left, expected {left0 - (time.monotonic() - t0):.2f}")
    if not st["status"]["panel_present"]:
        fail("the replugged mock panel did not come back")
    print(f"soak: bus fault (3 s unplugged): the timer kept time, the panel came back, {st['status']['bus_errors']} bus errors counted", flush=True)
    d.stop()


def full_disk(tmp):
    """Issue 23 §2 on a real full filesystem: a 64 KiB tmpfs as the state directory, filled up."""
    if os.geteuid() != 0:
        print("soak: full disk: skipped (mounting a tmpfs needs root)", flush=True)
        return
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0750", "tmpfs", state]).returncode != 0:
        print("soak: full disk: skipped (mount -t tmpfs failed here)", flush=True)
        return
    try:
        d = Daemon(tmp, ["--log-level", "notice"])   # the later flag wins: the recovery is a notice
        d.start()
        request(d.sock, {"op": "start", "seconds": 300, "timer": "full"})
        filler = os.path.join(state, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 512) > 0:
                pass
        except OSError:
            pass   # ENOSPC: the filesystem is full
        finally:
            os.close(fd)
        paused = request(d.sock, {"op": "pause", "timer": "full"})
        frozen = paused["activities"][0]["remaining_seconds"]
        st = request(d.sock, {"op": "status"})
        if not st["status"].get("store_error"):
            fail("a save on a full filesystem did not set store_error")
        on_disk = json.load(open(os.path.join(state, "activities.json")))["activities"][0]["content"]["phase"]
        if on_disk != "running":
            fail(f"the full filesystem took the pause after all ({on_disk}): the test proves nothing")
        os.remove(filler)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            st = request(d.sock, {"op": "status"})
            on_disk = json.load(open(os.path.join(state, "activities.json")))["activities"][0]["content"]["phase"]
            if not st["status"].get("store_error") and on_disk == "paused":
                break
            time.sleep(0.1)
        else:
            fail(f"space came back but the save was not retried (file says {on_disk}, store_error {st['status'].get('store_error')})")
        healed = time.monotonic() - (deadline - 5)
        d.kill9()
        d.start()
        after = request(d.sock, {"op": "status"})["activities"][0]
        if after["phase"] != "paused" or abs(after["remaining_seconds"] - frozen) > 0.001:
            fail(f"after kill -9 the timer came back {after['phase']} at {after['remaining_seconds']} s, not paused at {frozen} s")
        log = open(os.path.join(tmp, "log")).read()
        if log.count("the state file is saved again") != 1:
            fail("the recovery was not logged exactly once")
        print(f"soak: full disk (64 KiB tmpfs): the pause reached the file {healed:.1f} s after space came back; kill -9 restored it paused at {frozen} s", flush=True)
        d.stop()
    finally:
        subprocess.run(["umount", "-l", state])
