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

    @Test("start kind until: its content, icon and relevance; the config's session title is not its")
    func startUntil() throws {
        var defaults = SessionDefaults()
        defaults.title = "Evening sit"
        let r = try parse(#"{"op":"start","kind":"until","timer":"laundry","title":"Laundry","icon":"laundry","ends_at":"2026-12-06T14:05:00Z","progress":0.25,"text":"Washing","relevance":10,"stale_after_seconds":900}"#)
        let a = r.start.attributes(timer: r.timer, defaults: defaults)
        // 2026-12-06T14:05:00Z is 1,796,565,900 s after 1970.
        #expect(a.kind == .until(PushedContent(endsAt: Instant(milliseconds: 1_796_565_900_000), progress: 0.25, text: "Washing")))
        #expect(a.timerID == "laundry" && a.title == "Laundry" && a.icon == .named("laundry") && a.relevance == 10)
        // Seconds since 1970 work too; no title means none (not the meditation's).
        let b = try parse(#"{"op":"start","kind":"until","ends_at":1796565900,"icon_data":"UDQKOCA4Cv+BgYGBgYH/"}"#).start.attributes(timer: nil, defaults: defaults)
        #expect(b.kind == .until(PushedContent(endsAt: Instant(milliseconds: 1_796_565_900_000))) && b.title == nil && b.timerID == "until")
        #expect(b.icon == .custom(base64: "UDQKOCA4Cv+BgYGBgYH/") && b.relevance == 0)
        // A person's countdown keeps the configured relevance.
        defaults.relevance = 70
        #expect(try parse(#"{"op":"start"}"#).start.attributes(timer: nil, defaults: defaults).relevance == 70)
    }

    @Test("update: a field set, null clears it, absent keeps it; alert")
    func update() throws {
        let r = try parse(#"{"op":"update","timer":"laundry","ends_at":"2026-12-06T14:12:00.500Z","progress":null,"alert":true}"#)
        #expect(r.op == .verb(.update) && r.timer == "laundry")
        #expect(r.update == ContentUpdate(endsAt: .set(Instant(milliseconds: 1_796_566_320_500)), progress: .clear, text: .keep, alert: true))
        let i = r.intent(of: .update, session: SessionDefaults(), now: .epoch)
        #expect(i == .update(r.update))
        // A bare update is a heartbeat: it keeps everything.
        #expect(try parse(#"{"op":"update","timer":"laundry"}"#).update == ContentUpdate())
    }

    @Test("ends_at in every RFC 3339 form; refused in any other, naming the forms it takes")
    func endsAtForms() throws {
        // 2026-12-06T14:05:00Z is 1,796,565,900 s after 1970.
        let end = Instant(milliseconds: 1_796_565_900_000)
        for text in ["2026-12-06T15:05:00+01:00", "2026-12-06t14:05:00z", "2026-12-06T06:05:00-08:00", "2026-12-06T14:05:00.0000Z"] {
            #expect(try parse(#"{"op":"update","ends_at":"\#(text)"}"#).update.endsAt == .set(end), "\(text)")
            #expect(try parse(#"{"op":"start","kind":"until","ends_at":"\#(text)"}"#).start.until?.endsAt == end, "\(text)")
        }
        // Seconds since 1970 round to the nearest millisecond.
        #expect(try parse(#"{"op":"update","ends_at":1796565900.0004}"#).update.endsAt == .set(end))
        #expect(try parse(#"{"op":"update","ends_at":1796565900.0006}"#).update.endsAt == .set(end + .milliseconds(1)))
        for text in ["2026-12-06T14:05Z", "2026-12-06 14:05:00Z", "2026-12-06T14:05:00", "2026-12-06T14:05:00+0100", "2026-12-06T23:59:60Z"] {
            #expect("\(text)", performing: { try parse(#"{"op":"update","ends_at":"\#(text)"}"#) },
                    throws: { ($0 as? ProtocolError)?.code == "invalid_field" && "\($0)".contains("RFC 3339") })
        }
    }

    @Test("a request id is bounded in UTF-8 bytes as well as in characters")
    func requestIDBytes() throws {
        #expect(ControlRequest.maximumRequestIDLength == 128 && ControlRequest.maximumRequestIDBytes == 512)
        // 128 four-byte characters (U+1D11E) are 512 bytes: taken.
        let full = String(repeating: "\u{1D11E}", count: 128)
        #expect(try parse(#"{"op":"status","request_id":"\#(full)"}"#).requestID == full)
        // One letter and 600 combining acute accents (U+0301) is one character of 1,201 bytes.
        let heavy = "a" + String(repeating: "\u{301}", count: 600)
        #expect(code(#"{"op":"status","request_id":"\#(heavy)"}"#) == "invalid_field")
        #expect(ControlRequest.requestID(in: Array(#"{"op":"x","request_id":"\#(heavy)"}"#.utf8)) == nil)
    }

    @Test("until and update refuse what they cannot hold", arguments: [
        #"{"op":"start","kind":"until","ends_at":"tomorrow"}"#,
        #"{"op":"start","kind":"until","ends_at":"2300-01-01T00:00:00Z"}"#,
        #"{"op":"start","kind":"until","ends_at":-5}"#,
        #"{"op":"start","kind":"until","ends_at":1e300}"#,
        #"{"op":"start","kind":"until","ends_at":true}"#,
        #"{"op":"start","kind":"until","progress":"half"}"#,
        #"{"op":"start","kind":"until","seconds":60}"#,
        #"{"op":"start","kind":"countdown","ends_at":"2026-12-06T14:05:00Z"}"#,
        #"{"op":"start","kind":"stopwatch","text":"x"}"#,
        #"{"op":"start","kind":"until","icon":"bell","icon_data":"AAAA"}"#,
        #"{"op":"start","kind":"until","icon":"Bell!"}"#,
        #"{"op":"start","kind":"until","icon_data":"not base64 at all"}"#,
        #"{"op":"update","alert":"yes"}"#,
        #"{"op":"update","text":5}"#,
    ])
    func untilErrors(_ line: String) {
        #expect(code(line) == "invalid_field", "\(line)")
    }

    @Test("what isletctl sends for until and update parses back to the same request")
    func untilRoundTrip() throws {
        var r = ControlRequest(op: .verb(.start), timer: "oven")
        r.start.until = PushedContent(endsAt: Instant(milliseconds: 1_796_565_900_000), progress: 0.5, text: "Baking")
        r.start.icon = .named("oven")
        r.start.relevance = 30
        var u = ControlRequest(op: .verb(.update), timer: "oven")
        u.update = ContentUpdate(endsAt: .clear, progress: .set(1), text: .set("Done"), alert: true)
        for req in [r, u] {
            let line = req.encodedLine()
            #expect(try ControlRequest.parse(Array(line.dropLast())) == req)
        }
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
