"""What every part of the system test's host side shares: messages, commands, the Debian package
helper and the artifact cache (keyed by a hash of the inputs, built under a lock into a temporary
name and renamed into place, so two runs that race build once and never see half an artifact).
"""
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CACHE = os.environ.get("ISLET_SYSTEST_CACHE") or "/var/cache/islet-systest"
_held = []  # the open descriptors of hold_cached: their locks last as long as the process


def say(text):
    sys.stdout.flush()
    print(f"systest: {text}", file=sys.stderr, flush=True)


def die(text):
    say(text)
    sys.exit(1)


def parse_flags(argv, o, needs, doc, prog):
    """Fills `o` from argv: each flag in `needs` takes a value (its text names what, for the
    error), a flag that is a bool in `o` takes none; -h prints `doc`. Anything else stops."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in needs:
            if i + 1 >= len(argv) or not argv[i + 1]:
                die(f"{a} needs {needs[a]}")
            o[a[2:]] = argv[i + 1]
            i += 2
        elif a.startswith("--") and isinstance(o.get(a[2:]), bool):
            o[a[2:]] = True
            i += 1
        elif a in ("-h", "--help"):
            print(doc, end="")
            sys.exit(0)
        else:
            die(f"unknown argument {a} (see {prog} --help)")
    return o


def since(t0):
    return f"{time.time() - t0:.1f}"


def run(cmd, check_msg=None, **kw):
    """Runs cmd to its end; a signal to this run TERMs it and waits (mmdebstrap must unmount
    before its root is removed). Returns the CompletedProcess; dies with check_msg on failure."""
    sys.stdout.flush()
    sys.stderr.flush()
    out = kw.pop("capture", False)
    if out:
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("text", True)
    try:
        p = subprocess.Popen(cmd, **kw)
    except OSError as e:  # as the shell's "command not found" (127)
        print(f"systest: {cmd[0]}: {e.strerror}", file=sys.stderr, flush=True)
        r = subprocess.CompletedProcess(cmd, 127, "" if out else None)
        if check_msg:
            die(check_msg)
        return r
    try:
        stdout, _ = p.communicate()
    except BaseException:
        p.terminate()
        p.wait()
        raise
    r = subprocess.CompletedProcess(cmd, p.returncode, stdout)
    if check_msg and r.returncode != 0:
        die(check_msg)
    return r


def output(cmd, **kw):
    """cmd's standard output ('' when it fails), its errors hidden, as $(cmd 2>/dev/null)."""
    return run(cmd, capture=True, stderr=subprocess.DEVNULL, **kw).stdout or ""


