"""The scenario's steps that reach the host through the unit's network: j1 ([mqtt] with the
host's broker) and j3 ([web], fetched by the host). The host answers requests written to the
results share (systest/host/broker.py's serve, systest/host/web.py)."""
import os
import time

from guestlib import (C, CONF, R, check, conf_set, fail, installed, jget, log, now, out, quiet_ok,
                      read, run, secs_since, status_json, timing, unit_prop, wait_for,
                      ensure_daemon, is_phase)

from steps_net import (BROKER_IP, HOME_RANGES, NETDROPIN, at_most_2, closed_again, has_word,
                       journal_quiet, netdevs, ns_net, open_ranges, reload_opened, security_score)


def next_request(counter):
    """Requests are numbered across steps and boots, in a file on the disk."""
    path = "/var/lib/systest/" + counter
    n = int(read(path, "0") or "0") + 1
    with open(path, "w") as f:
        f.write("%d\n" % n)
    return n


def post(folder, n, text, what):
    """Writes request N (atomically, by a rename) and waits 45 s for the host's reply folder."""
    os.makedirs(folder, exist_ok=True)
    with open("%s/.request-%d" % (folder, n), "w") as f:
        f.write(text)
    os.rename("%s/.request-%d" % (folder, n), "%s/request-%d" % (folder, n))
    reply = "%s/reply-%d" % (folder, n)
    if not wait_for(45, lambda: os.path.isdir(reply)):
        fail("the host did not answer %s %d within 45 s%s" % (what, n, (
            " (its broker: %s/mosquitto.log)" % R) if what == "request" else ""))
    return reply


def mqtt_host(prefix, command, subtopics):
    """Asks the host to send COMMAND (or nothing) to PREFIX/command and read the retained
    PREFIX/<subtopic>s; returns the reply folder."""
    n = next_request("mqtt-n")
    reply = post(R + "/mqtt", n, "prefix=%s\ncommand=%s\nread=%s\n" % (prefix, command, subtopics),
                 "request")
    for f in sorted(os.listdir(reply)):
        if not f.endswith(".err"):
            with open("%s/%s" % (reply, f), "rb") as h:
                head = h.read(400).decode("utf-8", "replace")
            log("host reply %d: %s: %s" % (n, f, head.rstrip("\n")))
    return reply


def retained_is(reply, sub, expr):
    """The reply has SUBTOPIC's retained message and EXPR (jget) is True."""
    f = "%s/%s" % (reply, sub.replace("/", "-"))
    return read(f + ".rc", "") == "0" and jget(f, expr) == "True"


def retained_gone(reply, sub):
    f = "%s/%s" % (reply, sub.replace("/", "-"))
    return read(f + ".rc", "") == "27" and not (os.path.isfile(f) and os.path.getsize(f) > 0)


def until_retained(prefix, reply, cond, why):
    """COND(reply folder) on the retained activity, read again up to 3 times 0.5 s apart."""
    k = 0
    while not cond(reply):
        k += 1
        if k > 3:
            fail(why)
        time.sleep(0.5)
        reply = mqtt_host(prefix, "", "activity/meditation")


def web_host(*paths):
    """Asks the host (systest/host/web.py, through qemu's forward of its 127.0.0.1:<port> to this guest's
    8080) to GET each PATH; the reply folder has <k>.status, .headers, .body, .seconds, .error."""
    n = next_request("web-n")
    reply = post(R + "/web", n, "".join(p + "\n" for p in paths), "web request")
    for k, p in enumerate(paths, 1):
        b = "%s/%d." % (reply, k)
        log("host GET %s: status %s in %s s, %d bytes %s" % (p, read(b + "status", ""), read(
            b + "seconds", ""), os.path.getsize(b + "body"), read(b + "error", "")))
    return reply


def active():
    return quiet_ok("systemctl", "is-active", "--quiet", "isletd")


