import Foundation
import IsletCore
import IsletDaemon
import Testing
import IsletTestSupport

/// Issue 13 §1, the restart rule (docs/DAEMON.md, "Time"): in the same boot a restart measures
/// the time since the save with CLOCK_BOOTTIME, whatever the wall clock says; after a reboot (a
/// different boot id in the state file) the wall clock is used, and while it is behind the save
/// the activities show stale and keep their saved values; a countdown never shows more than its
/// cycle. The wall clock is offset with libfaketime (the monotonic clocks stay real).
@Suite("restarts with a wrong wall clock (libfaketime)", .offPool, .timeLimit(.minutes(2)))
struct ClockRestartTests {
    func faketime(_ offset: String) throws -> [String: String] {
        let lib = try #require(faketimeLibrary(), "libfaketime is not installed (Debian package faketime)")
        return ["LD_PRELOAD": lib, "FAKETIME": offset, "DONT_FAKE_MONOTONIC": "1"]
    }

    /// Rewrites the state file's boot id, as if the machine had rebooted since the save.
    func simulateReboot(_ d: DaemonUnderTest) throws {
        let path = d.stateDir + "/activities.json"
        var o = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(o["boot_id"] as? String != nil, "the save records the boot id")
        #expect(o["boot_ms"] as? Int != nil, "the save records CLOCK_BOOTTIME")
        o["boot_id"] = "00000000-0000-4000-8000-000000000000"
        try JSONSerialization.data(withJSONObject: o).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: ["-3600", "+3600", "-10", "+10"])
    func aRestartInTheSameBootKeepsTheTimeWhateverTheWallClockSays(_ offset: String) throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let first = try runningAndHeld(dir: dir)
        let frozen = try #require(try first.seconds("hold"))
        let before = try #require(try first.seconds("run"))
        let stoppedAt = Date()
        #expect(first.stop() == 0)
        let d = try DaemonUnderTest(env: try faketime(offset), dir: dir)
        let s = try d.status()
        #expect(s.status?.clockBehind == false, "the same boot: the boot clock knows how long it was")
        #expect(s.activity("run")?.content.isStale == false)
        let now = try #require(try d.seconds("run"))
        let expected = before - Date().timeIntervalSince(stoppedAt)
        #expect(abs(expected - now) < 1, "\(offset): remaining \(now), expected \(expected)")
        #expect(try d.seconds("hold") == frozen, "paused: exactly the frozen time")
        // A pause and a resume now add or lose nothing (a 10 s offset used to leave it 10 s long).
        #expect(d.ctl("pause", "--timer", "run").status == 0)
        let paused = try #require(try d.seconds("run"))
        #expect(abs(paused - (before - Date().timeIntervalSince(stoppedAt))) < 1, "\(offset): paused at \(paused)")
        #expect(d.ctl("resume", "--timer", "run").status == 0)
        #expect(try #require(try d.seconds("run")) <= paused)
    }

    @Test func afterARebootAClockBehindTheSaveShowsStaleAndKeepsTheSavedValues() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let first = try runningAndHeld(dir: dir)
        let frozen = try #require(try first.seconds("hold"))
        #expect(first.stop() == 0)
        try simulateReboot(first)
        // The rebooted Pi's clock is an hour behind the save (no real-time clock, no NTP yet).
        let d = try DaemonUnderTest(env: try faketime("-3600"), dir: dir)
        let s = try d.status()
        #expect(s.status?.clockBehind == true)
        #expect(s.activity("run")?.content.isStale == true, "shown stale while the clock is behind")
        let shown = try #require(try d.seconds("run"))
        #expect(shown <= 600, "a countdown never shows more than its cycle (showed \(shown))")
        sleepSeconds(1.2)
        #expect(try d.seconds("run") == shown, "the saved value stands until the clock passes the save")
        #expect(try d.seconds("hold") == frozen)
        // A pause freezes the saved value, never one computed from the wrong clock.
        #expect(d.ctl("pause", "--timer", "run").status == 0)
        let paused = try #require(try d.seconds("run"))
        #expect(abs(paused - shown) < 0.01, "paused at \(paused), saved \(shown)")
        #expect(d.stop() == 0)
        // And that frozen value survives a later restart with a right clock.
        let later = try DaemonUnderTest(dir: dir)
        #expect(try later.seconds("run") == paused)
        #expect(try later.phase("run") == .paused)
    }

    @Test func afterARebootAClockAheadCountsTheTimeAsPassed() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let first = try DaemonUnderTest(dir: dir)
        #expect(first.ctl("start", "--timer", "run", "--seconds", "600").status == 0)
        let before = try #require(try first.seconds("run"))
        #expect(first.stop() == 0)
        try simulateReboot(first)
        // Two minutes later by the wall clock: the only clock a reboot leaves.
        let d = try DaemonUnderTest(env: try faketime("+120"), dir: dir)
        let now = try #require(try d.seconds("run"))
        // The stop, the reboot and the start lie between the two readings: 2.09 s once under
        // qemu-user (make test ARCH=arm64). 10 s still tells 120 s counted from none.
        #expect(abs((before - 120) - now) < 10, "remaining \(now), expected about \(before - 120)")
        #expect(try d.status().status?.clockBehind == false)
    }
}

/// A daemon in `dir` with two timers: "run" counting 600 s and "hold" paused at 300 s.
private func runningAndHeld(dir: String) throws -> DaemonUnderTest {
    let d = try DaemonUnderTest(dir: dir)
    #expect(d.ctl("start", "--timer", "run", "--seconds", "600").status == 0)
    #expect(d.ctl("start", "--timer", "hold", "--seconds", "300").status == 0)
    #expect(d.ctl("pause", "--timer", "hold").status == 0)
    return d
}
