"""What every Islet harness needs, written once: start a broker, start an isletd on the mock
bus, talk to its control socket, decode an SSD1306 capture, read /proc.

The harnesses (mqtt/, web/, systest/, scripts/soak.py, bench/) put the repository root on
sys.path and import `testkit.<module>`; in a system-test guest the package is on the 9p share
at /host/testkit. Python's standard library only, so the same files run on the host and in a
bare Debian guest.

Modules (one job each): wait (a condition, a port), reaper (what a harness started is ended on
every way out), fixture (a temp dir and a log), control (the control socket: request(path,
obj, timeout), status(path)), daemon (Daemon: isletd on the mock bus; binaries()), broker
(Broker: mosquitto with users, ACL, TLS), mqttclient (Message, Listener), tls (TLSMaterial),
procfs (/proc/PID status, smaps_rollup, fd, maps), probe (isletctl latency under load), runner
(the unittest runner of mqtt/ and web/).
"""
