# shellcheck shell=bash
# Helpers of the guest scenario (sourced by guest-scenario.sh, in the guest, as root).

G=/host/guest
R=/results
TRACE=/sys/kernel/tracing
# shellcheck disable=SC2034 # used by guest-scenario.sh
PHASE_FILE=/var/lib/systest/phase
mkdir -p /var/lib/systest "$R/steps"

now() { date +%s.%N; }
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
log() { printf '[%s] %s\n' "$(date +%T.%3N)" "$*"; }

# jget FILE EXPR: a Python expression over the JSON document d in FILE, printed (JSON for
# containers, plain for scalars). Exit 1 when the expression fails.
jget() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
try:
    v = eval(sys.argv[2], {"d": d})
except Exception as e:
    print("jget: %s: %r" % (sys.argv[2], e), file=sys.stderr)
    sys.exit(1)
print(json.dumps(v) if isinstance(v, (dict, list)) else ("" if v is None else v))
EOF
}

# status_json FILE: `isletctl status --json` into FILE. The moment of the answer is taken as the
# midpoint of the call: /run/st-up (CLOCK_BOOTTIME, /proc/uptime) and /run/st-wall (wall clock).
status_json() {
    local u0 w0 u1 w1
    u0="$(cut -d' ' -f1 /proc/uptime)" w0="$(date +%s.%N)"
    isletctl status --json > "$1"
    u1="$(cut -d' ' -f1 /proc/uptime)" w1="$(date +%s.%N)"
    awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.3f\n", (a + b) / 2 }' > /run/st-up
    awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.3f\n", (a + b) / 2 }' > /run/st-wall
    awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.3f\n", (b - a) / 2 }' > /run/st-halfwidth
}

# the activity of a timer (or the only one): python expression fragments
act() { printf '[a for a in d.get("activities", []) if %s][0]' "${1:-True}"; }

unit_prop() { systemctl show -p "$1" --value isletd; }

# A step that drives the daemon starts from a running one, whatever the step before left.
ensure_daemon() {
    if ! systemctl is-active --quiet isletd; then
        log "isletd is not active ($(unit_prop ActiveState)): starting it for this step"
        systemctl reset-failed isletd 2>/dev/null || true
        systemctl start isletd
    fi
}

# wait_for SECONDS COMMAND...: polls every 0.2 s until COMMAND succeeds.
wait_for() {
    local limit="$1"; shift
    local end
    end=$(awk -v n="$(date +%s.%N)" -v l="$limit" 'BEGIN { printf "%.3f", n + l }')
    while true; do
        if "$@"; then return 0; fi
        if awk -v n="$(date +%s.%N)" -v e="$end" 'BEGIN { exit !(n > e) }'; then return 1; fi
        sleep 0.2
    done
}

# ---- results ------------------------------------------------------------------------------
# step NAME FUNCTION: runs FUNCTION with its output in $R/steps/NAME.log and records
# PASS/FAIL/SKIP with the seconds it took in $R/steps.tsv. The function returns 0 (PASS),
# 2 (SKIP, through skip "why") or anything else (FAIL, through fail "why" or a failed command).
# step NAME FUNCTION NEEDED...: a needed step that did not pass makes this one SKIP.
declare -A STEP_STATUS
step() {
    local name="$1" fn="$2" t0 rc status detail
    shift 2
    local need
    for need in "$@"; do
        if [ "${STEP_STATUS[$need]:-}" != PASS ]; then
            record SKIP "$name" 0.0 "needs $need, which did not pass"
            return 0
        fi
    done
    t0=$(now)
    log "step $name" > "$R/steps/$name.log"
    # A subshell of its own with -e (not inside an && or || list, where bash would ignore -e).
    set +e
    ( set -eE
      trap '[ -f /run/systest-fail ] || printf "command failed (exit %s): %s" "$?" "$BASH_COMMAND" > /run/systest-fail; log "command failed: $BASH_COMMAND"' ERR
      "$fn" ) >> "$R/steps/$name.log" 2>&1
    rc=$?
    set -e
    log "step $name: exit $rc" >> "$R/steps/$name.log"
    case "$rc" in
        0) status=PASS detail="" ;;
        2) status=SKIP detail="$(cat /run/systest-skip 2>/dev/null || true)" ;;
        *) status=FAIL detail="$(cat /run/systest-fail 2>/dev/null || echo "exit $rc")"
           evidence "$name" >> "$R/steps/$name.log" 2>&1 || true ;;
    esac
    rm -f /run/systest-skip /run/systest-fail
    record "$status" "$name" "$(secs_since "$t0")" "$detail"
}
record() {
    STEP_STATUS[$2]="$1"
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$R/steps.tsv"
    printf '%s\t%s\n' "$2" "$1" >> /var/lib/systest/status
    log "$1 $2 ($3 s) $4"
}
# Restores the statuses recorded before a reboot.
load_statuses() {
    local n s
    [ -f /var/lib/systest/status ] || return 0
    while IFS=$'\t' read -r n s; do STEP_STATUS[$n]="$s"; done < /var/lib/systest/status
}
# timing TEXT: a figure for docs/PERFORMANCE.md, into $R/timings.txt (the host prints them).
timing() { printf '%s\n' "$*" >> "$R/timings.txt"; log "timing: $*"; }
# Inside a step: fail "why" / skip "why".
fail() { printf '%s' "$*" > /run/systest-fail; log "FAIL: $*"; exit 1; }
skip() { printf '%s' "$*" > /run/systest-skip; log "SKIP: $*"; exit 2; }
check() { local what="$1"; shift; if "$@"; then log "ok: $what"; else fail "$what"; fi; }

