"""What /proc says about a live process, for the harnesses' memory and resource checks.

Sizes are in KiB as the kernel prints them, except vm_hwm() (bytes, what mqtt/ compares with).
A process that is gone raises FileNotFoundError; alive() says False instead.
"""
import os


def alive(pid):
    """True while /proc/PID exists (a zombie still counts)."""
    return os.path.exists(f"/proc/{pid}")


def status(pid):
    """/proc/PID/status as {field: text}, e.g. status(pid)["VmRSS"] == "12345 kB"."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def status_kib(pid, field):
    """One "NNN kB" field of /proc/PID/status (VmRSS, VmHWM, VmSize...) in KiB; 0 when absent."""
    v = status(pid).get(field, "")
    return int(v.split()[0]) if v else 0


def vm_hwm(pid):
    """Peak resident set (VmHWM) of a live process, in bytes."""
    return status_kib(pid, "VmHWM") * 1024


def vm_rss(pid):
    """Resident set now (VmRSS), in bytes."""
    return status_kib(pid, "VmRSS") * 1024


def smaps_rollup(pid):
    """/proc/PID/smaps_rollup's sizes in KiB: {"Rss": ..., "Pss": ..., "Private_Clean": ...,
    "Private_Dirty": ..., ...}, plus "Private" (clean + dirty)."""
    out = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0].endswith(":") and parts[2] == "kB":
                out[parts[0][:-1]] = int(parts[1])
    out["Private"] = out.get("Private_Clean", 0) + out.get("Private_Dirty", 0)
    return out


def fd_count(pid):
    """How many file descriptors the process holds open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def mapped_libraries(pid):
    """The base names of the shared objects mapped into the process (sorted, each once)."""
    names = set()
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and ".so" in parts[5]:
                names.add(os.path.basename(parts[5].strip()))
    return sorted(names)
