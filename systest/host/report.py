"""The verdicts: one guest's (its failed steps' evidence, a problem with the console's end, the
counts, its timings) and, with several guests, one line per guest and the run's."""
import os

from host.common import tail, write_out


def read_steps(path):
    """steps.tsv's rows as lists of tab-separated fields (None when there is no file)."""
    try:
        with open(path, errors="surrogateescape") as f:
            text = f.read()
    except OSError:
        return None
    return [line.split("\t") for line in text.split("\n") if line]


def counts(rows):
    c = {s: sum(1 for r in rows if r[0] == s) for s in ("PASS", "FAIL", "SKIP")}
    return f"{c['PASS']} passed, {c['FAIL']} failed, {c['SKIP']} skipped"


def prefixed(path, prefix):
    """PATH's lines, each after PREFIX."""
    with open(path, errors="surrogateescape") as f:
        lines = f.read().split("\n")
    for line in lines[:-1] if lines[-1] == "" else lines:
        print(prefix + line)


def read_text(path):
    with open(path, errors="surrogateescape") as f:
        return f.read().rstrip("\n")


def one_guest(results, guest, label, guest_s, total_s, child):
    """Prints the verdict of one guest; returns the exit status (0: every step passed and the
    guest finished)."""
    rows = read_steps(f"{results}/steps.tsv")
    failed = [r[1] for r in rows or [] if r[0] == "FAIL" and len(r) > 1]
    problem = ""
    if guest.timed_out:
        problem = f"the guest did not finish within {guest.timeout_s} s"
    elif not os.path.isfile(f"{results}/done"):
        problem = f"the guest stopped before the scenario finished (qemu exit {guest.rc})"
    for f in failed:
        print(f"\n---- FAIL {f}: evidence ({results}/steps/{f}.log) ----", flush=True)
        if os.path.isfile(f"{results}/steps/{f}.log"):
            write_out(tail(f"{results}/steps/{f}.log", 60))
    if problem:
        with open(f"{results}/problem.txt", "w") as f:
            f.write(problem + "\n")
        print(f"\n---- {problem}: the console's last lines ({results}/console.log) ----", flush=True)
        if os.path.isfile(f"{results}/console.log"):
            write_out(tail(f"{results}/console.log", 40))
    if os.path.isfile(f"{results}/timings.txt") and not child:
        print()
        prefixed(f"{results}/timings.txt", "systest: timing: ")
        if os.path.isfile(f"{results}/security.txt"):
            prefixed(f"{results}/security.txt", "systest: security: ")
    print(f"\nsystest: {label} guest {guest_s} s, total {total_s} s; results in {results}")
    print(f"systest: {counts(rows or [])}")
    if problem or failed:
        if problem:
            print(f"systest: FAIL: {problem}")
        if failed:
            print(f"systest: FAIL: {' '.join(failed)}")
        return 1
    print("systest: PASS")
    return 0


def guests(base, rc_of, total_s):
    """Prints one verdict per guest of a side-by-side run (their results in BASE/<guest>, their
    runs' exit statuses in RC_OF) and the run's; returns the exit status."""
    print()
    bad = False
    for g, rc in rc_of.items():
        r = f"{base}/{g}"
        rows = read_steps(f"{r}/steps.tsv")
        c = "no steps" if rows is None else counts(rows)
        if rc == 0:
            print(f"systest: {g}: PASS ({c})")
        else:
            bad = True
            print(f"systest: {g}: FAIL (exit {rc}; {c})")
            for row in rows or []:
                if row[0] == "FAIL":
                    row += [""] * (4 - len(row))
                    print(f"systest: {g}: FAIL {row[1]}: {row[3]} (evidence: {r}/steps/{row[1]}.log)")
            if os.path.isfile(f"{r}/problem.txt"):
                print(f"systest: {g}: FAIL: {read_text(f'{r}/problem.txt')} (the console: {r}/console.log)")
            elif not os.path.isfile(f"{r}/done"):
                print(f"systest: {g}: its run stopped before the guest finished (see the [{g}] lines above)")
        for name, what in (("timings.txt", "timing"), ("security.txt", "security")):
            if os.path.isfile(f"{r}/{name}"):
                prefixed(f"{r}/{name}", f"systest: {g}: {what}: ")
    print(f"systest: {' '.join(rc_of)}: total {total_s} s")
    if bad:
        print("systest: FAIL")
        return 1
    print("systest: PASS")
    return 0