def restore(section, saved, also=()):
    """The config is put back whatever happened: stop, daemon-reload, start (a reload applies
    the unit's new IP firewall to the running daemon at once, cutting it off)."""
    if not os.path.isfile(saved):
        return
    run("systemctl", "stop", "isletd", check=False)
    run("cp", saved, CONF, check=False)
    for f in (saved,) + tuple(also):
        if os.path.exists(f):
            os.remove(f)
    run("systemctl", "daemon-reload", check=False)
    run("systemctl", "start", "isletd", check=False)
    log("config restored (no [%s]): stop, daemon-reload, start" % section)


def mqtt_connected():
    status_json("/run/m.json")
    return jget("/run/m.json", '(d["status"].get("mqtt") or {}).get("state")') == "connected"


def step_j1_mqtt():
    """[mqtt] with the host's broker: the generator's drop-in opens the unit for the broker's
    address alone; a command sent from the host's side comes back answered, with the activity's
    retained state; without [mqtt] the unit is closed again."""
    ensure_daemon()
    if not os.path.isfile("/host/mqtt-password"):
        fail("no broker on the host side (/host/mqtt-password is missing)")
    quiet_ok("isletctl", "reset")
    # Closed as in step a (checked there): the figure to come back to.
    before = security_score()
    log("systemd-analyze security isletd.service without [mqtt]: %s" % before)
    check("no network drop-in to begin with", not os.path.exists(NETDROPIN))
    run("cp", CONF, "/run/conf.j1")
    run("cp", CONF, "/run/conf.before-j1")
    try:
        cid, prefix, with_ = j1_open()
    finally:
        restore("mqtt", "/run/conf.j1", ("/etc/islet/mqtt.password",))
    closed_again("mqtt", "j1", before, with_, "[mqtt] url = mqtt://%s:1883" % BROKER_IP)


def j1_open():
    run("install", "-m", "0640", "-o", "root", "-g", "islet", "/host/mqtt-password",
        "/etc/islet/mqtt.password")
    conf_set(CONF, "mqtt", "keepalive", "10")
    conf_set(CONF, "mqtt", "password_file", "/etc/islet/mqtt.password")
    conf_set(CONF, "mqtt", "username", "islet")
    conf_set(CONF, "mqtt", "url", "mqtt://%s:1883" % BROKER_IP)
    run("sed", "-n", r"/^\[mqtt\]/,/^\[/p", CONF)
    check("isletd --check-config takes [mqtt]",
          lambda: run("isletd", "--check-config", "--config", CONF, check=False) == 0)
    j, u = reload_opened("", "RestrictAddressFamilies=AF_UNIX AF_INET (an IPv4 broker: no AF_INET6)",
                         "AF_INET AF_UNIX", timed=True)
    if u.allow in (BROKER_IP, BROKER_IP + "/32"):
        log("ok: IPAddressAllow= is the broker's address alone")
    else:
        fail("IPAddressAllow= is '%s', expected %s alone" % (u.allow, BROKER_IP))
    check("IPAddressDeny= still denies everything else", has_word(u.deny, "0.0.0.0/0"))
    run("systemctl", "restart", "isletd")
    t0 = now()
    if not wait_for(30, mqtt_connected):
        fail("MQTT is not connected 30 s after the restart: %s"
             % jget("/run/m.json", 'd["status"].get("mqtt")'))
    log("connected %s s after the restart: %s" % (secs_since(t0), jget("/run/m.json", 'd["status"]["mqtt"]')))
    journal_quiet(j)
    prefix = jget("/run/m.json", 'd["status"]["mqtt"]["topic_prefix"]')
    cid = jget("/run/m.json", 'd["status"]["mqtt"]["client_id"]')
    pid = unit_prop("MainPID")
    log("interfaces: isletd's (pid %s): %s" % (pid, netdevs(pid)))
    check("isletd is in the guest's network namespace", ns_net(pid) == ns_net(1))
    with_ = security_score()
    log("systemd-analyze security isletd.service with [mqtt]: %s" % with_)
    check("systemd-analyze security with [mqtt] is at most 2.0 (got %s)" % with_, at_most_2(with_))
    j1_round_trip(prefix)
    # Without [mqtt]: stop (the clean stop says offline and disconnects), daemon-reload, start.
    run("cp", "/run/conf.j1", CONF)
    for f in ("/run/conf.j1", "/etc/islet/mqtt.password"):
        if os.path.exists(f):
            os.remove(f)
    run("systemctl", "stop", "isletd")
    # The host's broker log is on the results share.
    line = "Client %s disconnected." % cid
    if not wait_for(10, lambda: line in read(R + "/mosquitto.log", "")):
        seen = [l for l in read(R + "/mosquitto.log", "").splitlines() if cid in l]
        fail("the broker saw no clean DISCONNECT from %s: %s" % (cid, "\n".join(seen[-2:])))
    log("ok: the broker saw %s disconnect cleanly" % cid)
    reply = mqtt_host(prefix, "", "availability")
    check("the clean stop left offline on the broker (retained)",
          read(reply + "/availability", "") == "offline")
    return cid, prefix, with_


