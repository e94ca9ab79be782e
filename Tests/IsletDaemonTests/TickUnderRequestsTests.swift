import Testing
import Foundation

/// A running countdown draws every second whatever else the loop does. A request that lands a
/// moment before a second's change, with the change passing while its turn ends, once made the
/// panel skip that second (a 2 s gap between frames): the turn judged the frame not due with
/// its own instant, then the wake-up was planned from a later reading of the clock and the
/// schedule moved on to the following second. Found by make test-web's punctual-tick check.
@Suite("ticks under a stream of requests", .offPool, .timeLimit(.minutes(1)))
struct TickUnderRequestsTests {
    @Test("status every 5 ms for 6 s: every second of the countdown reaches the panel")
    func noSecondSkipped() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"start","seconds":600}"#)
        let c = try d.client()
        func status() -> (frames: Int, shown: String)? {
            c.send(#"{"op":"status"}"# + "\n")
            guard let r = c.readJSON(), let st = r["status"] as? [String: Any], let frames = st["frames"] as? Int,
                  let shown = (r["activities"] as? [[String: Any]])?.first?["shown"] as? String else { return nil }
            return (frames, shown)
        }
        usleep(300_000)
        guard let first = status() else { Issue.record("no status"); return }
        var shownSeen: Set<String> = [first.shown]
        let t0 = Date()
        var last = first
        while Date().timeIntervalSince(t0) < 6 {
            if let s = status() { last = s; shownSeen.insert(s.shown) }
            usleep(5_000)
        }
        let seconds = shownSeen.count - 1
        #expect(seconds >= 5, "the countdown did not move: \(shownSeen.sorted())")
        // One frame per shown second that passed (the first reading's frame was already out).
        #expect(last.frames - first.frames >= seconds, "\(seconds) seconds passed but \(last.frames - first.frames) frames were sent")
    }
}
