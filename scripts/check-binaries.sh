#!/usr/bin/env bash
# Refuses binaries that would load a library from anywhere but the system's library folders:
# the Swift toolchain's runtime (a RUNPATH into the toolchain), /home (hidden from the service by
# ProtectHome=yes), or a library the loader cannot find. The dynamic loader decides, not a guess:
# `ldd` runs it in trace mode, with the environment cleared so LD_LIBRARY_PATH cannot hide a
# problem the service would meet. The loader is the one the binary names (its PT_INTERP), run
# with --list as ldd does: that works for another architecture's binary too (an arm64 build on
# amd64, run by qemu-user through binfmt_misc), where ldd only knows this machine's loaders.
#
#   scripts/check-binaries.sh FILE...      exit 0 when every file is fit to install, 1 otherwise
set -uo pipefail

# The folders Debian's loader searches (ld.so.conf and multiarch); nothing else is acceptable.
allowed='^(/lib|/lib64|/usr/lib|/usr/lib64|/lib/[a-z0-9_-]+-linux-gnu[a-z]*|/usr/lib/[a-z0-9_-]+-linux-gnu[a-z]*)/[^/]+$'
status=0
for bin in "$@"; do
    if [ ! -f "$bin" ]; then echo "islet: $bin: no such file" >&2; status=1; continue; fi
    # Scripts and other non-ELF files load nothing themselves.
    if [ "$(head -c 4 "$bin" | od -An -c | tr -d ' ')" != '177ELF' ]; then continue; fi
    # arm64 kernels run with 4 KB, 16 KB (the Pi 5's kernel_2712) or 64 KB pages, and cannot map a
    # program whose loadable segments are aligned to less than the page: 64 KB covers them all.
    if readelf -h "$bin" 2>/dev/null | grep -q 'Machine:.*AArch64'; then
        small=""
        while read -r type rest; do  # the alignment is the line's last field (the flags vary)
            [ "$type" = LOAD ] && [ $((${rest##* })) -lt 65536 ] && { small="${rest##* }"; break; }
        done < <(readelf -lW "$bin")
        if [ -n "$small" ]; then
            echo "islet: $bin: a loadable segment is aligned to $small, less than 64 KB: a 16 KB-page kernel (the Pi 5's) could not map it" >&2
            status=1; continue
        fi
    fi
    interp="$(readelf -l "$bin" 2>/dev/null | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')"
    [ -n "$interp" ] || continue  # statically linked: it loads nothing
    if [ ! -x "$interp" ]; then
        echo "islet: $bin: its loader $interp is not on this system (another architecture's libc6?)" >&2
        status=1; continue
    fi
    if ! out="$(env -i PATH=/usr/bin:/bin "$interp" --list "$bin" 2>&1)"; then
        echo "islet: $bin: its loader $interp could not run it:" >&2
        printf '    %s\n' "$out" >&2
        [ "$(uname -m)" = x86_64 ] && [[ "$interp" == *aarch64* ]] \
            && echo "    an arm64 binary runs here only through qemu-user: sudo apt-get install qemu-user-static binfmt-support" >&2
        status=1; continue
    fi
    bad=""
    while IFS= read -r line; do
        line="${line#"${line%%[![:space:]]*}"}"
        case "$line" in
            "") continue ;;
            *"=> not found"*) bad+="    ${line%% *}: not found by the loader"$'\n' ;;
            *" => "*)
                path="${line#* => }"; path="${path%% (*}"
                real="$(readlink -f "$path" 2>/dev/null || echo "$path")"
                if ! [[ "$path" =~ $allowed ]] || [[ "$real" == /home/* ]]; then
                    bad+="    ${line%% *} from $path"$'\n'
                fi ;;
            /*)  # the loader itself, e.g. /lib64/ld-linux-x86-64.so.2 (0x…)
                path="${line%% (*}"
                [[ "$path" =~ $allowed ]] || bad+="    loader $path"$'\n' ;;
        esac
    done <<< "$out"
    if [ -n "$bad" ]; then
        status=1
        {
            echo "islet: $bin would load libraries from outside the system's library folders:"
            printf '%s' "$bad"
            runpath="$(readelf -d "$bin" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')"
            [ -n "$runpath" ] && echo "    (its RUNPATH is $runpath)"
            echo "    The service runs with ProtectHome=yes and without a Swift toolchain: build with"
            echo "    'make release', which links the Swift runtime statically, and install again."
        } >&2
    fi
done
exit "$status"
