import Foundation
import IsletClock
import Testing

/// A press or a request that changes the activities decides one scene and renders one frame,
/// however many answers, watchers and parts learn of it (docs/ARCHITECTURE.md "The turn").
@Suite("one scene and one frame per change", .offPool, .timeLimit(.minutes(1)))
struct OneFramePerPressTests {
    /// What a change cost the panel, on a clock that stands still meanwhile (no second ticks).
    private func cost(_ d: InProcessDaemon, of change: () throws -> Void) rethrows -> (scenes: Int, renders: Int, frames: Int) {
        d.settle()
        let before = d.panelCounters()
        try change()
        d.settle()
        let after = d.panelCounters()
        func delta(_ k: String) -> Int { (after[k] ?? 0) - (before[k] ?? 0) }
        return (delta("scenes"), delta("renders"), delta("frames"))
    }

    @Test("a pause on the socket, with a watcher listening: one scene, one render, one frame on the bus")
    func request() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        _ = try d.request(#"{"op":"start","seconds":600}"#)
        let watcher = try d.client()
        watcher.send(#"{"op":"watch"}"# + "\n")
        _ = watcher.readJSON()
        let c = try cost(d) {
            let answer = try d.request(#"{"op":"pause"}"#)
            #expect((answer?["activities"] as? [[String: Any]])?.first?["phase"] as? String == "paused")
        }
        #expect(watcher.readJSON()?["event"] as? String == "change")
        #expect(c == (1, 1, 1), "a pause decided \(c.scenes) scenes, rendered \(c.renders) frames, sent \(c.frames)")
    }

    @Test("a button's press (toggle, held 120 ms: resume on its release): one scene, one render, one frame on the bus")
    func press() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock(), args: ["--buttons", "mock"])
        defer { d.stop() }
        _ = try d.request(#"{"op":"start","seconds":600}"#)
        _ = try d.request(#"{"op":"pause"}"#)
        // Paused, so the time the press takes draws nothing of its own.
        let c = try cost(d) {
            _ = try d.request(#"{"op":"press","button":"toggle","hold_ms":120}"#)
            d.pass(milliseconds: 200)
        }
        let status = try d.request(#"{"op":"status"}"#)
        #expect((status?["activities"] as? [[String: Any]])?.first?["phase"] as? String == "running")
        #expect(c == (1, 1, 1), "a press decided \(c.scenes) scenes, rendered \(c.renders) frames, sent \(c.frames)")
    }
}
