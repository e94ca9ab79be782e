"""The unit's network, for the scenario's steps: the guest's NIC, the unit as systemd sees it,
"closed" (no [mqtt], no [web]), the generator's drop-in for a named broker (step g3), closed
again after a network section is removed (j1, j3), and closed after the reboot (j2).

The network: the generator's drop-in exists only with [mqtt] or [web]; the broker is the host's
(systest/host/broker.py), at 10.0.2.100:1883 on the guest's user-mode NIC, the one address that NIC
reaches."""
import os
import re
import subprocess
import time

from guestlib import (CONF, G, R, append, check, fail, jget, log, now, out, quiet_ok, read, run,
                      secs_since, status_json, wait_for, conf_set)

NETDROPIN = "/run/systemd/generator/isletd.service.d/50-mqtt-network.conf"
GEN_DEB = "/lib/systemd/system-generators/isletd-network-generator"
GEN_LOCAL = "/usr/local/lib/systemd/system-generators/isletd-network-generator"
BROKER_IP = "10.0.2.100"
GUEST_IP = "10.0.2.15/24"
HOME_RANGES = "127.0.0.0/8 169.254.0.0/16 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16".split()


def nic_up():
    """The guest's NIC gets its address (no DHCP client in the image); its name in /run/systest-nic."""
    run("udevadm", "settle", check=False)
    with open("/run/systest-nic", "w") as f:
        up = run("python3", G + "/netup.py", GUEST_IP, stdout=f, check=False) == 0
    if up:
        log("NIC %s: %s (qemu user-mode, restrict=on: only %s:1883, the host's broker)"
            % (read("/run/systest-nic"), GUEST_IP, BROKER_IP))
    else:
        log("WARNING: the NIC did not come up; the network checks will fail")


def netdevs(pid):
    """The interfaces in PID's network namespace, sorted, space-separated."""
    lines = open("/proc/%s/net/dev" % pid).read().splitlines()[2:]
    return " ".join(sorted(l.split(":")[0].replace(" ", "") for l in lines))


