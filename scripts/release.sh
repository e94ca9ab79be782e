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
# libstdc++ linked in as well: the Swift runtime needs a few of its functions, but the shared
# library costs ~1 MB resident in every isletd (its relocations and its locale and iostream
# set-up run at load); the archive brings only what is called (measured: peak RSS 808 KiB lower,
# the binary 84 KB larger; docs/PERFORMANCE.md, "Memory"). A directory holding just the archive,
# searched before GCC's own (which holds libstdc++.so too), turns the runtime's -lstdc++ static.
case "${DEB_ARCH:-$(dpkg --print-architecture 2>/dev/null || uname -m)}" in
    amd64|x86_64) gnu=x86_64-linux-gnu ;;
    arm64|aarch64) gnu=aarch64-linux-gnu ;;
    *) gnu="$(uname -m)-linux-gnu" ;;
esac
cxx_archive="$(ls -1d /usr/lib/gcc/"$gnu"/*/libstdc++.a 2>/dev/null | sort -V | tail -n 1 || true)"
cxx_flags=()
if [ -n "$cxx_archive" ]; then
    mkdir -p "$root/.build/static-cxx-$gnu"
    ln -sf "$cxx_archive" "$root/.build/static-cxx-$gnu/libstdc++.a"
    cxx_flags=(-Xswiftc "-L$root/.build/static-cxx-$gnu")
else
    echo "islet: no libstdc++.a for $gnu (install libstdc++-dev): isletd links libstdc++.so, ~1 MB more resident" >&2
fi
# The code a desk runs, laid side by side in the order it first runs (scripts/link-order.txt,
# made by `make link-order` from a profile): the kernel maps 64 KiB around every code page
# faulted on, so the same functions scattered over 10 MB of text kept twice the pages resident
# (docs/PERFORMANCE.md, "Memory"). Names the code no longer has are skipped without a word.
order_flags=()
[ -f "$here/link-order.txt" ] && order_flags=(-Xlinker "--symbol-ordering-file=$here/link-order.txt"
                                              -Xlinker --no-warn-symbol-ordering)
flags=(-c release --static-swift-stdlib "${cxx_flags[@]}" "${order_flags[@]}" -Xswiftc -Osize -Xswiftc -use-ld=lld
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
if [ -n "$cxx_archive" ] && readelf -dW "$DIST/bin/isletd" | grep -q 'NEEDED.*libstdc++'; then
    echo "islet: $DIST/bin/isletd still needs libstdc++.so although $cxx_archive was offered" >&2
    exit 1
fi
for b in isletd isletctl; do
    printf 'islet: %s/bin/%s: %s bytes (stripped; Swift runtime linked in)\n' \
        "${DIST#"$root/"}" "$b" "$(stat -c %s "$DIST/bin/$b")"
done
