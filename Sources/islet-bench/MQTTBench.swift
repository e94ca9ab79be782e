import IsletSystem

/// MQTT figures on Debian's mosquitto, started here on a loopback port of its own, with the
/// real isletd on the mock bus: bytes on the broker per transition, a command on the broker to
/// the first bus byte of the changed frame, and wake-ups while paused with the link up.
/// Commands go through `mosquitto_pub -l` (one message per line of its stdin), so a command's
/// time runs from our write to its stdin: the client's read and the broker's hop are in it.
/// A second isletd in the same `[sync] group` (docs/SYNC.md) gives the group's figures: the
/// same command on A to the first bus byte of B's changed frame (two broker hops and A's turn
/// are in it), and the group's bytes on the broker per change.
struct MQTTBench {
    var bench: DaemonBench
    var commands = 40
    var keepaliveS = 10
    var pausedWindowS = 30

    static let keys: [Key] = [.mqttBytesPerTransition, .mqttCommandToBusUsP50, .mqttCommandToBusUsP99, .wakeupsPerSPausedMQTT,
                              .syncCommandToPeerBusUsP50, .syncCommandToPeerBusUsP99, .syncBytesPerChange,
                              .rssKibPeakMQTTSync, .pssKibMQTTSync, .privateKibMQTTSync]
    static let broker = "/usr/sbin/mosquitto", pub = "/usr/bin/mosquitto_pub", sub = "/usr/bin/mosquitto_sub"

