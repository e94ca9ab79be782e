import IsletSystem
import Foundation
import IsletCore
import IsletDaemon
import Synchronization
import Testing
import IsletClock

/// Issue 12: the daemon's one event loop with one owner of the state, in this process, with a
/// disk that can be made slow or failing and a clock that moves only when the test says so.

@Suite("one event loop, one owner of the state", .offPool, .timeLimit(.minutes(2)))
struct DaemonLoopTests {
    @Test("while the start's write waits for a slow disk: the frame is on the bus, status is served, a second start and a pause of that timer are refused with start_in_progress; the answer comes once the write is durable")
    func slowDisk() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        d.disk.holding.withLock { $0 = true }
        let starter = try d.client()
        starter.send(#"{"op":"start","timer":"a","seconds":600}"# + "\n")
        #expect(!answers(starter, within: 300), "no answer before the write is durable")

        let status = try #require(try d.waitForStatus { d.activities($0) == ["a"] })
        let st = try #require(status["status"] as? [String: Any])
        #expect(st["panel_on"] as? Bool == true, "the new frame went to the panel before the disk finished")
        #expect((st["frames"] as? Int ?? 0) >= 1)
        #expect(status["presentation"] as? String == "compact")

        #expect(errorCode(try d.request(#"{"op":"start","timer":"a","seconds":60}"#)) == "start_in_progress")
        #expect(errorCode(try d.request(#"{"op":"pause","timer":"a"}"#)) == "start_in_progress")
        let other = try d.client()
        other.send(#"{"op":"start","timer":"b","seconds":60}"# + "\n")

        d.disk.holding.withLock { $0 = false }
        let answer = try #require(starter.readJSON())
        #expect(answer["ok"] as? Bool == true)
        #expect(d.activities(answer).contains("a"))
        #expect(d.fileTimers()?.contains("a") == true, "answered only once it is in the file")
        let b = other.readJSON()
        #expect(errorCode(b) == nil && d.activities(b) == ["a", "b"], "another timer is not gated by a's start")
        // The gate is open again: the same timer can be paused now.
        #expect(errorCode(try d.request(#"{"op":"pause","timer":"a"}"#)) == nil)
    }

    @Test("a start whose client leaves before its write is durable is cancelled: the activity is gone, and so is it from the file")
    func cancelledByLeaving() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        d.disk.holding.withLock { $0 = true }
        do {
            let starter = try d.client()
            starter.send(#"{"op":"start","timer":"gone","seconds":600}"# + "\n")
            _ = try #require(try d.waitForStatus { d.activities($0) == ["gone"] })
        }   // the connection closes here
        let after = try #require(try d.waitForStatus { d.activities($0).isEmpty })
        #expect(d.activities(after).isEmpty)
        d.disk.holding.withLock { $0 = false }
        var onDisk: [String]?
        for _ in 0..<100 {
            onDisk = d.fileTimers()
            if onDisk == [] { break }
            usleep(20_000)
        }
        #expect(onDisk == [], "the rolled-back state is what the file holds in the end")
        let again = try d.request(#"{"op":"start","timer":"gone","seconds":60}"#)
        #expect(errorCode(again) == nil, "the gate was released; the answer: \(String(describing: again))")
    }

    @Test("a start whose write fails is undone: store_failed, no activity, and the gate opens")
    func failedWrite() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        d.disk.failing.withLock { $0 = true }
        let answer = try d.request(#"{"op":"start","timer":"f","seconds":60}"#)
        #expect(errorCode(answer) == "store_failed")
        let status = try #require(try d.request(#"{"op":"status"}"#))
        #expect(d.activities(status).isEmpty)
        #expect(((status["status"] as? [String: Any])?["store_error"] as? String)?.contains("fsync") == true)
        d.disk.failing.withLock { $0 = false }
        let again = try d.request(#"{"op":"start","timer":"f","seconds":60}"#)
        #expect(errorCode(again) == nil && d.activities(again) == ["f"])
    }

    @Test("on an injected clock a 10 s countdown completes, stays 3 s and is dismissed, with no real waiting")
    func injectedClock() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        let started = try d.request(#"{"op":"start","timer":"m","seconds":10}"#)
        #expect(d.activities(started) == ["m"])
        func phase(_ s: [String: Any]) -> String? { (s["activities"] as? [[String: Any]])?.first?["phase"] as? String }
        d.pass(milliseconds: 4_000)
        let paused = try #require(try d.request(#"{"op":"pause"}"#))
        let frozen = (paused["activities"] as? [[String: Any]])?.first?["remaining_seconds"] as? Double
        #expect(frozen == 6, "4 s of injected time went by")
        d.pass(milliseconds: 60_000)
        let still = try #require(try d.request(#"{"op":"status"}"#))
        #expect(phase(still) == "paused")
        #expect((still["activities"] as? [[String: Any]])?.first?["remaining_seconds"] as? Double == 6, "a paused timer does not run")
        _ = try d.request(#"{"op":"resume"}"#)
        d.pass(milliseconds: 6_000)
        #expect(try d.waitForStatus { phase($0) == "complete" } != nil, "complete once the injected clock reaches the end")
        d.pass(milliseconds: 2_900)
        #expect(phase(try #require(try d.request(#"{"op":"status"}"#))) == "complete", "still showing before 3 s")
        d.pass(milliseconds: 100)
        #expect(try d.waitForStatus { d.activities($0).isEmpty } != nil, "dismissed 3 s after completion")
    }

    @Test("the chime pulses at cycle end and at completion, never while paused (mock chime line, injected clock)")
    func chime() throws {
        // docs/HARDWARE.md [chime]: cycle_end 200 ms is one pulse; the default completion pattern
        // 200,100,200,100,400 is three. Issue 6 §2: never while paused.
        let d = try InProcessDaemon(clock: ManualLoopClock(), config: "[chime]\nline = mock\ncycle_end = 200\n")
        defer { d.stop() }
        func pulses() throws -> Int? {
            (try d.request(#"{"op":"status"}"#)?["status"] as? [String: Any])?["chime_pulses"] as? Int
        }
        #expect(try pulses() == 0, "a configured chime reports its count, silent so far")
        #expect(errorCode(try d.request(#"{"op":"start","seconds":1,"cycles":2,"cycle_end_seconds":1}"#)) == nil)
        #expect(errorCode(try d.request(#"{"op":"pause"}"#)) == nil)
        d.pass(milliseconds: 1_300)
        #expect(try pulses() == 0, "a paused timer reaches no cycle end and never chimes")
        #expect(errorCode(try d.request(#"{"op":"resume"}"#)) == nil)
        d.pass(milliseconds: 1_500)   // cycle 1 ends at +1 s; cycle 2 starts at +2 s
        #expect(try pulses() == 1, "one pulse at the end of cycle 1")
        d.pass(milliseconds: 2_600)   // completion at +3 s, its pulses at +3.0, +3.3 and +3.6 s
        #expect(try pulses() == 4, "three more at completion")
        let plain = try InProcessDaemon()
        defer { plain.stop() }
        #expect(((try plain.request(#"{"op":"status"}"#)?["status"] as? [String: Any])?["chime_pulses"]) == nil, "no chime, no count")
    }

    @Test("start, pause (frozen panel for seconds), resume: on an injected clock, to the millisecond")
    func startPauseResume() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        func status() throws -> [String: Any] { try #require(try d.request(#"{"op":"status"}"#)) }
        func panel(_ s: [String: Any]) -> String? {
            guard let p = (s["status"] as? [String: Any])?["panel"] as? [String: Any] else { return nil }
            return (p["on"] as? Bool == true) ? p["pages"] as? String : nil
        }
        func remaining(_ s: [String: Any]) -> Double? { (s["activities"] as? [[String: Any]])?.first?["remaining_seconds"] as? Double }
        #expect(panel(try status()) == nil, "an idle daemon keeps the panel dark")
        #expect(errorCode(try d.request(#"{"op":"start","seconds":30}"#)) == nil)
        let running1 = try #require(panel(try status()), "a started countdown lights the panel")
        d.pass(milliseconds: 1_200)
        let moved = try d.waitForStatus { panel($0) != running1 }
        #expect(moved != nil, "a running countdown changes the picture every second")

        let paused = try #require(try d.request(#"{"op":"pause"}"#))
        let frozen = try #require(remaining(paused))
        #expect(frozen == 28.8, "1.2 s of injected time went by")
        let paused1 = panel(try status())
        d.pass(milliseconds: 2_100)
        let later = try status()
        #expect(panel(later) == paused1, "paused: the same picture seconds later")
        #expect(remaining(later) == frozen, "paused: the frozen time does not move")

        #expect(errorCode(try d.request(#"{"op":"resume"}"#)) == nil)
        d.pass(milliseconds: 1_200)
        let after = try #require(try d.waitForStatus { panel($0) != paused1 }, "resumed: the picture moves again")
        #expect(remaining(after) == 27.6, "resume continues from the frozen time, exactly")
    }
}
