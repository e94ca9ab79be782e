#if canImport(Glibc)
import Glibc
#endif
import IsletCore

/// The figures measured from outside on the real `isletd` on the mock bus: wake-ups, peak RSS,
/// start-up, button latency and tick lateness. Each step that fails leaves its figures missing
/// with the reason, and the rest of the run goes on.
struct DaemonBench {
    var binDir: String
    /// Seconds of each wake-up window (the issue asks for at least 10).
    var windowS = 12
    /// Seconds over which tick lateness is measured (the issue asks for at least 30).
    var latenessS = 31
    var presses = 40
    var pressButton = "toggle"

    private var isletd: String { binDir + "/isletd" }
    private var isletctl: String { binDir + "/isletctl" }

    static let keys: [Key] = [.wakeupsPerSRunning, .wakeupsPerSPaused, .rssKibPeak, .startToFirstFrameMs,
                              .buttonToBusUsP50, .buttonToBusUsP99, .tickLatenessMsP99]

    func run(into r: inout Results) {
        func missAll(_ why: String) { for k in Self.keys { r[k] = .missing(why) } }
        guard access(isletd, X_OK) == 0, access(isletctl, X_OK) == 0 else {
            return missAll("needs isletd and isletctl built in \(binDir)")
        }
        var template = Array("/tmp/islet-bench-XXXXXX".utf8CString)
        guard let dirp = template.withUnsafeMutableBufferPointer({ b in b.baseAddress.flatMap { mkdtemp($0) } }) else {
            return missAll("cannot create a scratch directory in /tmp: \(String(cString: strerror(errno)))")
        }
        let dir = String(cString: dirp)
        let capturePath = dir + "/capture.txt", sock = dir + "/islet.sock", state = dir + "/state", log = dir + "/isletd.log"
        mkdir(state, 0o700)
        defer { _ = Processes.run("/bin/rm", ["-rf", dir], scratch: "/tmp") }

        guard let watch = OpenWatch(directory: dir, file: "capture.txt") else {
            return missAll("inotify is unavailable: \(String(cString: strerror(errno)))")
        }
        defer { watch.close() }
        let wallMinusMono = Clocks.wallNs() - Clocks.monotonicNs()
        let t0 = Clocks.monotonicNs()
        let spawned = Processes.spawn(isletd, ["--bus", "mock", "--buttons", "mock", "--preview", "none",
                                               "--capture", capturePath, "--socket", sock, "--state-dir", state], log: log)
        guard case .success(let pid) = spawned else {
            if case .failure(let e) = spawned { missAll(e.text) }
            return
        }
        var stopped = false
        func stop() {
            guard !stopped else { return }
            stopped = true
            kill(pid, SIGTERM)
            let until = Clocks.monotonicNs() + 3_000_000_000
            while Processes.alive(pid) && Clocks.monotonicNs() < until { Clocks.sleep(ms: 20) }
            if Processes.alive(pid) { kill(pid, SIGKILL); _ = Processes.wait(pid) }
        }
        defer { stop() }
        func died() -> String {
            let first = (Processes.readFile(log) ?? "").split(separator: "\n").first.map(String.init) ?? "no output"
            return "isletd on the mock bus did not run (\(first))"
        }

        // 1. Start-up: serving the socket, the capture's origin, then the first frame.
        var openedAt: Int64?
        var serving = false
        var upBy = t0 + 10_000_000_000
        while Clocks.monotonicNs() < upBy && !(serving && openedAt != nil) {
            if openedAt == nil, let t = watch.poll(timeoutMs: 2) { openedAt = t }
            if !serving {
                serving = SocketClient(path: sock).map { $0.close(); return true } ?? false
                // Serving: the capture, if there is one, is open by now or within a second.
                if serving { upBy = min(upBy, Clocks.monotonicNs() + 1_000_000_000) }
            }
            if !serving && openedAt != nil { Clocks.sleep(ms: 2) }
            if !Processes.alive(pid) { return missAll(died()) }
        }
        guard serving else { return missAll("isletd did not serve \(sock) within 10 s") }
        let noCapture = "isletd wrote no capture file on the mock bus (--capture)"
        let reader = CaptureReader(path: capturePath, openedAt: openedAt ?? 0)
        func capture() -> [Transaction] { openedAt == nil ? [] : reader.read() }
        var origin: Int64 { reader.origin }
        if openedAt == nil {
            r[.startToFirstFrameMs] = .missing(noCapture)
        } else {
            var firstFrame: Burst?
            _ = waitUntil(ms: 5_000) {
                firstFrame = Capture.bursts(capture()).first(where: \.carriesPixels)
                return firstFrame != nil
            }
            if let f = firstFrame {
                r[.startToFirstFrameMs] = .value(Double(origin + f.endNs - t0) / 1e6)
            } else {
                r[.startToFirstFrameMs] = .missing("isletd sent no frame on the mock bus within 5 s of serving its socket")
            }
            r.note("daemon_capture_origin", reader.originMethod)
        }

        // 2. A running countdown: wake-ups over a window, then tick lateness over 30 s or more.
        let seconds = latenessS + windowS + 30
        guard let started = Processes.run(isletctl, ["--socket", sock, "start", "--seconds", String(seconds)], scratch: dir),
              started.status == 0 else {
            for k in Self.keys where k != .startToFirstFrameMs { r[k] = .missing("isletctl start failed on the mock bus") }
            return
        }
        let startedAt = Clocks.monotonicNs()
        let status = Processes.run(isletctl, ["--socket", sock, "status", "--json"], scratch: dir)?.output ?? ""
        let reference = Self.referenceInstant(status)
        if getenv("ISLET_BENCH_DEBUG") != nil { eprint("islet-bench: start said \(started.output.prefix(200)); status \(status.prefix(300))") }
        Clocks.sleep(ms: 1500)
        r[.wakeupsPerSRunning] = wakeups(pid, seconds: windowS)
        let latenessUntil = startedAt + Int64(latenessS) * 1_000_000_000 + 1_500_000_000
        while Clocks.monotonicNs() < latenessUntil { Clocks.sleep(ms: 100) }
        let runningEnd = Clocks.monotonicNs()
        if openedAt == nil {
            r[.tickLatenessMsP99] = .missing(noCapture)
        } else if let ref = reference {
            let refMono = ref.milliseconds * 1_000_000 - wallMinusMono
            let ticks = Capture.bursts(capture()).filter {
                let t = origin + $0.startNs
                return t > startedAt + 1_500_000_000 && t < runningEnd
            }
            // Signed distance to the nearest boundary ref − k s, in ms: a tick that lands early
            // (before its boundary) counts negative, never as 999 ms late.
            let lateness = ticks.map { b -> Double in
                var d = (origin + b.startNs - refMono) % 1_000_000_000
                if d < 0 { d += 1_000_000_000 }
                if d > 500_000_000 { d -= 1_000_000_000 }
                return Double(d) / 1e6
            }
            let span = Double(runningEnd - startedAt - 1_500_000_000) / 1e9
            r.note("tick_lateness_samples", "\(lateness.count) ticks over \(Int(span)) s (expected about \(Int(span)))")
            if lateness.count >= 30, let p99 = Stats.percentile(lateness, 99) {
                r[.tickLatenessMsP99] = .value(p99)
                if let p50 = Stats.median(lateness) { r.note("tick_lateness_ms_p50", Report.number(p50)) }
            } else {
                r[.tickLatenessMsP99] = .missing("only \(lateness.count) tick flushes seen on the bus in \(Int(span)) s")
            }
        } else {
            r[.tickLatenessMsP99] = .missing("isletctl status --json gave no running reference instant")
        }

        // 3. Paused: the daemon should sleep.
        if let p = Processes.run(isletctl, ["--socket", sock, "pause"], scratch: dir), p.status == 0 {
            Clocks.sleep(ms: 1000)
            r[.wakeupsPerSPaused] = wakeups(pid, seconds: windowS)
        } else {
            r[.wakeupsPerSPaused] = .missing("isletctl pause failed")
        }

        // 4. Mock button presses: from our write on the socket to the first byte of the next flush.
        if openedAt == nil {
            r[.buttonToBusUsP50] = .missing(noCapture)
            r[.buttonToBusUsP99] = .missing(noCapture)
        } else {
            measurePresses(sock: sock, reader: reader, into: &r)
        }

        r[.rssKibPeak] = Processes.statusKiB(pid, "VmHWM").map { .value(Double($0)) }
            ?? .missing("cannot read /proc/\(pid)/status")
        stop()
    }