def security_score():
    """systemd-analyze security's overall exposure of the unit (0 safe .. 10 exposed)."""
    p = subprocess.run(["systemd-analyze", "security", "isletd.service"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    found = re.findall(r".*Overall exposure level for isletd.service: ([0-9.]*)", p.stdout)
    return "\n".join(found)


def at_most_2(s):
    try:
        return s != "" and float(s) <= 2.0
    except ValueError:
        return False


class Unit:
    """The unit's network settings, MainPID and DropInPaths (one systemctl show: under TCG each
    call costs a few hundred ms); families is RestrictAddressFamilies sorted."""

    def __init__(self):
        text = out("systemctl", "show", "isletd", "-p", "PrivateNetwork", "-p",
                   "RestrictAddressFamilies", "-p", "IPAddressAllow", "-p", "IPAddressDeny",
                   "-p", "MainPID", "-p", "DropInPaths")
        p = {}
        for line in text.splitlines():
            k, _, v = line.partition("=")
            p[k] = v
        self.private = p.get("PrivateNetwork", "")
        self.allow = p.get("IPAddressAllow", "")
        self.deny = p.get("IPAddressDeny", "")
        self.main_pid = p.get("MainPID", "")
        self.dropins = p.get("DropInPaths", "")
        self.families = " ".join(sorted(p.get("RestrictAddressFamilies", "").split()))
        log("unit: PrivateNetwork=%s RestrictAddressFamilies=%s IPAddressAllow=%s IPAddressDeny=%s"
            % (self.private, p.get("RestrictAddressFamilies", ""), self.allow, self.deny))


def has_word(words, word):
    """WORD is one of WORDS's space-separated words."""
    return word in words.split(" ")


def ns_net(pid):
    return os.readlink("/proc/%s/ns/net" % pid)


def expect_closed(generator):
    """The unit as it is without [mqtt]: the generator installed, no drop-in, and the daemon
    without network (only lo, a namespace of its own) while the guest has its NIC."""
    check("the generator is installed: %s" % generator, os.access(generator, os.X_OK))
    check("no network drop-in (%s)" % NETDROPIN, not os.path.exists(NETDROPIN))
    u = Unit()
    check("PrivateNetwork=yes", u.private == "yes")
    check("RestrictAddressFamilies=AF_UNIX", u.families == "AF_UNIX")
    check("IPAddressAllow= is empty", u.allow == "")
    pid = u.main_pid
    if not (pid.isdigit() and int(pid) > 1):
        fail("isletd has no main process (MainPID=%s)" % pid)
    guest_if, own = netdevs(1), netdevs(pid)
    nic = read("/run/systest-nic", "no-nic")
    log("interfaces: the guest's: %s; isletd's (pid %s): %s" % (guest_if, pid, own))
    check("the guest has its NIC (%s)" % nic, has_word(guest_if, nic))
    check("isletd has only lo", own == "lo")
    check("isletd has a network namespace of its own", ns_net(pid) != ns_net(1))
    status_json("/run/n.json")
    check("isletctl status has no mqtt", jget("/run/n.json", 'd["status"].get("mqtt")') == "")


def journal_quiet(since):
    """systemd said nothing about the drop-in (a line it could not parse) and has its IP firewall
    (IPAddressAllow/Deny need cgroup BPF)."""
    text = out("journalctl", "--since", "@%s" % since, "--no-pager", "-o", "cat", check=False)
    name = os.path.basename(NETDROPIN).lower()
    bad = [l for l in text.splitlines()
           if name in l.lower() or re.search("firewall.*not supported", l, re.I)]
    if bad:
        print("\n".join(bad), flush=True)
        fail("systemd complained about the drop-in or the IP firewall (above)")
    log("ok: no complaint from systemd about the drop-in or the IP firewall")


def security_note(text):
    append(R + "/security.txt", text + "\n")
    log("security: %s" % text)


def cmp_conf(before):
    return quiet_ok("cmp", "-s", before, CONF)


def closed_again(section, step, before, with_, what):
    """After a network section is removed (j1 [mqtt], j3 [web]): daemon-reload drops the drop-in,
    the daemon starts closed again with the exposure it had before, the config as before the step."""
    t0 = now()
    run("systemctl", "daemon-reload")
    log("daemon-reload took %s s" % secs_since(t0))
    check("the drop-in is gone after daemon-reload", not os.path.exists(NETDROPIN))
    run("systemctl", "start", "isletd")
    check("active without [%s]" % section, lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd"))
    expect_closed(GEN_DEB)
    after = security_score()
    log("systemd-analyze security isletd.service after [%s] was removed: %s" % (section, after))
    check("the exposure is back to %s (got %s)" % (before, after), after == before)
    check("the config is the one before the step", cmp_conf("/run/conf.before-" + step))
    security_note("systemd-analyze security isletd.service (the package's unit): %s without [%s]; "
                  "%s with %s (the generator's drop-in); %s once it was removed"
                  % (before, section, with_, what, after))


def open_ranges(u, ranges):
    """The drop-in allows the home ranges, and never any address."""
    for r in ranges:
        check("IPAddressAllow= has %s" % r, has_word(u.allow, r))
    if has_word(u.allow, "0.0.0.0/0") or has_word(u.allow, "::/0"):
        fail("IPAddressAllow= allows any address: %s" % u.allow)


def reload_opened(wrote_for, families_what, families, timed=False, has_dropin=True):
    """daemon-reload with a network section in the config: the generator's drop-in opens the unit
    (PrivateNetwork=no, the inet families). Returns the time before (for journal_quiet) and the unit."""
    since = int(time.time())
    time.sleep(1)
    t0 = now()
    run("systemctl", "daemon-reload")
    if timed:
        log("daemon-reload (the generator) took %s s" % secs_since(t0))
    check("the generator wrote %s%s" % (NETDROPIN, wrote_for), os.path.isfile(NETDROPIN))
    run("cat", NETDROPIN)
    u = Unit()
    if has_dropin:
        check("the unit has the drop-in", has_word(u.dropins, NETDROPIN))
    check("PrivateNetwork=no", u.private == "no")
    check(families_what, u.families == families)
    return since, u


def named_broker_dropin():
    """Step g3: a broker named by a host name: the drop-in allows the home network's ranges (its
    DNS server among them) and both inet families; systemd must take every entry. Only reloaded
    (the running daemon keeps its closed namespace), then put back."""
    run("cp", CONF, "/run/conf.g3")
    conf_set(CONF, "mqtt", "url", "mqtt://broker.example.net")
    t, u = reload_opened(" for a named broker", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                         "AF_INET AF_INET6 AF_UNIX", has_dropin=False)
    open_ranges(u, ["127.0.0.0/8", "::1/128", "169.254.0.0/16", "10.0.0.0/8", "172.16.0.0/12",
                    "192.168.0.0/16", "fc00::/7"])
    journal_quiet(t)
    run("cp", "/run/conf.g3", CONF)
    os.remove("/run/conf.g3")
    run("systemctl", "daemon-reload")
    check("without [mqtt] again: no drop-in", not os.path.exists(NETDROPIN))
    u = Unit()
    check("without [mqtt] again: PrivateNetwork=yes", u.private == "yes")


def step_j2_closed_after_boot():
    """The second boot, after make install, with a config that never had [mqtt]: the generator
    ran at boot and left the unit closed."""
    if not wait_for(30, lambda: quiet_ok("systemctl", "is-active", "--quiet", "isletd")):
        fail("isletd is not active after the reboot")
    expect_closed(GEN_LOCAL)
    s = security_score()
    check("systemd-analyze security at most 2.0 (got %s)" % s, at_most_2(s))
    security_note("systemd-analyze security isletd.service (make install's unit, second boot, "
                  "no [mqtt]): %s" % s)
