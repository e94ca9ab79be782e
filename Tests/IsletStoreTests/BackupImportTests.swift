import Foundation
import IsletCore
import IsletProtocol
import IsletStore
import Testing

/// A backup's activities at import (docs/WEB.md "Backup"): beyond the state file's loader,
/// instants no Islet whose clock reads now could have written, and keys the loader would drop.
@Suite("a backup's activities at import")
struct BackupImportTests {
    let now = Instant(milliseconds: 1_796_256_000_000)   // 2026-12-01T00:00:00Z
    func iso(_ offsetSeconds: Int64) -> String { ISO8601.format(Instant(milliseconds: now.milliseconds + offsetSeconds * 1000)) }

    /// One activity as a backup spells it, from the machine's own start at `now - 60 s`, edited.
    func activity(_ attrs: ActivityAttributes, edit: (inout [String: Any]) -> Void = { _ in }) throws -> [String: Any] {
        let a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: now - .seconds(60)).activity)
        let encoded = try JSONEncoder().encode(a)
        var o = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        edit(&o)
        return o
    }

    func decode(_ list: [[String: Any]]) throws -> [Activity] {
        let bytes = Array(try JSONSerialization.data(withJSONObject: list))
        return try BackupActivities.decode(try StrictJSON.parse(bytes), now: now)
    }

    /// The refusal's message, or nil when the list was taken.
    func refusal(_ o: [String: Any]) throws -> String? {
        do { _ = try decode([o]); return nil } catch let e as BackupActivities.Problem { return e.message } catch { return "\(error)" }
    }

    let countdown = ActivityAttributes(timerID: "tea", kind: .countdown(cycle: .seconds(300), cycles: 2))
    let stopwatch = ActivityAttributes(timerID: "run", kind: .stopwatch)

    func content(_ o: inout [String: Any], _ key: String, _ value: Any?) {
        var c = o["content"] as? [String: Any] ?? [:]
        c[key] = value
        o["content"] = c
    }
    func attribute(_ o: inout [String: Any], _ key: String, _ value: Any?) {
        var c = o["attributes"] as? [String: Any] ?? [:]
        c[key] = value
        o["attributes"] = c
    }

    @Test func ordinaryActivitiesAndASmallSkewAreTaken() throws {
        #expect(try refusal(try activity(countdown)) == nil)
        #expect(try refusal(try activity(stopwatch)) == nil)
        // A backup from an Islet whose clock is 4 minutes ahead.
        #expect(try refusal(try activity(stopwatch) { o in
            o["started_at"] = iso(240); o["updated_at"] = iso(240); content(&o, "reference", iso(240))
        }) == nil)
        #expect(try refusal(try activity(countdown) { o in content(&o, "reference", iso(300 + 240)) }) == nil)
        // An until activity with its texts and its end an hour ahead.
        let until = ActivityAttributes(timerID: "bus", kind: .until(PushedContent(endsAt: now + .seconds(3600), progress: 0.5, text: "bus")))
        #expect(try refusal(try activity(until)) == nil)
        // Keys left out at their default, given explicitly, are the loader's own.
        #expect(try refusal(try activity(stopwatch) { o in attribute(&o, "title", "Run") }) == nil)
    }

    @Test("within the skew, a deadline past a whole interval from now is brought back to it: a countdown from a clock ahead runs at once, never stands")
    func aDeadlineFromAClockAheadIsCaughtUp() throws {
        // The end 4 minutes past now + the 300 s cycle: the countdown starts at its full cycle.
        let ahead = try decode([try activity(countdown) { o in content(&o, "reference", iso(300 + 240)) }])
        #expect(ahead.first?.content.display == .running(reference: now + .seconds(300)))
        // A cycle end 2 minutes past now + its 3 s interval: the next cycle 3 s from now.
        let pause = try decode([try activity(countdown) { o in
            content(&o, "reference", nil); content(&o, "phase", "cycle_end"); content(&o, "next_cycle_at", iso(3 + 120)) }])
        #expect(pause.first?.content.display == .cycleEnd(nextCycleAt: now + countdown.cycleEndInterval))
        // Within a whole interval: as the backup says.
        let inside = try decode([try activity(countdown) { o in content(&o, "reference", iso(200)) }])
        #expect(inside.first?.content.display == .running(reference: now + .seconds(200)))
    }

    @Test("D1: a running stopwatch whose start is in 2199 is refused, by field")
    func aStopwatchStartedInTheFutureIsRefused() throws {
        let m = try #require(try refusal(try activity(stopwatch) { o in content(&o, "reference", "2199-01-01T00:00:00.000Z") }))
        #expect(m.contains("activities[0].content.reference") && m.contains("2199-01-01"), "\(m)")
    }

    @Test("D2: instants past now (+ 5 min) are refused, each named")
    func futureInstantsAreRefused() throws {
        let cases: [(String, [String: Any])] = [
            ("activities[0].started_at", try activity(countdown) { o in o["started_at"] = iso(3600); o["updated_at"] = iso(3600); content(&o, "reference", iso(3900)) }),
            ("activities[0].updated_at", try activity(countdown) { o in o["updated_at"] = iso(3600) }),
            ("activities[0].content.reference", try activity(countdown) { o in content(&o, "reference", iso(300 + 301)) }),
            ("activities[0].content.reference", try activity(stopwatch) { o in content(&o, "reference", iso(301)) }),
            ("activities[0].content.next_cycle_at", try activity(countdown) { o in
                content(&o, "reference", nil); content(&o, "phase", "cycle_end"); content(&o, "next_cycle_at", iso(3 + 301)) }),
            ("activities[0].ended_at", try activity(countdown) { o in
                content(&o, "reference", nil); content(&o, "phase", "complete")
                o["ended_at"] = iso(3600); o["dismissal"] = "default"; o["dismiss_at"] = iso(3600 + 4 * 3600) }),
        ]
        for (field, o) in cases {
            let m = try refusal(o)
            #expect(m?.contains(field) == true, "\(field): \(m ?? "taken")")
        }
    }

    @Test("D3: ended_at before started_at is refused")
    func anEndBeforeTheStartIsRefused() throws {
        let m = try refusal(try activity(countdown) { o in
            content(&o, "reference", nil); content(&o, "phase", "complete")
            o["ended_at"] = iso(-3600); o["dismissal"] = "default"; o["dismiss_at"] = iso(-3600 + 60) })
        #expect(m?.contains("activities[0].ended_at") == true && m?.contains("before started_at") == true, "\(m ?? "taken")")
    }

    @Test("D3: a field unknown, or not of the activity's kind, is refused by name")
    func foreignFieldsAreRefused() throws {
        let cases: [(String, [String: Any])] = [
            ("activities[0].attributes.alert", try activity(countdown) { o in attribute(&o, "alert", true) }),
            ("activities[0].content.progress", try activity(countdown) { o in content(&o, "progress", 0.5) }),
            ("activities[0].content.ends_at", try activity(countdown) { o in content(&o, "ends_at", iso(60)) }),
            ("activities[0].content.text", try activity(countdown) { o in content(&o, "text", "x") }),
            ("activities[0].attributes.cycle_seconds", try activity(stopwatch) { o in attribute(&o, "cycle_seconds", 60) }),
            ("activities[0].attributes.cycles", try activity(stopwatch) { o in attribute(&o, "cycles", 2) }),
            ("activities[0].attributes.ends_at", try activity(stopwatch) { o in attribute(&o, "ends_at", iso(60)) }),
            ("activities[0].colour", try activity(stopwatch) { o in o["colour"] = "red" }),
            ("activities[0].content.frozen_seconds", try activity(stopwatch) { o in content(&o, "frozen_seconds", 3) }),
        ]
        for (field, o) in cases {
            let m = try refusal(o)
            #expect(m?.contains(field) == true, "\(field): \(m ?? "taken")")
        }
    }
}