def j1_round_trip(prefix):
    """The host's mosquitto_rr sends start to <prefix>/command through its broker, the unit's
    daemon answers on <prefix>/response; the activity's state is retained."""
    t0 = now()
    reply = mqtt_host(prefix, '{"op":"start","seconds":600,"request_id":"sys1"}',
                      "availability activity/meditation")
    rc = read(reply + "/response.rc", "")
    check("mosquitto_rr on the host got an answer (exit %s)" % rc, rc == "0")
    rr = read(reply + "/response.seconds")
    ok_, _, rid = jget(reply + "/response", '"%s %s" % (d["ok"], d.get("request_id"))').partition(" ")
    check("the answer is ok (%s)" % ok_, ok_ == "True")
    check("the answer carries request_id sys1 (%s)" % rid, rid == "sys1")
    check("<prefix>/availability is online (retained)", read(reply + "/availability", "") == "online")
    # The state is published on the transition, beside the answer: it may come a moment later.
    until_retained(prefix, reply, lambda r: retained_is(
        r, "activity/meditation", 'd["timer"] == "meditation" and d["phase"] == "running" and '
        'd["attributes"]["cycle_seconds"] == 600'),
        "<prefix>/activity/meditation does not hold the running 600 s countdown")
    log("ok: <prefix>/activity/meditation holds the running 600 s countdown (retained)")
    status_json("/run/s.json")
    seen = jget("/run/s.json", '[(a["timer"], a["phase"], a["attributes"]["cycle_seconds"]) for a in d["activities"]]')
    check("isletctl status: the one activity is meditation running a 600 s cycle (%s)" % seen,
          seen == '[["meditation", "running", 600]]')
    timing("MQTT round trip: %.0f ms from the host's mosquitto_rr (connect, subscribe, publish "
           "start) to the answer from the guest's unit; the whole check, with the host's polling "
           "(every 0.5 s) and the retained reads: %s s" % (float(rr) * 1000, secs_since(t0)))
    reply = mqtt_host(prefix, '{"op":"reset","request_id":"sys2"}', "activity/meditation")
    check("reset through MQTT: ok", jget(reply + "/response", 'd["ok"]') == "True")
    until_retained(prefix, reply, lambda r: retained_gone(r, "activity/meditation"),
                   "<prefix>/activity/meditation was not cleared after the reset")
    log("ok: the dismissed activity's retained message was cleared")
    check("isletctl status: idle", lambda: is_phase("idle"))