# The evidence appended to a failed step's log: the daemon's journal and the bus trace's end.
evidence() {
    echo "---- evidence for $1 ----"
    systemctl show -p ActiveState,SubState,Result,StatusText,NRestarts,MainPID,ExecMainStatus isletd 2>&1 || true
    echo "---- journalctl -u isletd (last 40) ----"
    journalctl -u isletd -o short-monotonic --no-pager -n 40 2>&1 || true
    echo "---- bus trace (last 15 lines) ----"
    grep -E 'smbus_write|i2c_write|tracing_mark' "$TRACE/trace" 2>/dev/null | tail -n 15 || true
    echo "---- the unit's network drop-in; the host's broker (mosquitto.log, last 10) ----"
    cat /run/systemd/generator/isletd.service.d/50-mqtt-network.conf 2>&1 || true
    tail -n 10 "$R/mosquitto.log" 2>/dev/null || true
}

# ---- the simulated hardware --------------------------------------------------------------
GPIOSIM=/sys/kernel/config/gpio-sim/islet
# Lines of the simulated bcm2711 bank that the buttons use (docs/HARDWARE.md wiring).
BUTTON_LINES="17 27 22"

setup_gpio_sim() {
    modprobe configfs
    mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
    modprobe gpio-sim
    if [ ! -d "$GPIOSIM" ]; then
        mkdir "$GPIOSIM" "$GPIOSIM/bank0"
        echo 32 > "$GPIOSIM/bank0/num_lines"
        echo pinctrl-bcm2711 > "$GPIOSIM/bank0/label"
        local n
        for n in $BUTTON_LINES; do
            mkdir "$GPIOSIM/bank0/line$n"
            echo "GPIO$n" > "$GPIOSIM/bank0/line$n/name"
        done
        echo 1 > "$GPIOSIM/live"
    fi
    local dev chip
    dev="$(cat "$GPIOSIM/dev_name")" chip="$(cat "$GPIOSIM/bank0/chip_name")"
    SIMDIR="/sys/devices/platform/$dev/$chip"
    echo "$SIMDIR" > /run/systest-simdir
    # Buttons wired to ground with the Pi's pull-ups: idle high.
    for n in $BUTTON_LINES; do echo pull-up > "$SIMDIR/sim_gpio$n/pull"; done
    log "gpio-sim: $chip ($(cat "$GPIOSIM/bank0/label" 2>/dev/null || echo pinctrl-bcm2711)) at $SIMDIR"
}

# press LINE HOLD_MS [BOUNCE_EDGES]: a finger on the button of LINE (active low), with bounce.
press() { python3 "$G/gpio_press.py" "$(cat /run/systest-simdir)" "$@"; }

# i2c-stub at the panel's address: i2c-1 on the PC (PIIX4 takes i2c-0), i2c-0 on arm64 virt
# (no I2C controller); stub_bus finds it by name. On arm64 the module is built out of tree.
load_i2c_stub() {
    modprobe i2c-dev
    modprobe i2c-stub chip_addr=0x3c functionality=0x0f7f0000
    udevadm settle || true
}
stub_bus() {
    local a
    for a in /sys/bus/i2c/devices/i2c-*; do
        if grep -q 'SMBus stub' "$a/name" 2>/dev/null; then basename "$a"; return 0; fi
    done
    return 1
}

setup_trace() {
    mountpoint -q "$TRACE" || mount -t tracefs nodev "$TRACE"
    echo 0 > "$TRACE/tracing_on"
    echo mono > "$TRACE/trace_clock"
    echo 16384 > "$TRACE/buffer_size_kb"
    echo > "$TRACE/trace"
    echo 1 > "$TRACE/events/smbus/smbus_write/enable"
    echo 1 > "$TRACE/events/smbus/smbus_result/enable"
    echo 1 > "$TRACE/events/i2c/i2c_write/enable"
    echo 1 > "$TRACE/tracing_on"
}
# mark NAME: remembers CLOCK_MONOTONIC now (the trace's clock, trace_clock=mono) as NAME, to cut
# the trace at; mark_ts NAME prints it.
mark() { python3 -c 'import time; print("%.6f" % time.monotonic())' > "/run/systest-mark-$1"; }
mark_ts() { cat "/run/systest-mark-$1"; }

# decode OUT_PREFIX [ARGS...]: the trace so far, decoded as the panel: OUT_PREFIX.pbm, .json.
decode() {
    local out="$1"; shift
    cp "$TRACE/trace" "$out.trace"
    python3 "$G/decode_ssd1306_trace.py" "$out.trace" --bus "${STUB_BUS#i2c-}" --size "${PANEL_SIZE:-128x64}" \
        -o "$out.pbm" --report "$out.json" "$@"
}
