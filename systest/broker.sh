# shellcheck shell=bash
# The MQTT broker of one guest's run, on the host (sourced by systest/run.sh): Debian's mosquitto
# on 127.0.0.1:<a free port> with a config, a user and a password of its own for this run. The
# guest reaches it only through its qemu user-mode NIC (restrict=on: nothing else gets out), whose
# guestfwd runs systest/mqtt_relay.py for each connection to 10.0.2.100:1883. The guest asks the
# host to speak to the broker by leaving files in the results folder (broker_serve): the clients
# run on the host side, so a command crosses the host's broker and the guest's unit both ways.
# Evidence in the results: mosquitto.log, mqtt-traffic.txt (every message the broker carried),
# mqtt-relay.log (the guest's connections), mqtt/ (the requests and the replies).

BROKER_USER=islet
BROKER_PORT=""
BROKER_PASSWORD=""
BROKER_PID=""
BROKER_LOGGER_PID=""

# broker_start DIR RESULTS SHARE: starts the broker with its files in DIR (made here; mosquitto
# drops to its own user and reads its password file as that user, so DIR's parent must let it
# through), logging to RESULTS; leaves the password in SHARE/mqtt-password for the guest.
broker_start() {
    local dir="$1" results="$2" share="$3" i
    mkdir -p "$dir"
    getent passwd mosquitto >/dev/null || die "no mosquitto user: is Debian's mosquitto installed?"
    BROKER_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    BROKER_PASSWORD="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
    mosquitto_passwd -c -b "$dir/passwd" "$BROKER_USER" "$BROKER_PASSWORD" >/dev/null
    chown root:mosquitto "$dir" "$dir/passwd"
    chmod 0750 "$dir"; chmod 0640 "$dir/passwd"
    cat > "$dir/mosquitto.conf" <<EOF
# The system test's broker, for one run only.
listener $BROKER_PORT 127.0.0.1
allow_anonymous false
password_file $dir/passwd
user mosquitto
persistence false
log_dest stderr
log_type error
log_type warning
log_type notice
log_type information
log_timestamp_format %H:%M:%S
connection_messages true
EOF
    setpriv --pdeathsig TERM mosquitto -c "$dir/mosquitto.conf" >> "$results/mosquitto.log" 2>&1 &
    BROKER_PID=$!
    for i in $(seq 50); do
        if mosquitto_pub -h 127.0.0.1 -p "$BROKER_PORT" -u "$BROKER_USER" -P "$BROKER_PASSWORD" -t systest/up -n 2>/dev/null; then
            break
        fi
        kill -0 "$BROKER_PID" 2>/dev/null || die "mosquitto did not start (see $results/mosquitto.log)"
        [ "$i" -lt 50 ] || die "mosquitto does not answer on 127.0.0.1:$BROKER_PORT (see $results/mosquitto.log)"
        sleep 0.2
    done
    # Every message the broker carries, as it carries it: time, retained flag, topic, payload.
    setpriv --pdeathsig TERM mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" -u "$BROKER_USER" -P "$BROKER_PASSWORD" \
        -i systest-traffic -F '%I %r %t %p' -t '#' > "$results/mqtt-traffic.txt" 2>&1 &
    BROKER_LOGGER_PID=$!
    printf '%s\n' "$BROKER_PASSWORD" > "$share/mqtt-password"
    say "MQTT broker: mosquitto $(dpkg-query -W -f='${Version}' mosquitto) on 127.0.0.1:$BROKER_PORT (pid $BROKER_PID), the guest's 10.0.2.100:1883"
}

# broker_stop: stops the traffic logger and the broker (TERM, then KILL).
broker_stop() {
    local p
    for p in $BROKER_LOGGER_PID $BROKER_PID; do
        kill -TERM "$p" 2>/dev/null || continue
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    BROKER_PID="" BROKER_LOGGER_PID=""
}

# broker_serve RESULTS: answers the guest's requests. The guest writes RESULTS/mqtt/request-N
# (renamed into place when complete) with the lines prefix=<topic prefix>, command=<a request
# object, or nothing> and read=<subtopics, space-separated>; the host sends the command to
# <prefix>/command with mosquitto_rr and waits for <prefix>/response, then reads the retained
# message of each <prefix>/<subtopic>, and renames the folder RESULTS/mqtt/reply-N into place:
# response (the answer's payload), response.rc, response.seconds, and for each subtopic a file
# named after it ('/' as '-') with its payload and .rc (27: no retained message within 2 s).
broker_serve() {
    local req n prefix command reads out t f t0 rc
    for req in "$1"/mqtt/request-*; do
        [ -f "$req" ] || continue
        n="${req##*/request-}"
        [ -e "$1/mqtt/reply-$n" ] && continue
        out="$1/mqtt/.reply-$n"
        rm -rf "$out"; mkdir -p "$out"
        prefix="$(sed -n 's/^prefix=//p' "$req")"
        command="$(sed -n 's/^command=//p' "$req")"
        reads="$(sed -n 's/^read=//p' "$req")"
        if ! [[ "$prefix" =~ ^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$ ]] || ! [[ "$reads" =~ ^[A-Za-z0-9_/\ -]*$ ]]; then
            echo "request $n: bad prefix '$prefix' or subtopics '$reads'" > "$out/error"
            mv -T "$out" "$1/mqtt/reply-$n"
            continue
        fi
        if [ -n "$command" ]; then
            t0=$(date +%s.%N); rc=0
            mosquitto_rr -h 127.0.0.1 -p "$BROKER_PORT" -u "$BROKER_USER" -P "$BROKER_PASSWORD" -q 1 -W 20 \
                -t "$prefix/command" -e "$prefix/response" -m "$command" > "$out/response" 2> "$out/response.err" || rc=$?
            echo "$rc" > "$out/response.rc"
            awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' > "$out/response.seconds"
        fi
        for t in $reads; do
            f="$out/${t//\//-}"; rc=0
            mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" -u "$BROKER_USER" -P "$BROKER_PASSWORD" -t "$prefix/$t" \
                --retained-only -C 1 -W 2 > "$f" 2> "$f.err" || rc=$?
            echo "$rc" > "$f.rc"
        done
        mv -T "$out" "$1/mqtt/reply-$n"
    done
}
