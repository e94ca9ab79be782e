#!/usr/bin/env bash
# `make fuzz` / `make fuzz-replay`: libFuzzer over the eight inputs isletd reads from outside
# (Sources/islet-fuzz): protocol (a request line), config (a config file), state (the state
# file), capture (a bus capture), and the network's: sync (group records, merged, held, saved),
# beacon (clock beacons), command (MQTT commands with correlation data), topics (retained topics
# read back, discovery keys). Seed corpora live in Tests/Fuzz/<target>/; an input that ever
# made a target fail is kept there (crash-*), so every later run replays it.
#
#   scripts/fuzz.sh replay            fixed seed and run count per target (CI: deterministic)
#   scripts/fuzz.sh explore           FUZZ_SECONDS per target (default 60), new finds kept in
#                                     .build/fuzz/corpus-<target>, failures in Tests/Fuzz/<target>
#   scripts/fuzz.sh campaign          FUZZ_CAMPAIGN_RUNS executions per target (default 10,000,000;
#                                     config 1,000,000), at most FUZZ_CAMPAIGN_SECONDS (1800) each,
#                                     one process on one core; corpus as for explore
# Settings: FUZZ_BIN=.build/fuzz/debug/islet-fuzz FUZZ_RUNS=20000 FUZZ_SECONDS=60 FUZZ_TARGETS="protocol config state capture sync beacon command topics web"
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${FUZZ_BIN:-$root/.build/fuzz/debug/islet-fuzz}"
mode="${1:-replay}"
targets="${FUZZ_TARGETS:-protocol config state capture sync beacon command topics web}"
[ -x "$bin" ] || { echo "islet: $bin is missing: make fuzz builds it" >&2; exit 1; }
# ASan's leak check at exit reports the Swift runtime's one-time allocations: not ours to fix.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"

work="$(mktemp -d "${TMPDIR:-/tmp}/islet-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
status=0
total_execs=0
for t in $targets; do
    seeds="$root/Tests/Fuzz/$t"
    [ -d "$seeds" ] || { echo "islet: no seed corpus $seeds" >&2; exit 1; }
    case "$mode" in
        replay)
            # libFuzzer adds what it finds to its first corpus folder: a scratch copy, so a
            # replay never changes the repository. One process, fixed seed: the same run twice.
            mkdir -p "$work/$t"
            cp "$seeds"/* "$work/$t/"
            args=(-seed=1 -runs="${FUZZ_RUNS:-20000}" -artifact_prefix="$work/$t-" "$work/$t")
            corpus="$work/$t"
            ;;
        explore)
            corpus="$root/.build/fuzz/corpus-$t"
            mkdir -p "$corpus"
            args=(-max_total_time="${FUZZ_SECONDS:-60}" -artifact_prefix="$seeds/crash-" "$corpus" "$seeds")
            ;;
        campaign)
            corpus="$root/.build/fuzz/corpus-$t"
            mkdir -p "$corpus"
            runs="${FUZZ_CAMPAIGN_RUNS:-$([ "$t" = config ] && echo 1000000 || echo 10000000)}"
            args=(-runs="$runs" -max_total_time="${FUZZ_CAMPAIGN_SECONDS:-1800}" -print_final_stats=1
                  -artifact_prefix="$seeds/crash-" "$corpus" "$seeds")
            ;;
        *) echo "usage: scripts/fuzz.sh replay|explore|campaign" >&2; exit 64 ;;
    esac
    log="$work/$t.log"
    start=$(date +%s%N)
    if ISLET_FUZZ_TARGET="$t" "$bin" "${args[@]}" > "$log" 2>&1; then result=ok; else result=FAILED; status=1; fi
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    # libFuzzer's last status line: "#N DONE cov: … exec/s: E …" or "Done N runs in S second(s)".
    execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
    total_execs=$(( total_execs + ${execs:-0} ))
    printf 'islet: fuzz %-8s %-6s %9s executions in %4d.%d s (%s exec/s), corpus %s inputs\n' \
        "$t" "$result" "${execs:-?}" $((ms / 1000)) $((ms % 1000 / 100)) "$(( ${execs:-0} * 1000 / (ms > 0 ? ms : 1) ))" \
        "$(ls "$corpus" | wc -l)"
    if [ "$result" != ok ]; then
        grep -E 'islet-fuzz:|ERROR|SUMMARY|Test unit written' "$log" | head -20 >&2
        [ "$mode" = replay ] && cp "$work/$t"-crash-* "$seeds/" 2>/dev/null && echo "islet: the failing input was copied into $seeds/: fix the cause, keep the input" >&2
    fi
done
echo "islet: fuzz $mode: $total_execs executions in all"
exit "$status"