def step_j3_web():
    """[web] on every address (read only, so no password is needed): the generator's drop-in
    opens AF_INET and the home ranges; the host fetches the page through qemu's forward (from
    10.0.2.2, inside 10.0.0.0/8); without [web] the unit is closed again. The package only
    recommends libmicrohttpd: it is added here, as apt's default does."""
    ensure_daemon()
    quiet_ok("isletctl", "reset")
    before = security_score()
    log("systemd-analyze security isletd.service without [web]: %s" % before)
    check("no network drop-in to begin with", not os.path.exists(NETDROPIN))
    t0 = now()
    run("apt-get", "install", "-y", "-q", "--no-install-recommends", C.web_lib)
    check("%s (recommended by the package) is installed from the local repository" % C.web_lib,
          installed(C.web_lib))
    v = out("dpkg-query", "-W", "-f=${Version}", C.web_lib)
    log("apt-get install %s %s took %s s" % (C.web_lib, v, secs_since(t0)))
    run("cp", CONF, "/run/conf.j3")
    run("cp", CONF, "/run/conf.before-j3")
    try:
        with_ = j3_open()
    finally:
        restore("web", "/run/conf.j3")
    closed_again("web", "j3", before, with_, "[web] listen = 0.0.0.0:8080, read_only = on")


def j3_open():
    conf_set(CONF, "web", "read_only", "on")
    conf_set(CONF, "web", "listen", "0.0.0.0:8080")
    run("sed", "-n", r"/^\[web\]/,/^\[/p", CONF)
    check("isletd --check-config takes [web]",
          lambda: run("isletd", "--check-config", "--config", CONF, check=False) == 0)
    j, u = reload_opened(" for [web]", "RestrictAddressFamilies=AF_UNIX AF_INET (an IPv4 listen "
                         "address: no AF_INET6)", "AF_INET AF_UNIX")
    open_ranges(u, HOME_RANGES)
    check("IPAddressDeny= still denies everything else", has_word(u.deny, "0.0.0.0/0"))
    run("systemctl", "restart", "isletd")
    check("active with [web]", active)
    journal_quiet(j)
    status_json("/run/w.json")
    url = jget("/run/w.json", '(d["status"].get("web") or {}).get("url")')
    host = read("/proc/sys/kernel/hostname")
    log("status.web: %s; host name %s" % (jget("/run/w.json", 'd["status"].get("web")'), host))
    check("status.web.url is http://<host name>.local:8080/ (%s)" % url,
          url == "http://%s.local:8080/" % host.lower())
    with_ = security_score()
    log("systemd-analyze security isletd.service with [web]: %s" % with_)
    check("systemd-analyze security with [web] is at most 2.0 (got %s)" % with_, at_most_2(with_))
    # From the host, through the NIC and the unit's firewall.
    reply = web_host("/api/session", "/")
    check("GET /api/session from the host: 200", read(reply + "/1.status", "") == "200")
    check("the session says read only", jget(reply + "/1.body", 'd["ok"] and d["read_only"]') == "True")
    check("GET / from the host: 200", read(reply + "/2.status", "") == "200")
    headers = read(reply + "/2.headers", "").splitlines()
    csp = [h for h in headers if h.lower().startswith("content-security-policy:")]
    if csp:
        print("\n".join(csp), flush=True)
    check("GET / has Content-Security-Policy: default-src 'self'",
          any(h.lower().startswith("content-security-policy: default-src 'self'") for h in headers))
    check("GET / is the page (HTML)", "<html" in read(reply + "/2.body", "").lower())
    status_json("/run/w.json")
    check("the daemon counted the host's requests",
          jget("/run/w.json", 'd["status"]["web"]["requests"] >= 2') == "True")
    timing("web page from the host (qemu's forward to the guest's 8080): GET /api/session %s s, "
           "GET / %s s (%d bytes)" % (read(reply + "/1.seconds", ""), read(reply + "/2.seconds", ""),
                                      os.path.getsize(reply + "/2.body")))
    # Without [web]: stop, daemon-reload, start (as in j1: a reload cuts the running daemon off).
    run("systemctl", "stop", "isletd")
    run("cp", "/run/conf.j3", CONF)
    os.remove("/run/conf.j3")
    return with_