    func run(into r: inout Results) {
        func missAll(_ why: String) { for k in Self.keys { r[k] = .missing(why) } }
        for p in [Self.broker, Self.pub, Self.sub] where !FileSystem.isExecutable(p) {
            return missAll("needs \(p) (Debian's mosquitto and mosquitto-clients; make bench installs them)")
        }
        guard let dir = try? FileSystem.makeTemporaryDirectory(prefix: "/tmp/islet-bench-mqtt-") else {
            return missAll("cannot create a scratch directory in /tmp")
        }
        var children: [Int32] = []
        defer {
            for p in children { ChildProcess.send(.terminate, to: p); _ = Processes.wait(p) }
            if Posix.environment("ISLET_BENCH_KEEP") == nil { _ = Processes.run("/bin/rm", ["-rf", dir], scratch: "/tmp") }
        }
        // A port of our own on loopback: the first one mosquitto can bind.
        var port = 0
        for candidate in stride(from: 21883 + Int(Identity.processID % 500) * 7, to: 26000, by: 7) {
            let conf = dir + "/mosquitto.conf"
            Processes.write(conf, "listener \(candidate) 127.0.0.1\nallow_anonymous true\npersistence false\n")
            guard case .success(let pid) = Processes.spawn(Self.broker, ["-c", conf], log: dir + "/mosquitto.log") else { continue }
            Clocks.sleep(ms: 300)
            if Processes.alive(pid), Processes.run(Self.pub, ["-p", "\(candidate)", "-t", "islet-bench/probe", "-m", "x"], scratch: dir)?.status == 0 {
                children.append(pid)
                port = candidate
                break
            }
            ChildProcess.send(.kill, to: pid)
            _ = Processes.wait(pid)
        }
        guard port > 0 else { return missAll("mosquitto did not start on a loopback port (\(dir)/mosquitto.log)") }

        // Everything the broker carries, as topic and payload length per message.
        let carried = dir + "/carried.txt"
        guard case .success(let subPID) = Processes.spawn(Self.sub, ["-p", "\(port)", "-t", "#", "-F", "%t %l", "-q", "1"], log: carried) else {
            return missAll("cannot start mosquitto_sub")
        }
        children.append(subPID)
        let config = dir + "/isletd.conf"
        Processes.write(config, "[mqtt]\nurl = mqtt://127.0.0.1:\(port)\nclient_id = bench\nkeepalive = \(keepaliveS)\n[sync]\ngroup = bench\ndevice_name = a\n")
        let sock = dir + "/islet.sock", state = dir + "/state"
        try? FileSystem.makeDirectory(state, permissions: 0o700)
        // The peer: its own directory, capture and socket, in the same group.
        let peerDir = dir + "/b"
        try? FileSystem.makeDirectory(peerDir, permissions: 0o700)
        try? FileSystem.makeDirectory(peerDir + "/state", permissions: 0o700)
        Processes.write(peerDir + "/isletd.conf", "[mqtt]\nurl = mqtt://127.0.0.1:\(port)\nclient_id = bench-b\nkeepalive = \(keepaliveS)\ndiscovery = off\n[sync]\ngroup = bench\ndevice_name = b\n")
        var peer: DaemonBench.Daemon?
        switch bench.launch(dir: peerDir, capture: "mqtt.txt", sock: peerDir + "/islet.sock", state: peerDir + "/state",
                            extra: ["--config", peerDir + "/isletd.conf"]) {
        case .success(let x): peer = x
        case .failure(let e):
            for k in [Key.syncCommandToPeerBusUsP50, .syncCommandToPeerBusUsP99, .syncBytesPerChange] { r[k] = .missing("the peer: \(e.text)") }
        }
        defer { peer?.stop() }
        let d: DaemonBench.Daemon
        switch bench.launch(dir: dir, capture: "mqtt.txt", sock: sock, state: state, extra: ["--config", config]) {
        case .success(let x): d = x
        case .failure(let e): return missAll(e.text)
        }
        defer { d.stop() }
        let connected = (0..<250).contains { _ in
            let out = Processes.run(bench.isletctl, ["--socket", sock, "status", "--json"], scratch: dir)?.output ?? ""
            if out.contains("\"state\":\"connected\"") { return true }
            Clocks.sleep(ms: 20)
            return false
        }
        guard connected else { return missAll("isletd did not connect to the broker within 5 s") }
        guard let feeder = Feeder(Self.pub, ["-p", "\(port)", "-t", "islet/bench/command", "-q", "1", "-l"], log: dir + "/pub.log") else {
            return missAll("cannot start mosquitto_pub -l")
        }
        children.append(feeder.pid)
        Clocks.sleep(ms: 500)
        let carriedBefore = Self.bytes(carried)

        // A start (toggle from idle), then pause and resume in turn: every command a transition.
        var sent: [Int64] = []
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        for k in 0..<commands {
            let t = Clocks.monotonicNs()
            guard feeder.send("{\"op\":\"toggle\",\"request_id\":\"bench-\(k)\"}\n") else { break }
            sent.append(t)
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            Clocks.sleep(ms: 250 + Int(seed >> 33) % 200)
        }
        Clocks.sleep(ms: 500)
        let carriedAfter = Self.bytes(carried)
        Self.report(Self.toBus(sent, d.reader.read(), origin: d.reader.origin), of: sent.count,
                    p50: .mqttCommandToBusUsP50, p99: .mqttCommandToBusUsP99, into: &r, note: "mqtt_commands",
                    what: "toggles through mosquitto_pub -l and the broker reached the bus",
                    none: "no command produced a frame on the bus (\(dir))")
        if let peer {
            Self.report(Self.toBus(sent, peer.reader.read(), origin: peer.reader.origin), of: sent.count,
                        p50: .syncCommandToPeerBusUsP50, p99: .syncCommandToPeerBusUsP99, into: &r, note: "sync_commands",
                        what: "toggles on A reached B's bus", none: "no command on A produced a frame on B's bus (\(peerDir))")
            if let a = carriedBefore, let b = carriedAfter, !sent.isEmpty {
                r[.syncBytesPerChange] = .value(Double(b.group - a.group) / Double(sent.count))
            }
        }
        if let a = carriedBefore, let b = carriedAfter, !sent.isEmpty {
            r[.mqttBytesPerTransition] = .value(Double(b.total - b.group - a.total + a.group) / Double(sent.count))
            r.note("mqtt_bytes", "topic + payload bytes the broker carried per transition: activity state \(Report.number(Double(b.activity - a.activity) / Double(sent.count))), command \(Report.number(Double(b.command - a.command) / Double(sent.count))), answer \(Report.number(Double(b.response - a.response) / Double(sent.count))), the pill's picture for Home Assistant \(Report.number(Double(b.image - a.image) / Double(sent.count))) (at most one a second) (MQTT framing and TCP not counted)")
        } else {
            r[.mqttBytesPerTransition] = .missing("mosquitto_sub saw nothing")
        }

        // Paused (an odd number of toggles after the start), with the link up.
        let status = Processes.run(bench.isletctl, ["--socket", sock, "status"], scratch: dir)?.output ?? ""
        if status.contains("paused") {
            Clocks.sleep(ms: 1000)
            r[.wakeupsPerSPausedMQTT] = bench.wakeups(d.pid, seconds: pausedWindowS)
            r.note("wakeups_paused_mqtt", "over \(pausedWindowS) s with keepalive = \(keepaliveS) s: the keep-alive's PINGREQ and its PINGRESP")
        } else {
            r[.wakeupsPerSPausedMQTT] = .missing("the timer was not paused after the commands: \(status.prefix(120))")
        }
        // A's memory at the end: the bridge, the sync group and libmosquitto (with OpenSSL) in use.
        r[.rssKibPeakMQTTSync] = Processes.statusKiB(d.pid, "VmHWM").map { .value(Double($0)) } ?? .missing("cannot read /proc/\(d.pid)/status")
        let memory = Processes.memoryKiB(d.pid)
        r[.pssKibMQTTSync] = memory.map { .value(Double($0.pss)) } ?? .missing("cannot read /proc/\(d.pid)/smaps_rollup")
        r[.privateKibMQTTSync] = memory.map { .value(Double($0.private)) } ?? .missing("cannot read /proc/\(d.pid)/smaps_rollup")
    }

