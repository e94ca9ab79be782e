#!/bin/sh
# The system-test scenario, run in the guest at every boot by systest-boot (from the 9p share
# /host; results to /results): systest/guest/scenario.py and its steps_*.py. Exit 100 means
# "reboot me" (phase 2 follows on the same disk), anything else powers off.
exec python3 /host/guest/scenario.py "$@"
