import Foundation
import IsletCore
import IsletClock
import IsletProtocol
import IsletDaemon
import IsletTestSupport
import Testing

/// The watchers' `change` names what the chime sounds for (`alerts`): a countdown's natural
/// completion and an `until` activity's alert; an `end`, a pause or a plain update names nothing.
@Suite("change events carry completions and alerts", .offPool, .timeLimit(.minutes(2)))
struct ChangeAlertTests {
    /// The watcher's next `change` line.
    private func nextChange(_ w: RawClient) -> [String: Any]? {
        for _ in 0..<8 {
            guard let o = w.readJSON() else { return nil }
            if o["event"] as? String == "change" { return o }
        }
        return nil
    }

    private func alerts(_ o: [String: Any]?) -> [[String: String]]? {
        (o?["alerts"] as? [[String: Any]])?.map { $0.compactMapValues { $0 as? String } }
    }

    @Test("a natural completion is named; an end is not")
    func completion() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        let w = try d.client()
        w.send("{\"op\":\"watch\"}\n")
        #expect(w.readJSON()?["event"] as? String == "snapshot")
        #expect(d.ctl("start", "--seconds", "2", "--timer", "tea").status == 0)
        #expect(alerts(nextChange(w)) == nil, "a start is nothing to notice")
        d.pass(milliseconds: 2_000)
        #expect(alerts(nextChange(w)) == [["timer": "tea", "kind": "completed"]])
        #expect(d.ctl("start", "--seconds", "60", "--timer", "sit").status == 0)
        _ = nextChange(w)
        #expect(d.ctl("end", "--timer", "sit").status == 0)
        let ended = nextChange(w)
        #expect((ended?["activities"] as? [[String: Any]])?.contains { $0["timer"] as? String == "sit" && $0["phase"] as? String == "complete" } == true)
        #expect(alerts(ended) == nil, "a person's end is complete too, but no completion")
    }

    @Test("an until update with alert is named; one without is not")
    func untilAlert() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        let w = try d.client()
        w.send("{\"op\":\"watch\"}\n")
        _ = w.readJSON()
        #expect(d.ctl("start", "--until", "+10", "--timer", "laundry", "--text", "Washing").status == 0)
        _ = nextChange(w)
        #expect(d.ctl("update", "--timer", "laundry", "--text", "Rinsing").status == 0)
        #expect(alerts(nextChange(w)) == nil)
        #expect(d.ctl("update", "--timer", "laundry", "--text", "Done", "--alert").status == 0)
        #expect(alerts(nextChange(w)) == [["timer": "laundry", "kind": "alerted"]])
    }
}
