"""The guest's web page from the host's side: serve(RESULTS, PORT) answers the guest's requests.

The guest's page listens on its port 8080; qemu's user-mode NIC forwards 127.0.0.1:PORT on the
host to it (hostfwd), so a GET from here crosses the NIC and the unit's IP firewall as a browser
on the home network would (inside the guest it comes from 10.0.2.2, qemu's address for the host).
The guest writes RESULTS/web/request-N (renamed into place when complete): one path a line. For
each, this GETs http://127.0.0.1:PORT<path> (Host: 127.0.0.1:PORT, an address literal, which the
page's rebinding check takes) and writes, in RESULTS/web/reply-N (renamed into place when whole),
<k>.status (the HTTP status, or 0 when no answer came), <k>.headers (one "Name: value" a line),
<k>.body, <k>.seconds and <k>.error for the k-th path (1, 2, ...). Called by the qemu runner's loop
every 0.5 s; it handles every request that has no reply yet and returns.
"""
import http.client
import os
import re
import shutil
import time

PATH_RE = re.compile(r"^/[A-Za-z0-9._~/?=&%-]*$")


def get(port, path, out, k):
    t0 = time.monotonic()
    status, headers, body, error = 0, [], b"", ""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        c.request("GET", path, headers={"Accept": "*/*", "User-Agent": "islet-systest"})
        r = c.getresponse()
        status, headers, body = r.status, r.getheaders(), r.read(1 << 20)
        c.close()
    except (OSError, http.client.HTTPException) as e:
        error = f"{type(e).__name__}: {e}"
    for name, data in ((f"{k}.status", f"{status}\n"), (f"{k}.headers", "".join(f"{h}: {v}\n" for h, v in headers)),
                       (f"{k}.seconds", f"{time.monotonic() - t0:.3f}\n"), (f"{k}.error", error)):
        with open(os.path.join(out, name), "w") as f:
            f.write(data)
    with open(os.path.join(out, f"{k}.body"), "wb") as f:
        f.write(body)


def serve(results, port):
    folder = os.path.join(results, "web")
    if not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        m = re.fullmatch(r"request-(\d+)", name)
        if not m or os.path.exists(os.path.join(folder, f"reply-{m[1]}")):
            continue
        out = os.path.join(folder, f".reply-{m[1]}")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        with open(os.path.join(folder, name)) as f:
            paths = [line.strip() for line in f if line.strip()]
        for k, path in enumerate(paths, 1):
            if PATH_RE.match(path):
                get(port, path, out, k)
            else:
                with open(os.path.join(out, f"{k}.error"), "w") as f:
                    f.write(f"not a path this client sends: {path!r}")
        os.rename(out, os.path.join(folder, f"reply-{m[1]}"))

