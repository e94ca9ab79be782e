import Foundation
import IsletCore
import IsletDaemon
import Testing
import IsletClock

/// The end-to-end tests where time is what they test: isletd's Daemon on a thread of this
/// process, on the mock bus, driven by the real isletctl over its socket, on a ManualLoopClock.
/// Seconds of behaviour take milliseconds, and each boundary is checked to the millisecond
/// (what the real clock could only bracket). What needs the real process (signals, exit
/// statuses, kill -9, systemd, libfaketime) stays in DaemonEndToEndTests.
@Suite("isletd end to end, on an injected clock", .offPool, .timeLimit(.minutes(2)))
struct DaemonInjectedTimeTests {
    @Test("completion stays visible three seconds, then the panel goes dark")
    func completion() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        #expect(d.ctl("start", "--seconds", "2").status == 0)
        d.pass(milliseconds: 1_999)
        #expect(try d.phase("meditation") == .running, "not complete before its 2 s")
        d.pass(milliseconds: 1)
        #expect(try d.phase("meditation") == .complete)
        let done = try #require(try d.panel(), "the completed session is shown")
        #expect(done.litCount > 0)
        d.pass(milliseconds: 2_999)
        #expect(try d.panel() != nil, "still visible before the 3 s linger ends")
        d.pass(milliseconds: 1)
        #expect(try d.status().activities?.isEmpty == true, "dismissed 3 s after completion")
        #expect(try d.panel() == nil, "then the display is off")
    }

    @Test("expand shows the expanded presentation for expand_seconds, then compact again")
    func expand() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock(), config: "[display]\nexpand_seconds = 1\n")
        defer { d.stop() }
        let watcher = try d.client()
        watcher.send("{\"op\":\"watch\"}\n")
        #expect(watcher.readJSON()?["event"] as? String == "snapshot")
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        #expect(watcher.readJSON()?["presentation"] as? String == "compact")
        #expect(d.ctl("expand").status == 0)
        #expect(try d.status().presentation == "expanded")
        #expect(watcher.readJSON()?["presentation"] as? String == "expanded")
        d.pass(milliseconds: 999)
        #expect(try d.status().presentation == "expanded", "expanded for all of expand_seconds")
        #expect(!answers(watcher, within: 0), "no change before expand_seconds")
        d.pass(milliseconds: 1)
        // Watchers (isletctl watch draws from them) hear when the expanded view ends, too.
        let back = watcher.readJSON()
        #expect(back?["event"] as? String == "change" && back?["presentation"] as? String == "compact",
                "a change when the expanded view ends: \(String(describing: back))")
        #expect(try d.status().presentation == "compact", "back after one second")
    }

    @Test("no wake-ups while paused; about one per second while running")
    func wakeups() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        // Every request on one connection: each costs the loop exactly one turn (a start or a
        // pause also the turn of its durable write, before its answer), so no client's connect
        // or hangup lands between two samples.
        let c = try d.client()
        func ask(_ json: String) throws -> [String: Any] {
            c.send(json + "\n")
            return try #require(c.readJSON())
        }
        func counters() throws -> (wakeups: Int, frames: Int) {
            let s = try #require(try ask(#"{"op":"status"}"#)["status"] as? [String: Any])
            return (try #require(s["wakeups"] as? Int), try #require(s["frames"] as? Int))
        }
        #expect(errorCode(try ask(#"{"op":"start","seconds":60}"#)) == nil)
        let r0 = try counters()
        d.pass(milliseconds: 10_000)   // in 50 ms steps: a wake-up between shown seconds would show
        let r1 = try counters()
        // A sample is taken before its own turn is counted: r1 includes r0's turn.
        let running = r1.wakeups - r0.wakeups - 1
        #expect(running == 10, "running: one wake-up per shown second, none between (\(running) in 10 s)")
        #expect(r1.frames - r0.frames == 10, "running: one frame per shown second")
        #expect(errorCode(try ask(#"{"op":"pause"}"#)) == nil)
        let p0 = try counters()
        d.pass(milliseconds: 30_000)
        let p1 = try counters()
        #expect(p1.wakeups - p0.wakeups - 1 == 0, "paused: only the status question's own wake-up (\(p1.wakeups - p0.wakeups) in 30 s)")
        #expect(p1.frames == p0.frames, "paused: no frame")
    }

    @Test("press drives the gestures with mock buttons only")
    func press() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock(), args: ["--buttons", "mock"])
        defer { d.stop() }
        // The default map (docs/HARDWARE.md): toggle press toggles, reset needs a long press
        // (800 ms), so a brush of the reset button does nothing.
        let first = d.ctl("press", "toggle")
        #expect(first.status == 0)
        #expect(first.out.hasPrefix("pressed toggle"), "isletctl says what it did, not the state before the gesture acts: \(first.out)")
        d.pass(milliseconds: 400)
        #expect(try d.phase("meditation") == .running, "a short press of toggle starts the default session")
        #expect(d.ctl("press", "toggle").status == 0)
        d.pass(milliseconds: 400)
        #expect(try d.phase("meditation") == .paused, "and the next one pauses it")
        #expect(d.ctl("press", "reset").status == 0)
        d.pass(milliseconds: 400)
        #expect(try d.phase("meditation") == .paused, "a short press of reset does nothing")
        #expect(d.ctl("press", "reset", "--hold-ms", "1200").status == 0)
        d.pass(milliseconds: 799)
        #expect(try d.phase("meditation") == .paused, "not before the long-press time")
        d.pass(milliseconds: 1)
        #expect(try d.status().activities?.isEmpty == true, "a long press of reset resets, while still held")
        d.pass(milliseconds: 400)
        #expect(try d.status().activities?.isEmpty == true, "its release does nothing more")
        #expect(d.ctl("press", "toggle", "--timer", "b").status == 64, "a button is not aimed by the caller")
        let unknown = d.ctl("press", "volume")
        #expect(unknown.status == 1 && unknown.err.contains("unknown_button"))
        let plain = try InProcessDaemon(clock: ManualLoopClock())
        defer { plain.stop() }
        let r = plain.ctl("press", "toggle")
        #expect(r.status == 1 && r.err.contains("not_supported"))
    }

    @Test("a press answers with its edges' instants on the loop's clock, as GPIO edges carry them")
    func pressEdgeInstants() throws {
        let clock = ManualLoopClock()
        let d = try InProcessDaemon(clock: clock, args: ["--buttons", "mock"])
        defer { d.stop() }
        d.pass(milliseconds: 1_234)
        let now = clock.monotonic().nanoseconds / 1000
        let reply = try #require(try d.request(#"{"op":"press","button":"toggle","hold_ms":120}"#))
        #expect(reply["ok"] as? Bool == true)
        let press = try #require((reply["press_monotonic_us"] as? NSNumber)?.uint64Value)
        let release = try #require((reply["release_monotonic_us"] as? NSNumber)?.uint64Value)
        #expect(press == now, "pressed when the daemon took the request: the clock stands still here")
        #expect(release == now + 120_000, "released hold_ms later")
        let status = try #require(try d.request(#"{"op":"status"}"#))
        #expect(status["release_monotonic_us"] == nil, "only a press's answer carries edges")
    }

    @Test("holding the mock toggle button expands without pausing; expand's press acts at once")
    func holdToggleExpands() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock(), args: ["--buttons", "mock"])
        defer { d.stop() }
        #expect(d.ctl("start", "--seconds", "60").status == 0)
        #expect(d.ctl("press", "toggle", "--hold-ms", "1000").status == 0)
        d.pass(milliseconds: 799)
        #expect(try d.status().presentation == "compact", "not before the long-press time")
        d.pass(milliseconds: 1)   // the long press fires at 800 ms, while still held (docs/HARDWARE.md §7)
        #expect(try d.status().presentation == "expanded", "expanded while the button is still down")
        d.pass(milliseconds: 300)  // released at 1000 ms: no short press follows a long one
        #expect(try d.phase("meditation") == .running, "holding toggle never pauses")
        let e = try InProcessDaemon(clock: ManualLoopClock(), args: ["--buttons", "mock"])
        defer { e.stop() }
        #expect(e.ctl("start", "--seconds", "60").status == 0)
        #expect(e.ctl("press", "expand", "--hold-ms", "2000").status == 0)
        e.settle()   // no time passes: only the press edge, due at once
        #expect(try e.status().presentation == "expanded", "expand has no long press: its press acts on the first edge")
    }

    @Test("pausing one timer does not cut the chime another timer is sounding")
    func chimeBelongsToItsTimer() throws {
        // Completion: on 300, off 300, on 300 ms, so two pulses, the second 600 ms in.
        let d = try InProcessDaemon(clock: ManualLoopClock(), config: "[chime]\nline = mock\ncompletion = 300,300,300\n")
        defer { d.stop() }
        #expect(d.ctl("start", "--seconds", "30", "--timer", "b").status == 0)
        #expect(d.ctl("start", "--seconds", "1", "--timer", "a").status == 0)
        d.pass(milliseconds: 1_200)   // a completed at +1 s, chiming
        #expect(try d.status().status?.chimePulses == 1, "a's completion chime has begun")
        #expect(d.ctl("pause", "--timer", "b").status == 0)
        d.pass(milliseconds: 1_100)
        #expect(try d.status().status?.chimePulses == 2, "a's completion chime played out in full")
    }

    @Test("64 silent connections cannot lock others out: the longest idle gives way")
    func silentFlood() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        // README: at most 64 clients at once. Fill every place with connections that say nothing
        // more. The first asks once, so its answer shows the daemon holds it; then it is silent
        // 100 ms longer than the others, so it is the longest idle whenever they were taken in.
        let first = try d.client()
        first.send(#"{"op":"status"}"# + "\n")
        #expect(first.readJSON()?["ok"] as? Bool == true)
        d.pass(milliseconds: 100)
        let silent = try [first] + (1..<64).map { _ in try d.client() }
        d.pass(milliseconds: 1_100)   // idle for longer than a real request ever takes
        let r = d.ctl("status")
        #expect(r.status == 0, "a newcomer is served while 64 silent clients hold every place: \(r.err)")
        // Exactly one silent client (the longest idle) was told why and closed.
        var told: [Int] = []
        for (i, c) in silent.enumerated() {
            var tv = timeval(tv_sec: 0, tv_usec: 1000)
            setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            if errorCode(c.readJSON()) == "too_many_clients" { told.append(i) }
        }
        #expect(told == [0], "one place was needed, the longest idle client gave it: \(told)")
    }
}
