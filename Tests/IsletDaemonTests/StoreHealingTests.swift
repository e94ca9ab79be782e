import Foundation
import IsletDaemon
import IsletTestSupport
import Testing
import IsletClock

/// A failed save heals, and one daemon owns a state directory (docs/RELIABILITY.md).
@Suite("the state file heals and has one owner")
struct StoreHealingTests {
    /// The phase of `timer` that the state file on disk holds.
    static func phaseOnDisk(_ path: String, _ timer: String) -> String? {
        guard let d = FileManager.default.contents(atPath: path),
              let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
              let list = o["activities"] as? [[String: Any]],
              let a = list.first(where: { ($0["attributes"] as? [String: Any])?["timer"] as? String == timer }) else { return nil }
        return (a["content"] as? [String: Any])?["phase"] as? String
    }

    static func storeError(_ status: [String: Any]?) -> String? {
        (status?["status"] as? [String: Any])?["store_error"] as? String
    }

    @Test("a pause whose save failed reaches the disk once the disk works again, with no new request")
    func failedSaveIsRetried() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        #expect(errorCode(try d.request(#"{"op":"start","timer":"h","seconds":300}"#)) == nil)
        #expect(Self.phaseOnDisk(d.stateFile, "h") == "running")
        d.disk.failing.withLock { $0 = true }
        let paused = try d.request(#"{"op":"pause","timer":"h"}"#)
        #expect(errorCode(paused) == nil, "the pause stands in memory")
        #expect(Self.storeError(try d.request(#"{"op":"status"}"#))?.contains("fsync") == true, "status says the save failed")
        #expect(Self.phaseOnDisk(d.stateFile, "h") == "running", "the file still holds the state before the pause")
        // The retries go on while the disk fails (1 s, then 2 s, …), none of them changes the file.
        d.pass(milliseconds: 3_500)
        #expect(Self.phaseOnDisk(d.stateFile, "h") == "running")
        let triesWhileFailing = d.disk.fsyncs.withLock { $0 }
        d.disk.failing.withLock { $0 = false }
        // The next retry is at most 4 s away (the third wait); nothing else happens meanwhile.
        d.pass(milliseconds: 4_500)
        let healed = try d.waitForStatus { Self.storeError($0) == nil }
        #expect(healed != nil, "store_error clears once a save succeeds")
        #expect(Self.phaseOnDisk(d.stateFile, "h") == "paused", "the retried save wrote the pause")
        #expect(d.disk.fsyncs.withLock { $0 } > triesWhileFailing, "a save was tried after the disk came back")
    }

    @Test("a second isletd on the same state directory exits 69 naming the directory and the first one's PID")
    func oneDaemonPerStateDirectory() throws {
        let first = try DaemonUnderTest()
        defer { _ = first.stop(); removeTree(first.dir) }
        #expect(first.ctl("start", "--seconds", "300", "--timer", "mine").status == 0)
        let other = makeTempDir()
        defer { removeTree(other) }
        // Bounded: without the lock the second one would simply run (timeout then exits 124).
        let second = runProgram("/usr/bin/timeout", ["5", Repo.isletd, "--bus", "mock", "--socket", other + "/s.sock", "--state-dir", first.stateDir])
        #expect(second.status == 69, "exit \(second.status): \(second.err)")
        #expect(second.err.contains(first.stateDir) && second.err.contains("pid \(first.pid)"), "\(second.err)")
        #expect(!FileManager.default.fileExists(atPath: other + "/s.sock"), "the second one serves nothing")
        #expect(Self.phaseOnDisk(first.stateDir + "/activities.json", "mine") == "running", "the first one's file is untouched")
        // The kernel drops the lock with the process, however it ends: a crash leaves none behind.
        first.kill9()
        let takeover = try DaemonUnderTest(dir: first.dir)
        defer { _ = takeover.stop() }
        #expect(takeover.ctl("status").status == 0, "after a kill -9 the next daemon takes the directory")
        #expect(try takeover.phase("mine") == .running)
    }
}
