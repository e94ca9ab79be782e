import Foundation
import IsletDaemon
import Testing
import IsletClock

/// Issue 12: the presentation is decided in one place (the daemon's policy) and clients are
/// told the whole scene, the presentation and the timers shown, so `isletctl watch` draws it
/// without a policy of its own. Expectations from README "Responses" and the policy's rules:
/// one activity compact, two minimal (oldest on the left), expand shows the target alone for
/// `expand_seconds` (default 5), then a `change` line says it ended.
@Suite("the daemon tells clients its scene", .offPool, .timeLimit(.minutes(1)))
struct SceneReportTests {
    func scene(_ r: [String: Any]?) -> (String?, [String]?) {
        (r?["presentation"] as? String, r?["shown_timers"] as? [String])
    }

    @Test func theSceneFollowsThePolicyAndAWatcherLearnsWhenAnExpandEnds() throws {
        let clock = ManualLoopClock()
        let d = try InProcessDaemon(clock: clock)
        defer { d.stop() }
        let idle = scene(try d.request(#"{"op":"status"}"#))
        #expect(idle.0 == "off" && idle.1 == [], "nothing shown")

        let one = scene(try d.request(#"{"op":"start","timer":"a","seconds":600}"#))
        #expect(one.0 == "compact" && one.1 == ["a"])
        let two = scene(try d.request(#"{"op":"start","timer":"b","seconds":300}"#))
        #expect(two.0 == "minimal" && two.1 == ["a", "b"], "two activities share the pill, the older on the left")

        let watcher = try d.client()
        watcher.send(#"{"op":"watch"}"# + "\n")
        let first = watcher.readJSON()
        #expect(first?["event"] as? String == "snapshot")
        #expect(scene(first).1 == ["a", "b"])

        let expanded = scene(try d.request(#"{"op":"expand"}"#))
        #expect(expanded.0 == "expanded" && expanded.1 == ["b"], "expand shows the most recently started alone")
        var change = watcher.readJSON()
        #expect(change?["event"] as? String == "change")
        #expect(scene(change).0 == "expanded" && scene(change).1 == ["b"])

        clock.advance(milliseconds: 4_900)
        #expect(!answers(watcher, within: 100), "still expanded before expand_seconds")
        clock.advance(milliseconds: 100)
        change = watcher.readJSON()
        #expect(change?["event"] as? String == "change", "the end of the expanded view is announced")
        #expect(scene(change).0 == "minimal" && scene(change).1 == ["a", "b"])

        let afterReset = scene(try d.request(#"{"op":"reset","timer":"a"}"#))
        #expect(afterReset.0 == "compact" && afterReset.1 == ["b"], "reset dismisses a at once")
    }
}
