import Foundation
import IsletCore
import IsletClock
import IsletProtocol
import IsletDaemon
import IsletTestSupport
import Testing

/// Night mode end to end: isletd on a thread of this process, on the mock bus with a capture,
/// on a ManualLoopClock, driven by the real isletctl. The boundary is the one the daemon reports
/// in `status` (the host's zone decides it), reached by moving the clock there to the millisecond.
@Suite("night mode, on an injected clock", .offPool, .timeLimit(.minutes(2)))
struct NightModeTests {
    /// The daemon with a capture of its bus in a folder of the test's own (the daemon's goes at stop).
    final class Night {
        let dir = makeTempDir()
        let daemon: InProcessDaemon
        var capture: String { dir + "/bus.txt" }

        init(_ display: String) throws {
            daemon = try InProcessDaemon(clock: ManualLoopClock(),
                                         config: "[display]\ncontrast = 200\nnight_contrast = 7\ncapture = \(dir)/bus.txt\n" + display)
        }

        func night() throws -> NightStatus { try #require(try daemon.status().status?.night) }

        /// Milliseconds from the daemon's wall clock to its next boundary.
        func untilBoundary() throws -> Int64 {
            let next = try #require(try night().nextBoundary.flatMap(ISO8601.parse))
            let wall = try #require(daemon.clock as? ManualLoopClock).wallMilliseconds()
            return next.milliseconds - wall
        }

        func advance(_ ms: Int64) throws {
            daemon.settle()
            try #require(daemon.clock as? ManualLoopClock).advance(milliseconds: ms)
            daemon.settle()
        }

        /// The 81h commands on the bus, in order (after the stop, when the capture is complete).
        func contrastCommands() -> [UInt8] {
            let lines = (readTextFile(capture) ?? "").split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            // time, address, control byte 00 (commands), then commands; no other command or
            // parameter of the init sequence is 81h, so an 81 there is the contrast command.
            return lines.flatMap { f -> [UInt8] in
                guard f.count >= 5, f[2] == "00" else { return [] }
                return (3..<(f.count - 1)).filter { f[$0] == "81" }.compactMap { UInt8(f[$0 + 1], radix: 16) }
            }
        }

        /// Moves the clock on until it is night for at least `ms` more (a whole-day window leaves
        /// a minute of day, and the boundary may be near).
        func makeNight(forAtLeast ms: Int64) throws {
            for _ in 0..<3 {
                if try night().night, try untilBoundary() > ms { return }
                try advance(try untilBoundary())
            }
            Issue.record("no night found")
        }

        func stop() {
            daemon.stop()
        }

        deinit { removeTree(dir) }
    }

    @Test("at a boundary: one 81h command, no frame; then the other way at the next")
    func boundaries() throws {
        let n = try Night("night = 00:00-12:00\n")
        let first = try n.night()
        #expect(first.contrast == (first.night ? 7 : 200) && first.source == "schedule" && first.window == "00:00-12:00")
        // The page's "night from 00:00" / "day from 12:00": the other mode, on the display's clock.
        #expect(first.nextNight == !first.night && first.nextLocal == (first.night ? "12:00" : "00:00"))
        let wait = try n.untilBoundary()
        #expect(wait > 0 && wait <= 12 * 3_600_000)
        let frames = try #require(try n.daemon.status().status?.frames)
        try n.advance(wait - 1)
        #expect(try n.night().night == first.night, "not before the boundary")
        try n.advance(1)
        let flipped = try n.night()
        #expect(flipped.night == !first.night && flipped.contrast == (flipped.night ? 7 : 200), "at the boundary, to the millisecond")
        #expect(flipped.nextNight == first.night && flipped.nextLocal == (first.night ? "00:00" : "12:00"))
        #expect(try n.daemon.status().status?.frames == frames, "no redraw for a contrast")
        // The next boundary is twelve hours on, whichever half this was.
        #expect(try n.untilBoundary() == 12 * 3_600_000)
        try n.advance(12 * 3_600_000)
        #expect(try n.night().night == first.night)
        n.stop()
        // The init sequence carried the first contrast; each boundary one 81h of its own.
        #expect(n.contrastCommands() == [first.night ? 7 : 200, first.night ? 200 : 7, first.night ? 7 : 200])
    }

