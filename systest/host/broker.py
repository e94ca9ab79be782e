"""The MQTT broker of one guest's run, on the host: Debian's mosquitto on 127.0.0.1:<a free port>
with a config, a user and a password of its own for this run. The guest reaches it only through
its qemu user-mode NIC (restrict=on: nothing else gets out), whose guestfwd runs
systest/mqtt_relay.py for each connection to 10.0.2.100:1883. The guest asks the host to speak to
the broker by leaving files in the results folder (serve): the clients run on the host side, so a
command crosses the host's broker and the guest's unit both ways. Evidence in the results:
mosquitto.log, mqtt-traffic.txt (every message the broker carried), mqtt-relay.log (the guest's
connections), mqtt/ (the requests and the replies).

Not testkit.broker's Broker: that one runs as root in a session of its own, logs in its own folder
and formats what its clients receive; this one must die with a run killed outright (setpriv
--pdeathsig), keep its evidence in the results, and hand the guest mosquitto_rr's and
mosquitto_sub's raw output and exit status, which the scenario reads.
"""
import glob
import grp
import os
import pwd
import re
import shutil
import subprocess
import time

from host.common import die, pkg_version, run, say
from testkit.wait import free_port

USER = "islet"


def stop_process(p, step=0.2):
    """TERM, up to ten steps for it to go, then KILL."""
    if p is None or p.poll() is not None:
        return
    p.terminate()
    for _ in range(10):
        if p.poll() is not None:
            break
        time.sleep(step)
    p.kill()
    p.wait()


class Broker:
    def __init__(self):
        self.port = None
        self.password = None
        self.procs = []

    def start(self, d, results, share):
        """Starts the broker with its files in D (mosquitto drops to its own user and reads its
        password file as that user, so D's parent must let it through), logging to RESULTS;
        leaves the password in SHARE/mqtt-password for the guest."""
        os.makedirs(d, exist_ok=True)
        try:
            pwd.getpwnam("mosquitto")
        except KeyError:
            die("no mosquitto user: is Debian's mosquitto installed?")
        self.port = free_port()
        self.password = os.urandom(12).hex()
        run(["mosquitto_passwd", "-c", "-b", f"{d}/passwd", USER, self.password], stdout=subprocess.DEVNULL)
        gid = grp.getgrnam("mosquitto").gr_gid
        for f, mode in ((d, 0o750), (f"{d}/passwd", 0o640)):
            os.chown(f, 0, gid)
            os.chmod(f, mode)
        with open(f"{d}/mosquitto.conf", "w") as f:
            f.write(f"""# The system test's broker, for one run only.
listener {self.port} 127.0.0.1
allow_anonymous false
password_file {d}/passwd
user mosquitto
persistence false
log_dest stderr
log_type error
log_type warning
log_type notice
log_type information
log_timestamp_format %H:%M:%S
connection_messages true
""")
        with open(f"{results}/mosquitto.log", "ab") as log:
            broker = subprocess.Popen(["setpriv", "--pdeathsig", "TERM", "mosquitto", "-c", f"{d}/mosquitto.conf"],
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(broker)
        for i in range(1, 51):
            if run([*self.client("mosquitto_pub"), "-t", "systest/up", "-n"], stderr=subprocess.DEVNULL).returncode == 0:
                break
            if broker.poll() is not None:
                die(f"mosquitto did not start (see {results}/mosquitto.log)")
            if i == 50:
                die(f"mosquitto does not answer on 127.0.0.1:{self.port} (see {results}/mosquitto.log)")
            time.sleep(0.2)
        # Every message the broker carries, as it carries it: time, retained flag, topic, payload.
        with open(f"{results}/mqtt-traffic.txt", "wb") as out:
            self.procs.append(subprocess.Popen(
                ["setpriv", "--pdeathsig", "TERM", *self.client("mosquitto_sub"), "-i", "systest-traffic",
                 "-F", "%I %r %t %p", "-t", "#"], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT))
        with open(f"{share}/mqtt-password", "w") as f:
            f.write(self.password + "\n")
        say(f"MQTT broker: mosquitto {pkg_version('mosquitto')} on 127.0.0.1:{self.port} (pid {broker.pid}), "
            "the guest's 10.0.2.100:1883")

    def client(self, name):
        return [name, "-h", "127.0.0.1", "-p", str(self.port), "-u", USER, "-P", self.password]

    def stop(self):
        """Stops the traffic logger and the broker."""
        for p in reversed(self.procs):
            stop_process(p)
        self.procs = []

    def serve(self, results):
        """Answers the guest's requests. The guest writes RESULTS/mqtt/request-N (renamed into
        place when complete) with the lines prefix=<topic prefix>, command=<a request object, or
        nothing> and read=<subtopics, space-separated>; the host sends the command to
        <prefix>/command with mosquitto_rr and waits for <prefix>/response, then reads the
        retained message of each <prefix>/<subtopic>, and renames the folder RESULTS/mqtt/reply-N
        into place: response (the answer's payload), response.rc, response.seconds, and for each
        subtopic a file named after it ('/' as '-') with its payload and .rc (27: no retained
        message within 2 s)."""
        for req in sorted(glob.glob(f"{results}/mqtt/request-*")):
            n = req.rsplit("/request-", 1)[1]
            if not os.path.isfile(req) or os.path.exists(f"{results}/mqtt/reply-{n}"):
                continue
            out = f"{results}/mqtt/.reply-{n}"
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            with open(req, errors="surrogateescape") as f:
                lines = f.read().split("\n")
            field = {k: "\n".join(ln[len(k) + 1:] for ln in lines if ln.startswith(k + "="))
                     for k in ("prefix", "command", "read")}
            prefix, command, reads = field["prefix"], field["command"], field["read"]
            if not re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*", prefix) or not re.fullmatch(r"[A-Za-z0-9_/ -]*", reads):
                with open(f"{out}/error", "w") as f:
                    f.write(f"request {n}: bad prefix '{prefix}' or subtopics '{reads}'\n")
                os.rename(out, f"{results}/mqtt/reply-{n}")
                continue
            if command:
                t0 = time.time()
                with open(f"{out}/response", "wb") as o, open(f"{out}/response.err", "wb") as e:
                    rc = run([*self.client("mosquitto_rr"), "-q", "1", "-W", "20", "-t", f"{prefix}/command",
                              "-e", f"{prefix}/response", "-m", command], stdout=o, stderr=e).returncode
                write(f"{out}/response.rc", f"{rc}\n")
                write(f"{out}/response.seconds", f"{time.time() - t0:.3f}\n")
            for t in reads.split():
                f = f"{out}/{t.replace('/', '-')}"
                with open(f, "wb") as o, open(f"{f}.err", "wb") as e:
                    rc = run([*self.client("mosquitto_sub"), "-t", f"{prefix}/{t}", "--retained-only", "-C", "1", "-W", "2"],
                             stdout=o, stderr=e).returncode
                write(f"{f}.rc", f"{rc}\n")
            os.rename(out, f"{results}/mqtt/reply-{n}")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