    private func measurePresses(sock: String, reader: CaptureReader, into r: inout Results) {
        guard let client = SocketClient(path: sock) else {
            r[.buttonToBusUsP50] = .missing("cannot connect to the daemon's socket")
            r[.buttonToBusUsP99] = .missing("cannot connect to the daemon's socket")
            return
        }
        defer { client.close() }
        var pressTimes: [Int64] = []
        var refused: String?
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<presses {
            let t = Clocks.monotonicNs()
            guard client.send("{\"op\":\"press\",\"button\":\"\(pressButton)\"}") else { refused = "the socket closed"; break }
            let reply = client.receiveLine() ?? ""
            if !reply.contains("\"ok\":true") && !reply.contains("\"ok\": true") {
                refused = "press refused: \(reply.prefix(200))"
                break
            }
            pressTimes.append(t)
            // 250–450 ms apart, spread so presses do not lock onto the daemon's tick phase.
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            Clocks.sleep(ms: 250 + Int(seed >> 33) % 200)
        }
        Clocks.sleep(ms: 300)
        let bursts = Capture.bursts(reader.read())
        let o = reader.origin
        var latencies: [Double] = []
        for p in pressTimes {
            if let b = bursts.first(where: { o + $0.startNs >= p }) {
                let us = Double(o + b.startNs - p) / 1000
                if us < 1_000_000 { latencies.append(us) }
            }
        }
        if let why = refused, latencies.isEmpty {
            r[.buttonToBusUsP50] = .missing(why)
            r[.buttonToBusUsP99] = .missing(why)
        } else if let p50 = Stats.percentile(latencies, 50), let p99 = Stats.percentile(latencies, 99) {
            r[.buttonToBusUsP50] = .value(p50)
            r[.buttonToBusUsP99] = .value(p99)
            r.note("button_presses", "\(latencies.count) of \(pressTimes.count) presses reached the bus within 1 s")
        } else {
            r[.buttonToBusUsP50] = .missing("no press produced a frame on the bus")
            r[.buttonToBusUsP99] = .missing("no press produced a frame on the bus")
        }
    }

