#!/usr/bin/env python3
"""conf_set.py FILE SECTION KEY VALUE: sets KEY = VALUE in [SECTION] of an isletd.conf (replacing
an active line of that key in the section, else adding one right after the section's header,
adding the section when missing) and prints the line number of the key."""
import sys

path, section, key, value = sys.argv[1:5]
lines = open(path).read().splitlines()
start = None
for i, l in enumerate(lines):
    if l.strip() == "[%s]" % section:
        start = i
        break
if start is None:
    lines += ["", "[%s]" % section]
    start = len(lines) - 1
end = len(lines)
for j in range(start + 1, len(lines)):
    if lines[j].strip().startswith("["):
        end = j
        break
new = "%s = %s" % (key, value)
for j in range(start + 1, end):
    s = lines[j].strip()
    if not s.startswith("#") and s.split("=")[0].strip() == key:
        lines[j] = new
        at = j
        break
else:
    lines.insert(start + 1, new)
    at = start + 1
open(path, "w").write("\n".join(lines) + "\n")
print(at + 1)
