import IsletCore
import IsletProtocol
import Testing

@Suite("control socket protocol")
struct ControlProtocolTests {
    func parse(_ s: String) throws(ProtocolError) -> ControlRequest { try ControlRequest.parse(Array(s.utf8)) }

    func code(_ s: String) -> String? {
        do { _ = try parse(s); return nil } catch { return error.code }
    }

    @Test("start with every field")
    func start() throws {
        let r = try parse(#"{"op":"start","timer":"eve","kind":"countdown","seconds":90,"cycles":3,"language":"he","title":"T","cycle_end_seconds":5,"stale_after_seconds":60}"#)
        #expect(r.op == .verb(.start) && r.timer == "eve")
        let a = r.start.attributes(timer: r.timer, defaults: SessionDefaults())
        #expect(a.timerID == "eve")
        #expect(a.kind == .countdown(cycle: .seconds(90), cycles: 3))
        #expect(a.language == "he" && a.title == "T")
        #expect(a.cycleEndInterval == .seconds(5))
        #expect(a.staleAfter == .seconds(60))
    }

    @Test("start without a duration uses the configured session")
    func startDefaults() throws {
        var defaults = SessionDefaults()
        defaults.minutes = 2
        defaults.cycles = 0
        let a = try parse(#"{"op":"start"}"#).start.attributes(timer: nil, defaults: defaults)
        #expect(a.kind == .countdown(cycle: .seconds(120), cycles: nil))
        let sw = try parse(#"{"op":"start","kind":"stopwatch"}"#).start.attributes(timer: nil, defaults: defaults)
        #expect(sw.kind == .stopwatch && sw.timerID == "stopwatch")
    }

    @Test("end dismissals", arguments: [
        (#"{"op":"end"}"#, DismissalRequest.default),
        (#"{"op":"end","dismissal":"immediate"}"#, .immediate),
        (#"{"op":"end","dismissal":"default"}"#, .default),
        (#"{"op":"end","dismissal":{"after_seconds":7}}"#, .afterSeconds(7)),
    ])
    func end(_ line: String, _ expected: DismissalRequest) throws {
        #expect(try parse(line).dismissal == expected)
    }

    @Test("after_seconds dismisses that long after now")
    func afterPolicy() {
        let now = Instant(milliseconds: 1_000_000)
        #expect(DismissalRequest.afterSeconds(7).policy(now: now) == .after(Instant(milliseconds: 1_007_000)))
    }

    @Test("errors carry snake_case codes", arguments: [
        ("{", "invalid_json"),
        ("42", "invalid_request"),
        (#"{"timer":"x"}"#, "missing_field"),
        (#"{"op":7}"#, "invalid_field"),
        (#"{"op":"launch"}"#, "unknown_op"),
        (#"{"op":"pause","seconds":3}"#, "unknown_field"),
        (#"{"op":"start","kind":"egg"}"#, "invalid_field"),
        (#"{"op":"start","cycles":1.5}"#, "invalid_field"),
        (#"{"op":"start","cycles":-2}"#, "invalid_field"),
        (#"{"op":"start","kind":"stopwatch","seconds":3}"#, "invalid_field"),
        (#"{"op":"end","dismissal":"later"}"#, "invalid_field"),
        (#"{"op":"end","dismissal":{"after_seconds":-1}}"#, "invalid_field"),
        // Beyond what a Duration holds: refused, not silently turned into 0 s (an end "after
        // 1e300 s" must not dismiss at once; the core caps real values at 4 h).
        (#"{"op":"end","dismissal":{"after_seconds":1e300}}"#, "invalid_field"),
        (#"{"op":"start","seconds":1e300}"#, "invalid_field"),
        (#"{"op":"start","cycle_end_seconds":1e300}"#, "invalid_field"),
        (#"{"op":"start","stale_after_seconds":1e300}"#, "invalid_field"),
        (#"{"op":"press"}"#, "missing_field"),
        (#"{"op":"press","button":"toggle","timer":"b"}"#, "unknown_field"),
        (#"{"op":"press","button":"toggle","hold_ms":99999999}"#, "invalid_field"),
    ])
    func errors(_ line: String, _ expected: String) {
        #expect(code(line) == expected)
    }

    @Test("what isletctl sends parses back to the same request")
    func roundTrip() throws {
        var r = ControlRequest(op: .verb(.start), timer: "a")
        r.start.seconds = 30
        r.start.cycles = 2
        r.start.title = "x \"quoted\""
        var line = r.encodedLine()
        #expect(line.last == 10, "one request per line")
        line.removeLast()
        #expect(try ControlRequest.parse(line) == r)
        var e = ControlRequest(op: .verb(.end))
        e.dismissal = .afterSeconds(2.5)
        var l2 = e.encodedLine()
        l2.removeLast()
        #expect(try ControlRequest.parse(l2) == e)
    }

    @Test("a response names the timers the panel shows, and a client draws those, in that order")
    func shownTimers() throws {
        // Two activities the daemon shows minimal (b on the left), a third it does not show.
        let line = #"{"ok":true,"presentation":"minimal","shown_timers":["b","a"],"now":"2026-06-01T10:00:00.000Z","activities":["#
            + ["a", "b", "c"].map { #"{"attributes":{"timer":"\#($0)","kind":"countdown","cycle_seconds":60,"cycles":1,"cycle_end_seconds":3,"language":"en"},"content":{"schema":1,"phase":"running","cycle":1,"cycles":1,"reference":"2026-06-01T10:01:00.000Z","stale":false},"started_at":"2026-06-01T10:00:00.000Z","updated_at":"2026-06-01T10:00:00.000Z"}"# }.joined(separator: ",")
            + "]}"
        let r = try ControlClient.decode(Array(line.utf8))
        #expect(r.shownTimers == ["b", "a"])
        #expect(r.shownActivities().map(\.timerID) == ["b", "a"], "the drawing order is the daemon's")
        #expect(r.shownActivities(timer: "a").map(\.timerID) == ["a"])
        #expect(r.shownActivities(timer: "c").isEmpty, "a timer the panel does not show is not drawn")
        // And it survives the way back (the daemon encodes, a client decodes).
        let again = try ControlClient.decode(JSONLines.encode(r).filter { $0 != 10 })
        #expect(again.shownTimers == ["b", "a"] && again.presentation == "minimal")
    }
}
