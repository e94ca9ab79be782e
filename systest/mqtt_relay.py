#!/usr/bin/env python3
"""mqtt_relay.py HOST PORT LOG: one connection of the guest to the broker.

qemu's user-mode network runs this (guestfwd=tcp:10.0.2.100:1883-cmd:...) for each TCP connection
the guest opens to 10.0.2.100:1883, with that connection on its stdin, stdout and stderr. It
connects to HOST:PORT (the run's broker on the host's loopback) and copies bytes both ways until
either side closes; one line per connection goes to LOG. Nothing may be written to stderr: it is
the guest's connection.
"""
import os
import selectors
import socket
import sys
import time

host, port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
log = open(log_path, "a", buffering=1)
os.dup2(log.fileno(), 2)
t0 = time.monotonic()


def note(text):
    log.write("%s relay %d: %s\n" % (time.strftime("%H:%M:%S"), os.getpid(), text))


def write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


try:
    broker = socket.create_connection((host, port), timeout=5)
except OSError as e:
    note("cannot connect to %s:%d: %s" % (host, port, e))
    sys.exit(1)
broker.settimeout(None)
os.set_blocking(0, True)
os.set_blocking(1, True)
note("guest connection to %s:%d" % (host, port))
sent = {"guest": 0, "broker": 0}
sel = selectors.DefaultSelector()
sel.register(0, selectors.EVENT_READ, "guest")
sel.register(broker, selectors.EVENT_READ, "broker")
closed_by = None
while closed_by is None:
    for key, _ in sel.select():
        try:
            if key.data == "guest":
                data = os.read(0, 65536)
                if data:
                    broker.sendall(data)
            else:
                data = broker.recv(65536)
                if data:
                    write_all(1, data)
        except OSError as e:
            data = b""
            note("%s side: %s" % (key.data, e))
        if not data:
            closed_by = key.data
            break
        sent[key.data] += len(data)
note("closed by the %s after %.1f s: %d bytes from the guest, %d from the broker"
     % (closed_by, time.monotonic() - t0, sent["guest"], sent["broker"]))
