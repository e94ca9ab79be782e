"""The guest's local apt repository: the two islet packages and what their Depends (and
Recommends) pull in. apt on the host answers "what would the guest install", with the guest's
dpkg status in place of the host's; those packages are downloaded (cached) and indexed beside the
islet packages."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from host.common import CACHE, die, run, say, since


def make(repo, image, apt, arch, low, high):
    """Fills REPO (which holds the islet packages) for a guest of IMAGE (its dpkg-status) whose
    release apt answers for; returns the closure ('name=version' lines)."""
    t0 = time.time()
    debcache = f"{CACHE}/debs"
    os.makedirs(debcache, exist_ok=True)

    def cached_deb(name, ver):
        # The cache holds amd64 and arm64 packages side by side.
        for f in (f"{debcache}/{name}_{ver.replace(':', '%3a')}_{arch}.deb",
                  f"{debcache}/{name}_{ver.replace(':', '%3a')}_all.deb"):
            if os.path.isfile(f):
                return f
        return None

    # Recommends too (whatever the host's apt says): step j3 installs the web page's
    # libmicrohttpd, which the package recommends, from this repository.
    aptopts = ["-o", f"Dir::State::status={image}/dpkg-status", "-o", "Debug::NoLocking=1",
               "-o", "APT::Sandbox::User=root", "-o", "APT::Install-Recommends=true"]
    closure = set()
    for d in sorted(glob.glob(f"{repo}/islet_*.deb")):
        sim = run(["apt-get", *apt.opts, *aptopts, "-s", "install", d], capture=True, stderr=subprocess.STDOUT)
        if sim.returncode != 0:
            print(sim.stdout, file=sys.stderr)
            die(f"apt cannot resolve the Depends of {os.path.basename(d)} for the guest")
        for name, ver in re.findall(r"^Inst (\S*) \((\S*) ", sim.stdout, re.M):
            if name != "islet":
                closure.add(f"{name}={ver}")
    closure = sorted(closure)
    need = [nv for nv in closure if not cached_deb(*nv.split("=", 1))]
    if need:
        say(f"downloading {len(need)} Debian packages for the local repository")
        dl = tempfile.mkdtemp(prefix=".dl.", dir=debcache)
        r = run(["apt-get", *apt.opts, "-q", "-o", "APT::Sandbox::User=root", "download", *need], cwd=dl, stdout=2)
        if r.returncode != 0:
            shutil.rmtree(dl)
            die(f"apt-get download failed for: {' '.join(need)}")
        for f in glob.glob(f"{dl}/*.deb"):
            os.replace(f, f"{debcache}/{os.path.basename(f)}")
        os.rmdir(dl)
    for nv in closure:
        name, ver = nv.split("=", 1)
        f = cached_deb(name, ver)
        if not f:
            die(f"no {name}_{ver} ({arch} or all) in {debcache} after the download")
        shutil.copy(f, repo)
    with open(f"{repo}/closure.txt", "w") as f:
        f.write("".join(nv + "\n" for nv in closure))
    with open(f"{repo}/Packages", "w") as f:
        run(["dpkg-scanpackages", "--multiversion", ".", "/dev/null"], cwd=repo, stdout=f, stderr=subprocess.DEVNULL)
    say(f"local repository: islet {low} and {high} + {len(closure)} dependencies ({since(t0)} s)")
    return closure