    /// Microseconds from each command sent (monotonic ns) to the first bus transaction of a
    /// capture at or after it; a command with none within 1 s produced no frame.
    static func toBus(_ sent: [Int64], _ transactions: [Transaction], origin o: Int64) -> [Double] {
        sent.compactMap { t in
            guard let first = Capture.firstTransaction(atOrAfter: t - o, in: transactions) else { return nil }
            let us = Double(o + first.ns - t) / 1000
            return us < 1_000_000 ? us : nil
        }
    }

    /// p50 and p99 of `latencies` into the results, with a note naming the slowest; or why not.
    static func report(_ latencies: [Double], of sent: Int, p50: Key, p99: Key, into r: inout Results,
                       note: String, what: String, none: String) {
        guard let a = Stats.percentile(latencies, 50), let b = Stats.percentile(latencies, 99) else {
            r[p50] = .missing(none)
            r[p99] = .missing(none)
            return
        }
        r[p50] = .value(a)
        r[p99] = .value(b)
        r.note(note, "\(latencies.count) of \(sent) \(what) within 1 s; slowest \(latencies.sorted().suffix(3).reversed().map { Report.number($0) }.joined(separator: ", ")) us")
    }

    /// Bytes carried so far, from mosquitto_sub's "topic length" lines.
    static func bytes(_ path: String) -> (total: Int, activity: Int, command: Int, response: Int, group: Int, image: Int)? {
        guard let text = Processes.readFile(path) else { return nil }
        var total = 0, activity = 0, command = 0, response = 0, group = 0, image = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let n = Int(parts[1]) else { continue }
            let b = parts[0].utf8.count + n
            // The peer's own bridge (its activity pushes) is not A's traffic, nor the group's.
            if parts[0].hasPrefix("islet/bench-b/") { continue }
            total += b
            if parts[0].hasPrefix("islet/group/") { group += b }
            else if parts[0].contains("/activity/") { activity += b }
            else if parts[0].hasSuffix("/command") { command += b }
            else if parts[0].hasSuffix("/response") { response += b }
            else if parts[0].hasSuffix("/image") { image += b }
        }
        return (total, activity, command, response, group, image)
    }
}

/// A child whose stdin is a pipe we write lines to.
final class Feeder {
    let pid: Int32
    private let input: FileDescriptor

    init?(_ path: String, _ args: [String], log: String) {
        guard let child = try? ChildProcess.spawn(path, args, logAppendedTo: log, pipeInput: true),
              let input = child.input else { return nil }
        pid = child.pid
        self.input = input
    }

    func send(_ line: String) -> Bool {
        (try? input.writeAll(Array(line.utf8))) != nil
    }
}