def tail(path, n):
    """The last n lines of a file, as bytes (tail -n)."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    lines = [x + b"\n" for x in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    return b"".join(lines[-n:])


def write_out(data):
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def empty_dir(d):
    """Makes D an empty folder (find D -mindepth 1 -delete)."""
    os.makedirs(d, exist_ok=True)
    for e in os.scandir(d):
        if e.is_dir(follow_symlinks=False):
            shutil.rmtree(e.path)
        else:
            os.unlink(e.path)


def apt_ensure(*pkgs):
    """Installs the packages that are not installed yet (as root, non-interactive), saying which."""
    missing = [p for p in pkgs if "install ok installed" not in output(["dpkg-query", "-W", "-f=${Status}", p])]
    if not missing:
        return
    names = " ".join(missing)
    if os.getuid() != 0:
        die(f"missing Debian packages: {names}; run as root (the system test boots a VM and installs what it needs)")
    say(f"installing Debian packages: {names}")
    run(["apt-get", "update", "-qq"], "apt-get update failed")
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
        f"apt-get could not install: {names} (run 'apt-get install {names}' and read its message)",
        stdout=subprocess.DEVNULL, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def pkg_version(pkg):
    """The installed version, or ''."""
    return output(["dpkg-query", "-W", "-f=${Version}", pkg])


def hash_of(*args):
    """sha256 (first 16 hex digits) of the arguments; an argument naming an existing file
    contributes its name and content (not its folder: clones of the project share the cache), any
    other its text. The same bytes as the shell version's `sha256sum` pipeline hashed, so the keys
    (and the images cached before the port) stay."""
    h = hashlib.sha256()
    for a in args:
        if a and os.path.isfile(a):
            with open(a, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            h.update(f"file {a.rsplit('/', 1)[-1]}\n{digest}  -\n".encode())
        else:
            h.update(f"text {a}\n".encode())
    return h.hexdigest()[:16]


MANIFEST = ".sha256sums"


def manifest(d):
    """'sha256  path' of every regular file under d (sorted; the bookkeeping files left out):
    written when an entry is built, compared each time it is used."""
    out = []
    for top, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(top, f)
            rel = os.path.relpath(p, d)
            if rel in (MANIFEST, ".complete", ".build-seconds") or os.path.islink(p) or not os.path.isfile(p):
                continue
            h = hashlib.sha256()
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            out.append(f"{h.hexdigest()}  {rel}\n")
    return "".join(out)


def intact(d):
    """Whether a complete entry still holds exactly what was built: an entry without a manifest
    (made before there were manifests) or whose files changed is not trusted."""
    try:
        with open(f"{d}/{MANIFEST}") as f:
            return f.read() == manifest(d)
    except OSError:
        return False


def cached(name, key, builder):
    """The directory CACHE/NAME-KEY, built first when it does not exist: under an exclusive lock
    on NAME, the builder command runs with a fresh temporary directory as its last argument, which
    is then renamed to the final name. Older keys of NAME are removed (inputs changed). Each use
    checks the entry's files against the manifest written when it was built; a corrupt entry is
    built again."""
    final = f"{CACHE}/{name}-{key}"
    os.makedirs(CACHE, exist_ok=True)
    if os.path.isfile(f"{final}/.complete") and intact(final):
        return final
    with open(f"{CACHE}/{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another run that is building {name}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isfile(f"{final}/.complete"):
            if intact(final):
                return final
            say(f"{name}-{key} does not match its manifest (changed or damaged since it was built): building it again")
            # Not from under a running test (hold_cached): its guest may still be reading it.
            with open(f"{final}/.complete") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    die(f"{final} is in use by a running test: run again once it has ended")
                shutil.rmtree(final)
        tmp = tempfile.mkdtemp(prefix=f".tmp-{name}-{key}.", dir=CACHE)
        try:
            t0 = time.time()
            say(f"building {name} ({key})")
            run([*builder, tmp], f"building {name} failed", stdout=sys.stderr)
            with open(f"{tmp}/.build-seconds", "w") as f:
                f.write(since(t0) + "\n")
            with open(f"{tmp}/{MANIFEST}", "w") as f:
                f.write(manifest(tmp))
            open(f"{tmp}/.complete", "w").close()
            shutil.rmtree(final, ignore_errors=True)
            os.rename(tmp, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        say(f"built {name} in {build_seconds(final)} s")
        for old in glob.glob(f"{CACHE}/{name}-*"):
            # Only NAME-<key>: image-trixie-* also matches image-trixie-arm64-<key>, another
            # guest's entry, which must stay.
            if re.fullmatch("[0-9a-f]{16}", old[len(f"{CACHE}/{name}-"):]) and old != final and os.path.isdir(old):
                remove_unused(old)
    return final


def build_seconds(d):
    with open(f"{d}/.build-seconds") as f:
        return f.read().strip()


def hold_cached(d):
    """A shared lock on d's .complete for the rest of this process, so another run (e.g. from a
    clone whose build scripts differ) does not remove d while this run's guest boots from it."""
    try:
        f = open(f"{d}/.complete")
    except OSError:
        die(f"{d} was removed by another run before this one could use it: run again")
    fcntl.flock(f, fcntl.LOCK_SH)
    _held.append(f)


def remove_unused(d):
    """Removes an older cache entry, unless a run holds it (hold_cached)."""
    if not os.path.isfile(f"{d}/.complete"):
        shutil.rmtree(d, ignore_errors=True)
        return
    with open(f"{d}/.complete") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"keeping {os.path.basename(d)}: a running test uses it")
            return
        shutil.rmtree(d, ignore_errors=True)


def first_kernel(depends):
    """The version string (uname -r) in the first linux-image-<version> of a Depends field."""
    m = re.search(r"linux-image-([0-9][^ ,\n]*)", depends)
    return m[1] if m else ""


def guest_kernel():
    """The kernel that the host's linux-image-amd64 depends on."""
    return first_kernel(output(["dpkg-query", "-W", "-f=${Depends}", "linux-image-amd64"]))


def kernel_series(kver):
    """6.1 for 6.1.0-57-amd64, 6.12 for 6.12.117+deb13-amd64 (linux-source-SERIES)."""
    m = re.match(r"[0-9]*\.[0-9]*", kver)
    return m[0] if m else ""


def _host_suite():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if k == "VERSION_CODENAME":
                    return v.strip("\"'")
    except OSError:
        pass
    return ""


# The Debian release the host runs (its guest gets the host's kernel packages; any other
# release's come from that release's repository) and its architecture (amd64: a guest of another,
# arm64, gets everything from its release's repository, as a guest of another release does).
HOST_SUITE = _host_suite()
HOST_ARCH = output(["dpkg", "--print-architecture"]).strip()
