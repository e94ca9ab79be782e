import IsletSystem
import IsletProtocol

/// Button to bus: presses sent through the control socket, timed against the capture's bursts.
extension DaemonBench {
    func measurePresses(sock: String, reader: CaptureReader, into r: inout Results) {
        let pressKeys: [Key] = [.buttonToBusUsP50, .buttonToBusUsP99, .pressToLastByteUsP50At400kHz, .pressToLastByteUsP99At400kHz,
                                .pressToLastByteUsP50At100kHz, .pressToLastByteUsP99At100kHz]
        guard let client = SocketClient(path: sock) else {
            for k in pressKeys { r[k] = .missing("cannot connect to the daemon's socket") }
            return
        }
        defer { client.close() }
        var pressTimes: [Int64] = []
        var refused: String?
        let stealBefore = TimerBaseline.stealJiffies()
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<presses {
            let t = Clocks.monotonicNs()
            guard client.send("{\"op\":\"press\",\"button\":\"\(pressButton)\",\"hold_ms\":\(holdMs)}") else {
                refused = "the socket closed"
                break
            }
            let reply = client.receiveLine() ?? ""
            if !reply.contains("\"ok\":true") && !reply.contains("\"ok\": true") {
                refused = "press refused: \(reply.prefix(200))"
                break
            }
            // The edge that acts: the release. The daemon answers with its instant on
            // CLOCK_MONOTONIC (as the kernel stamps a GPIO edge); an older daemon does not, and
            // then holdMs after our send stands in (early, so the latency reads long).
            pressTimes.append(Self.releaseEdge(reply).map { $0 * 1000 } ?? t + Int64(holdMs) * 1_000_000)
            // 250–450 ms apart, spread so presses do not lock onto the daemon's tick phase.
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            Clocks.sleep(ms: 250 + Int(seed >> 33) % 200)
        }
        Clocks.sleep(ms: 300)
        let transactions = reader.read()
        let o = reader.origin
        var latencies: [Double] = []
        /// Release to the press's last byte on a real bus: the CPU's part (the mock bus takes no
        /// time, so its last transaction) plus the wire time of that flush's bytes.
        var toLastByte: [Double: [Double]] = [400_000: [], 100_000: []]
        var merged = 0
        /// What the earlier method (the first burst to start after the release) read for those.
        var mergedAsBursts: [Double] = []
        let bursts = Capture.bursts(transactions)
        let debug = Posix.environment("ISLET_BENCH_DEBUG") != nil
        for (k, p) in pressTimes.enumerated() {
            // The first transaction after the release, not the first burst that starts after it:
            // a release that falls within 2 ms after a tick's flush has its frame sent straight
            // on, in the same burst, and the next burst to start is the next press's (250–450 ms
            // later). That is how one press in a run read ~296 ms (docs/PERFORMANCE.md).
            if let first = Capture.firstTransaction(atOrAfter: p - o, in: transactions) {
                let us = Double(o + first.ns - p) / 1000
                if us < 1_000_000 {
                    latencies.append(us)
                    let flush = Self.flush(from: first.ns, in: transactions)
                    let cpu = Double(o + flush.lastNs - p) / 1000
                    for hz in toLastByte.keys {
                        toLastByte[hz]?.append(cpu + Wire.microseconds(bytes: Double(flush.bytes), transactions: Double(flush.transactions), hz: hz))
                    }
                }
                if first.merged {
                    merged += 1
                    if let b = bursts.first(where: { o + $0.startNs >= p }) { mergedAsBursts.append(Double(o + b.startNs - p) / 1000) }
                }
                if debug { eprint("islet-bench: press \(k): release at \(p), first transaction at \(o + first.ns), \(Report.number(us)) us\(first.merged ? ", run on after another flush" : "")") }
            }
        }
        r.note("button_presses_after_a_flush", "\(merged) of \(pressTimes.count) releases fell within 2 ms after another flush (their frame went out in the same burst)"
            + (mergedAsBursts.isEmpty ? "" : "; timed by the next burst to start they would read " + mergedAsBursts.map { Report.number($0) + " us" }.joined(separator: ", ")))
        if let why = refused, latencies.isEmpty {
            for k in pressKeys { r[k] = .missing(why) }
        } else if let p50 = Stats.percentile(latencies, 50), let p99 = Stats.percentile(latencies, 99) {
            r[.buttonToBusUsP50] = .value(p50)
            r[.buttonToBusUsP99] = .value(p99)
            for (hz, keys) in [(400_000.0, (Key.pressToLastByteUsP50At400kHz, Key.pressToLastByteUsP99At400kHz)),
                               (100_000.0, (Key.pressToLastByteUsP50At100kHz, Key.pressToLastByteUsP99At100kHz))] {
                let samples = toLastByte[hz] ?? []
                r[keys.0] = Stats.percentile(samples, 50).map { .value($0) } ?? .missing("no press produced a frame on the bus")
                r[keys.1] = Stats.percentile(samples, 99).map { .value($0) } ?? .missing("no press produced a frame on the bus")
            }
            r.note("button_presses", "\(latencies.count) of \(pressTimes.count) presses of \(holdMs) ms reached the bus within 1 s of their release")
            // With 40 presses the p99 is the slowest one: show the tail and what the host took meanwhile.
            let steal = TimerBaseline.stealJiffies().map { s in stealBefore.map { s - $0 } ?? 0 }
            r.note("button_to_bus_us_slowest", latencies.sorted().suffix(3).reversed().map { Report.number($0) }.joined(separator: ", ")
                + (steal.map { "; steal time meanwhile \($0 * 10) ms (/proc/stat)" } ?? ""))
        } else {
            for k in pressKeys { r[k] = .missing("no press produced a frame on the bus") }
        }
    }

    /// The flush a press's frame went out in, from its first transaction on: transactions no more
    /// than 2 ms apart (Capture.bursts' gap), their bytes after the address and the last one's time.
    static func flush(from ns: Int64, in t: [Transaction]) -> (lastNs: Int64, bytes: Int, transactions: Int) {
        guard var i = t.firstIndex(where: { $0.ns >= ns }) else { return (ns, 0, 0) }
        var out = (lastNs: t[i].ns, bytes: t[i].bytes.count, transactions: 1)
        while i + 1 < t.count, t[i + 1].ns - t[i].ns <= 2_000_000 {
            i += 1
            out = (t[i].ns, out.bytes + t[i].bytes.count, out.transactions + 1)
        }
        return out
    }

    /// `release_monotonic_us` of a press's answer, in µs, read with the protocol's own type.
    static func releaseEdge(_ reply: String) -> Int64? {
        (try? ControlClient.decode(Array(reply.utf8)))?.releaseMonotonicMicroseconds.map { Int64($0) }
    }
}