    /// Context switches of all of isletd's threads per second over a window. Threads come and go
    /// (a client's connection, a pool worker) and a thread's counts leave /proc with it, so the
    /// threads are sampled every 100 ms and each one's growth is summed: a thread born in the
    /// window counts from zero, one that dies keeps what it had at the last sample.
    private func wakeups(_ pid: pid_t, seconds: Int) -> Figure {
        guard var last = Processes.contextSwitches(pid) else { return .missing("cannot read /proc/\(pid)/task") }
        let t0 = Clocks.monotonicNs()
        let end = t0 + Int64(seconds) * 1_000_000_000
        var total = 0
        var threads = Set(last.keys)
        while Clocks.monotonicNs() < end {
            Clocks.sleep(ms: Int(min(100, max(1, (end - Clocks.monotonicNs()) / 1_000_000))))
            guard let now = Processes.contextSwitches(pid) else { return .missing("isletd exited during the window") }
            for (tid, n) in now { total += n - (last[tid] ?? 0) }
            for tid in now.keys { threads.insert(tid) }
            last.merge(now) { $1 }
        }
        let elapsed = Double(Clocks.monotonicNs() - t0) / 1e9
        if getenv("ISLET_BENCH_DEBUG") != nil { eprint("islet-bench: \(total) context switches of \(threads.count) threads over \(elapsed) s") }
        return .value(Double(total) / elapsed)
    }

    private func waitUntil(ms: Int, _ cond: () -> Bool) -> Bool {
        let end = Clocks.monotonicNs() + Int64(ms) * 1_000_000
        repeat {
            if cond() { return true }
            Clocks.sleep(ms: 5)
        } while Clocks.monotonicNs() < end
        return cond()
    }

    /// The first `"reference": "<ISO-8601>"` in a status response: the running cycle's end
    /// instant on the daemon's timeline (wall clock at its start, advanced monotonically).
    static func referenceInstant(_ json: String) -> Instant? {
        guard let rest = json.after("\"reference\"") else { return nil }
        guard let q1 = rest.firstIndex(of: "\"") else { return nil }
        let after = rest[rest.index(after: q1)...]
        guard let q2 = after.firstIndex(of: "\"") else { return nil }
        return ISO8601.parse(String(after[..<q2]))
    }
}

/// Reads the growing capture file and knows where its timeline starts on our monotonic clock.
final class CaptureReader {
    let path: String
    private(set) var origin: Int64
    private(set) var originMethod = "inotify IN_CREATE/IN_OPEN of the capture file (late by our wake-up latency)"

    init(path: String, openedAt: Int64) {
        self.path = path
        self.origin = openedAt
    }

    func read() -> [Transaction] {
        let parsed = Capture.parse(Processes.readFile(path) ?? "")
        if let stated = Capture.statedOrigin(parsed.comments) {
            origin = stated
            originMethod = "monotonic_ns stated in the capture header"
        }
        return parsed.transactions
    }
}

extension StringProtocol {
    /// The text after the first occurrence of `needle`, or nil (no Foundation here).
    func after(_ needle: String) -> SubSequence? {
        let n = Array(needle.utf8)
        guard !n.isEmpty else { return self[...] }
        var i = startIndex
        while i < endIndex {
            var j = i
            var k = 0
            while k < n.count, j < endIndex, self.utf8[j] == n[k] {
                j = self.utf8.index(after: j)
                k += 1
            }
            if k == n.count { return self[j...] }
            i = index(after: i)
        }
        return nil
    }
}
