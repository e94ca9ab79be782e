import IsletSystem

/// The web page's figures (docs/WEB.md), with the real isletd on the mock bus and `[web]` on a
/// loopback port of its own: the page's weight, bytes per frame event, a command on the control
/// socket to its `change` event arriving at an open stream, wake-ups with `[web]` and no browser
/// (the same windows as without), and peak RSS once ten streams have been open.
struct WebBench {
    var bench: DaemonBench
    var windowS = 10
    var commands = 40
    var streams = 10

    static let keys: [Key] = [.webPageBytes, .webFirstLoadBytes, .webReloadBytes, .webFrameEventBytes, .webCommandToEventUsP50, .webCommandToEventUsP99,
                              .wakeupsPerSRunningWeb, .wakeupsPerSPausedWeb, .rssKibPeakWeb]

    func run(into r: inout Results) {
        func missAll(_ why: String) { for k in Self.keys { r[k] = .missing(why) } }
        guard let dir = try? FileSystem.makeTemporaryDirectory(prefix: "/tmp/islet-bench-web-") else {
            return missAll("cannot create a scratch directory in /tmp")
        }
        defer { if Posix.environment("ISLET_BENCH_KEEP") == nil { _ = Processes.run("/bin/rm", ["-rf", dir], scratch: "/tmp") } }
        let sock = dir + "/islet.sock", state = dir + "/state"
        try? FileSystem.makeDirectory(state, permissions: 0o700)
        var launched: (DaemonBench.Daemon, UInt16)?
        var why = "no port"
        for candidate in stride(from: 28080 + Int(Identity.processID % 300) * 3, to: 29500, by: 97).prefix(4) {
            Processes.write(dir + "/isletd.conf", "[web]\nlisten = 127.0.0.1:\(candidate)\n")
            switch bench.launch(dir: dir, capture: "web.txt", sock: sock, state: state, extra: ["--config", dir + "/isletd.conf"]) {
            case .success(let d): launched = (d, UInt16(candidate))
            case .failure(let e): why = e.text; continue
            }
            break
        }
        guard let (d, port) = launched else { return missAll("isletd with [web] did not start: \(why)") }
        defer { d.stop() }
        let web = WebClient(port: port)

        // The page as a browser first loads it.
        let weight = ["/", "/app.js", "/app.css"].map { web.get($0)?.count }
        r[.webPageBytes] = weight.contains { $0 == nil } ? .missing("a page asset did not load") : .value(Double(weight.reduce(0) { $0 + ($1 ?? 0) }))
        if let wire = WebWire(client: web).measure() {
            r[.webFirstLoadBytes] = .value(Double(wire.first))
            r[.webReloadBytes] = .value(Double(wire.reload))
        } else {
            r[.webFirstLoadBytes] = .missing("the page's answers were not a 200 with ETags, then 304s")
            r[.webReloadBytes] = .missing("the page's answers were not a 200 with ETags, then 304s")
        }

        guard let control = SocketClient(path: sock) else { return missAll("cannot connect to the daemon's socket") }
        defer { control.close() }
        func ask(_ line: String) -> Bool {
            control.send(line) && (control.receiveLine() ?? "").contains("\"ok\":true")
        }
        // No browser: the windows DaemonBench measures without [web].
        guard ask(#"{"op":"start","seconds":3600}"#) else { return missAll("start refused") }
        Clocks.sleep(ms: 500)
        r[.wakeupsPerSRunningWeb] = bench.wakeups(d.pid, seconds: windowS)
        guard ask(#"{"op":"pause"}"#) else { return missAll("pause refused") }
        Clocks.sleep(ms: 500)
        r[.wakeupsPerSPausedWeb] = bench.wakeups(d.pid, seconds: windowS)

        // Ten open streams; the first is timed, the others are read so that none falls behind.
        let open = (0..<streams).compactMap { _ in web.openStream() }
        guard open.count == streams else { return missAll("only \(open.count) of \(streams) event streams opened") }
        for s in open { _ = s.read(until: "event: frame", ms: 3000) }
        guard ask(#"{"op":"resume"}"#) else { return missAll("resume refused") }
        let first = open[0]
        first.clear()
        Clocks.sleep(ms: 5_000)
        for s in open.dropFirst() { s.drain() }
        first.drain()
        let frames = first.events(named: "frame")
        r[.webFrameEventBytes] = frames.isEmpty ? .missing("no frame event in 5 s of a running countdown")
            : .value(Double(frames.reduce(0) { $0 + $1 }) / Double(frames.count))
        r.note("web_frame_events_in_5_s", "\(frames.count)")

        var latencies: [Double] = []
        for k in 0..<commands {
            for s in open { s.drain() }
            first.clear()
            let t0 = Clocks.monotonicNs()
            guard ask(k % 2 == 0 ? #"{"op":"pause"}"# : #"{"op":"resume"}"#) else { break }
            guard first.read(until: "event: change", ms: 2000) else { continue }
            latencies.append(Double(first.arrivedNs - t0) / 1000)
            Clocks.sleep(ms: 50 + (k * 37) % 150)
        }
        MQTTBench.report(latencies, of: commands, p50: .webCommandToEventUsP50, p99: .webCommandToEventUsP99, into: &r,
                         note: "web_command_to_event", what: "pause/resume on the socket reached an open stream as `change`",
                         none: "no change event reached the stream")
        r[.rssKibPeakWeb] = Processes.statusKiB(d.pid, "VmHWM").map { .value(Double($0)) } ?? .missing("cannot read /proc/\(d.pid)/status")
    }
}

/// HTTP/1.1 to the page on loopback, as a browser would ask: a request per connection.
struct WebClient {
    let port: UInt16

    /// The body of `path`, nil unless 200.
    func get(_ path: String) -> [UInt8]? {
        guard let fd = try? TCPClient.connect("127.0.0.1", port: port),
              (try? fd.sendAll(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))) != nil
        else { return nil }
        var raw: [UInt8] = []
        while (try? fd.waitReadable(timeoutMs: 3000)) == true, let c = try? fd.receive(capacity: 65536), !c.isEmpty { raw += c }
        guard raw.starts(with: Array("HTTP/1.1 200".utf8)),
              let end = raw.indices.first(where: { raw[$0...].starts(with: [13, 10, 13, 10]) }) else { return nil }
        return Array(raw[(end + 4)...])
    }

    func openStream() -> EventReader? {
        guard let fd = try? TCPClient.connect("127.0.0.1", port: port),
              (try? fd.sendAll(Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))) != nil else { return nil }
        return EventReader(fd)
    }
}

/// One event stream's bytes as they arrive, and when the last read arrived.
final class EventReader {
    let fd: FileDescriptor
    private(set) var text = ""
    private(set) var arrivedNs: Int64 = 0

    init(_ fd: FileDescriptor) { self.fd = fd }

    func clear() { text = "" }

    /// Reads until `needle` is in what arrived since `clear`, for at most `ms`.
    @discardableResult
    func read(until needle: String, ms: Int) -> Bool {
        let end = Clocks.monotonicNs() + Int64(ms) * 1_000_000
        repeat {
            if text.contains(needle) { return true }
            let left = Int32(max(0, (end - Clocks.monotonicNs()) / 1_000_000))
            guard (try? fd.waitReadable(timeoutMs: left)) == true, let c = try? fd.receive(capacity: 65536), !c.isEmpty else { break }
            arrivedNs = Clocks.monotonicNs()
            text += String(decoding: c, as: UTF8.self)
        } while Clocks.monotonicNs() < end
        return text.contains(needle)
    }

    /// Reads whatever is there now.
    func drain() {
        while (try? fd.waitReadable(timeoutMs: 0)) == true, let c = try? fd.receive(capacity: 65536), !c.isEmpty {
            text += String(decoding: c, as: UTF8.self)
            if text.utf8.count > 1 << 20 { text = "" }
        }
    }

    /// The sizes in bytes of the whole events named `name` read so far, from the `event:` line
    /// to the blank line (HTTP/1.1's chunk framing around them is not counted).
    func events(named name: String) -> [Int] {
        var sizes: [Int] = []
        var rest = text[...]
        while let start = rest.firstRange(of: "event: \(name)\n"), let end = rest[start.lowerBound...].firstRange(of: "\n\n") {
            sizes.append(rest[start.lowerBound..<end.upperBound].utf8.count)
            rest = rest[end.upperBound...]
        }
        return sizes
    }
}