    @Test("night_idle = dark: a finished session is not left glowing at night; on keeps it")
    func darkWhenIdle() throws {
        for idle in ["dark", "on"] {
            // A whole-day window: it is night now, whatever the zone.
            let n = try Night("night = 00:00-23:59\nnight_idle = \(idle)\n")
            try n.makeNight(forAtLeast: 60_000)
            do {
                #expect(n.daemon.ctl("start", "--seconds", "2").status == 0)
                #expect(try n.daemon.panel() != nil, "a running session shows at night")
                n.daemon.pass(milliseconds: 2_000)
                #expect(try n.daemon.phase("meditation") == .complete)
                let status = try #require(try n.daemon.status().status)
                if idle == "dark" {
                    #expect(try n.daemon.panel() == nil && status.presentation == "off", "dark as soon as nothing runs")
                } else {
                    #expect(try n.daemon.panel() != nil && status.presentation == "compact", "on: the completion lingers as by day")
                }
            }
            n.stop()
        }
    }

    @Test("brightness overrides until the next boundary; its writes are rate-limited")
    func brightness() throws {
        let n = try Night("night = 00:00-12:00\n")
        let first = try n.night()
        #expect(n.daemon.ctl("brightness", "42").status == 0)
        var now = try n.night()
        #expect(now.contrast == 42 && now.source == "override" && now.night == first.night)
        #expect(n.daemon.ctl("brightness", first.night ? "day" : "night").status == 0)
        now = try n.night()
        #expect(now.night == !first.night && now.contrast == (first.night ? 200 : 7), "the mode named alone brings its own contrast")
        #expect(n.daemon.ctl("brightness", "256").status == 64)
        // Twenty requests at once: eight go out (the burst), the last value follows within a second.
        let c = try n.daemon.client()
        for v in 100..<120 { c.send(#"{"op":"brightness","contrast":\#(v)}"# + "\n") }
        for _ in 0..<20 { #expect(c.readJSON()?["ok"] as? Bool == true) }
        #expect(try n.night().contrast == 119)
        n.daemon.pass(milliseconds: 1_000)
        // The boundary ends the override: the schedule's mode and contrast are back.
        try n.advance(try n.untilBoundary())
        now = try n.night()
        #expect(now.source == "schedule" && now.night == !first.night && now.contrast == (now.night ? 7 : 200))
        n.stop()
        let sent = n.contrastCommands()
        #expect(sent.first == (first.night ? 7 : 200), "the init sequence")
        let flood = sent.filter { (100..<120).contains($0) }
        #expect(flood.count <= 10 && flood.last == 119, "rate-limited, the latest value last: \(flood)")
        #expect(sent.last == (now.night ? 7 : 200))
    }

    @Test("no more wake-ups at night than by day while a session runs")
    func wakeupsAtNight() throws {
        let n = try Night("night = 00:00-23:59\n")
        try n.makeNight(forAtLeast: 60_000)
        let c = try n.daemon.client()
        func wakeups() throws -> Int {
            c.send(#"{"op":"status"}"# + "\n")
            return try #require((c.readJSON()?["status"] as? [String: Any])?["wakeups"] as? Int)
        }
        c.send(#"{"op":"start","seconds":60}"# + "\n")
        _ = c.readJSON()
        let w0 = try wakeups()
        n.daemon.pass(milliseconds: 10_000)
        let w1 = try wakeups()
        #expect(w1 - w0 - 1 == 10, "one wake-up per shown second, as by day (DaemonInjectedTimeTests)")
        n.stop()
    }
}
