"""What every Islet harness needs, written once: start a broker, start an isletd on the mock
bus, talk to its control socket, decode an SSD1306 capture, read /proc.

The harnesses (mqtt/, web/, systest/, scripts/soak.py, bench/) put the repository root on
sys.path and import `testkit.<module>`; in a system-test guest the package is on the 9p share
at /host/testkit. Python's standard library only, so the same files run on the host and in a
bare Debian guest.
"""
