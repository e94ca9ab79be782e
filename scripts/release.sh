#!/usr/bin/env bash
# `make release`: the binaries a user installs. The Swift runtime is linked in
# (--static-swift-stdlib), so they need only Debian's libraries at run time, never the toolchain
# (which the service could not see anyway: ProtectHome=yes hides a swiftly install under /home).
# Stripped copies land in dist/bin/; the loader check (scripts/check-binaries.sh) must pass.
#
# Settings (environment): SWIFT=swift BUILD_FLAGS= DIST=dist STRIP=strip (the target's strip:
# aarch64-linux-gnu-strip for a cross build, scripts/build-in-root.sh)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
SWIFT="${SWIFT:-swift}"
STRIP="${STRIP:-strip}"
DIST="${DIST:-$root/dist}"
# shellcheck disable=SC2206  # BUILD_FLAGS is a list of words by design
# Full RELRO (-z now): the GOT is read-only after start-up, as Debian's hardening flags make it.
# Linked by the toolchain's lld with packed relative relocations (DT_RELR, glibc >= 2.36:
# bookworm and later): a position-independent binary with the Swift runtime inside carries
# ~38,000 of them, which as RELA entries are 0.9 MB the loader reads at every start, all of it
# resident; packed they are 7 KB. --no-export-dynamic undoes the runtime's default of exporting
# every symbol (the stripped binary has no other use for them), which kept 0.3 MB of symbol
# tables resident. -Osize: 0.3 MB less resident code for 1–2 % more instructions per tick
# (microseconds once a second). docs/PERFORMANCE.md, "Memory".
flags=(-c release --static-swift-stdlib -Xswiftc -Osize -Xswiftc -use-ld=lld
       -Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro
       -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
       --package-path "$root" ${BUILD_FLAGS:-})

"$SWIFT" build "${flags[@]}"
bin="$("$SWIFT" build "${flags[@]}" --show-bin-path)"
mkdir -p "$DIST/bin"
for b in isletd isletctl; do
    # Copy, then strip the copy: .build keeps its symbols for benchmarks and backtraces.
    install -m 0755 "$bin/$b" "$DIST/bin/$b.tmp"
    "$STRIP" --strip-unneeded "$DIST/bin/$b.tmp"
    mv -f "$DIST/bin/$b.tmp" "$DIST/bin/$b"
done
bash "$here/check-binaries.sh" "$DIST/bin/isletd" "$DIST/bin/isletctl"
for b in isletd isletctl; do
    printf 'islet: %s/bin/%s: %s bytes (stripped; Swift runtime linked in)\n' \
        "${DIST#"$root/"}" "$b" "$(stat -c %s "$DIST/bin/$b")"
done
