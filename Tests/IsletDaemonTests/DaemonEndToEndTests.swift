import Foundation
import IsletCore
import IsletDaemon
import IsletProtocol
import IsletRender
import Testing
import IsletTestSupport

/// The real isletd on the mock bus, driven by the real isletctl; the panel is read back from
/// the emulated panel (the image the bus bytes produced), through `status`. Each test has its
/// own daemon, directory and socket, so they run in parallel. What is about time itself runs on
/// an injected clock: DaemonInjectedTimeTests, and DaemonLoopTests.startPauseResume.
@Suite("isletd end to end", .offPool, .timeLimit(.minutes(2)))
struct DaemonEndToEndTests {

    @Test("reset darkens the panel at once")
    func resetIsImmediate() throws {
        let d = try DaemonUnderTest()
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        #expect(try d.panel() != nil)
        #expect(d.ctl("reset").status == 0)
        let s = try d.status()
        #expect(s.activities?.isEmpty == true)
        #expect(try d.panel() == nil, "reset dismisses immediately: the display is off")
        let again = d.ctl("pause")
        #expect(again.status == 1, "nothing to pause after a reset: the daemon refuses")
        #expect(again.err.contains("no_activity"))
    }

    @Test("a second start replaces the first")
    func secondStartReplaces() throws {
        let d = try DaemonUnderTest()
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        #expect(d.ctl("start", "--seconds", "10").status == 0)
        let s = try d.status()
        #expect(s.activities?.count == 1)
        let remaining = try #require(try d.seconds("meditation"))
        #expect(remaining <= 10 && remaining > 9)
    }

    @Test("two activities show both, minimal")
    func twoActivities() throws {
        let d = try DaemonUnderTest()
        #expect(d.ctl("start", "--timer", "a", "--seconds", "30").status == 0)
        let one = try #require(try d.panel())
        #expect(try d.status().presentation == "compact")
        #expect(d.ctl("start", "--timer", "b", "--stopwatch").status == 0)
        let s = try d.status()
        #expect(s.activities?.map(\.timerID) == ["a", "b"])
        #expect(s.presentation == "minimal")
        let two = try #require(try d.panel())
        #expect(two != one)
        // Without --timer an op acts on the most recently started activity.
        #expect(d.ctl("pause").status == 0)
        #expect(try d.phase("b") == .paused)
        #expect(try d.phase("a") == .running)
        #expect(d.ctl("pause", "--timer", "a").status == 0)
        #expect(try d.phase("a") == .paused)
    }

    @Test("kill -9 and restart resume correctly")
    func crashAndResume() throws {
        let d = try DaemonUnderTest()
        #expect(d.ctl("start", "--timer", "run", "--seconds", "20").status == 0)
        #expect(d.ctl("start", "--timer", "hold", "--seconds", "40").status == 0)
        #expect(d.ctl("pause", "--timer", "hold").status == 0)
        #expect(d.ctl("start", "--timer", "short", "--seconds", "1").status == 0)
        let shortStarted = Date()   // at the latest
        let frozen = try #require(try d.seconds("hold"))
        let before = try #require(try d.reading("run"))
        d.kill9()
        // "short" completes at 1 s and is dismissed at 4 s meanwhile: down until just after.
        sleepSeconds(4.05 - Date().timeIntervalSince(shortStarted))
        try d.start()
        let now = try #require(try d.reading("run"))
        let s = try d.status()
        #expect(s.activity("short") == nil, "a session that completed and was dismissed while down is not shown again")
        #expect(try d.phase("run") == .running)
        #expect(before.lost(toReach: now), "running: remaining continues in real time across the crash (\(before) → \(now))")
        #expect(try d.phase("hold") == .paused)
        #expect(try d.seconds("hold") == frozen, "paused: the frozen time survives")
        #expect(try d.panel() != nil)
    }

    @Test("a wall-clock step during a run leaves the remaining time alone (libfaketime)")
    func wallClockStep() throws {
        guard let lib = faketimeLibrary() else {
            Issue.record("libfaketime is not installed (Debian package faketime)")
            return
        }
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let stamp = dir + "/faketime"
        try "+0\n".write(toFile: stamp, atomically: true, encoding: .utf8)
        // CLOCK_REALTIME follows the file; the monotonic clocks stay real.
        let d = try DaemonUnderTest(env: ["LD_PRELOAD": lib, "FAKETIME_TIMESTAMP_FILE": stamp,
                                          "FAKETIME_NO_CACHE": "1", "DONT_FAKE_MONOTONIC": "1"], dir: dir)
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        let r0 = try #require(try d.reading("meditation"))
        try "+3600\n".write(toFile: stamp, atomically: true, encoding: .utf8)   // the clock jumps an hour ahead
        sleepSeconds(1.0)
        let r1 = try #require(try d.reading("meditation"))
        #expect(try d.phase("meditation") == .running, "an hour's step does not complete a 30 s countdown")
        #expect(r0.lost(toReach: r1), "remaining follows real time only (\(r0) → \(r1))")
        try "-1800\n".write(toFile: stamp, atomically: true, encoding: .utf8)   // and back behind
        sleepSeconds(0.5)
        let r2 = try #require(try d.reading("meditation"))
        #expect(r0.lost(toReach: r2), "a backward step does not add time (\(r0) → \(r2))")
    }

    @Test("an unplugged and replugged panel: the timer keeps running, the image comes back")
    func unplugReplug() throws {
        // The mock bus fails from 1 s to 3 s after start-up.
        let d = try DaemonUnderTest(args: ["--mock-unplug", "1:2"])
        let t0 = Date()
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        let started = TimedReading(value: 30, from: t0, to: Date())
        /// Polls status until `done` holds or `t0 + until` s passes; the last status seen.
        func poll(until: Double, _ done: (DaemonStatus) -> Bool) throws -> DaemonStatus {
            while true {
                let s = try #require(try d.status().status)
                if done(s) || Date().timeIntervalSince(t0) >= until { return s }
                sleepSeconds(0.05)
            }
        }
        // Absent within the window (it ends 3 s after start-up, before t0 + 3).
        let s = try poll(until: 2.9) { !$0.panelPresent }
        #expect(s.panelPresent == false, "the unplugged panel is reported absent")
        #expect(s.busErrors >= 1)
        #expect(try d.phase("meditation") == .running, "the timer keeps running without a panel")
        let back = try poll(until: 5.5) { $0.panelPresent }
        #expect(back.panelPresent, "the panel answers again after the fault window")
        let image = try #require(try d.panel(), "and shows the timer again")
        #expect(image.litCount > 0)
        let remaining = try #require(try d.reading("meditation"))
        #expect(started.lost(toReach: remaining), "the countdown kept real time through the fault (\(remaining))")
        let log = d.log_()
        let warnings = log.components(separatedBy: "panel not answering").count - 1
        #expect(warnings == 1, "the problem is logged once, not per retry (\(warnings)):\n\(log)")
    }

    @Test("garbage and oversized lines get errors; the connection survives garbage only")
    func protocolAbuse() throws {
        let d = try DaemonUnderTest()
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: d.socket)[.posixPermissions] as? Int)
        #expect(mode == 0o660, "the socket is mode 0660")
        let c = try RawClient(path: d.socket)
        c.send("this is not json\n")
        #expect(errorCode(c.readJSON()) == "invalid_json")
        c.send("[1,2]\n")
        #expect(errorCode(c.readJSON()) == "invalid_request")
        c.send("{\"op\":\"launch\"}\n")
        #expect(errorCode(c.readJSON()) == "unknown_op")
        c.send("{\"op\":\"pause\",\"force\":true}\n")
        #expect(errorCode(c.readJSON()) == "unknown_field")
        c.send("{\"op\":\"start\",\"seconds\":\"ten\"}\n")
        #expect(errorCode(c.readJSON()) == "invalid_field")
        c.send("{\"op\":\"resume\"}\n")
        #expect(errorCode(c.readJSON()) == "no_activity", "an illegal transition is a JSON error")
        c.send("{\"op\":\"status\"}\n")
        #expect(c.readJSON()?["ok"] as? Bool == true, "the connection is still usable")

        let big = try RawClient(path: d.socket)
        big.send("{\"op\":\"status\",\"timer\":\"" + String(repeating: "x", count: 17 * 1024) + "\"}\n")
        #expect(errorCode(big.readJSON()) == "line_too_long")
        #expect(big.readLine() == nil, "the connection of an oversized line is closed")
        #expect(d.ctl("status").status == 0, "others are unaffected")
    }

    @Test("isletctl exit statuses: 0 done, 1 refused, 64 usage, 69 no daemon")
    func exitStatuses() throws {
        let d = try DaemonUnderTest()
        #expect(d.ctl("start", "--minutes", "1").status == 0)
        // At once, while its first second is shown (on a busy machine the calls below take a while).
        #expect(d.ctl("status", "--timer", "meditation").out.contains("meditation: running 1:00"))
        let refused = d.ctl("resume")
        #expect(refused.status == 1)
        #expect(refused.err.contains("already_running"))
        #expect(d.ctl("start", "--minutes", "1", "--seconds", "3").status == 64)
        #expect(d.ctl("end", "--dismissal", "later").status == 64)
        #expect(d.ctl("frobnicate").status == 64)
        #expect(d.ctl("end", "--dismissal", "after:2").status == 0)
        #expect(try d.phase("meditation") == .complete, "ended: shown complete until its dismissal")
        let nobody = runProgram(Repo.isletctl, ["--socket", d.dir + "/nobody.sock", "status"])
        #expect(nobody.status == 69)
        #expect(nobody.err.contains("nobody.sock"))
    }

    @Test("a silent or non-reading client never blocks the others")
    func silentClient() throws {
        let d = try DaemonUnderTest()
        let silent = try RawClient(path: d.socket)
        silent.send("{\"op\":\"sta")             // half a line, then nothing
        let watcher = try RawClient(path: d.socket)
        watcher.send("{\"op\":\"watch\"}\n")     // subscribes and never reads
        for i in 0..<20 {
            let t = Date()
            #expect(d.ctl(i % 2 == 0 ? "toggle" : "status").status == 0)
            #expect(Date().timeIntervalSince(t) < 2.0)
        }
        #expect(try d.status().status?.clients ?? 0 >= 2)
    }

    @Test("a client that floods requests without reading is held back, the others are served, and it loses no answer")
    func hog() throws {
        let d = try DaemonUnderTest()
        let hog = try RawClient(path: d.socket)
        // Each status answer carries the panel image (~3 KB): 600 of them (1.8 MB) far exceed
        // what the socket buffer holds (about 180 KB here). The daemon stops taking the hog's
        // requests while 64 KiB of its answers are unread (backpressure) instead of buffering
        // them all or dropping it.
        let n = 600
        hog.sendInBackground(Array(String(repeating: "{\"op\":\"status\"}\n", count: n).utf8))
        sleepSeconds(0.3)
        let t = Date()
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        #expect(Date().timeIntervalSince(t) < 2.0, "served while the hog's answers pile up")
        #expect(try d.status().status?.clients == 2, "the hog is held back, not dropped")
        var answered = 0
        while answered < n, let o = hog.readJSON() {
            if o["ok"] as? Bool == true { answered += 1 }
        }
        #expect(answered == n, "once it reads, the hog gets every answer: \(answered) of \(n)")
    }

    @Test("watch streams a change per transition; exit 69 when the daemon goes away")
    func watchStream() throws {
        let d = try DaemonUnderTest()
        let w = Process()
        w.executableURL = URL(fileURLWithPath: Repo.isletctl)
        w.arguments = ["--socket", d.socket, "watch", "--json"]
        let out = Pipe()
        w.standardOutput = out
        w.standardError = FileHandle.nullDevice
        try w.run()
        // Subscribed once its snapshot is out (the changes below must come after it).
        var head = Data()
        while !head.contains(10) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            head += chunk
        }
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        #expect(d.ctl("pause").status == 0)
        // The changes are in the watcher's socket already; the daemon's exit ends the stream after them.
        _ = d.stop()
        w.waitUntilExit()
        #expect(w.terminationStatus == 69)
        let lines = String(decoding: head + out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.first?["event"] as? String == "snapshot")
        let phases = events.compactMap { (($0["activities"] as? [[String: Any]])?.first?["phase"]) as? String }
        #expect(phases == ["running", "paused"], "one object per change: \(phases)")
    }

    @Test("paused, the kernel sees no wake-up of any isletd thread")
    func pausedSleepsInTheKernel() throws {
        // The loop's own wake-ups, running and paused, are counted on an injected clock
        // (DaemonInjectedTimeTests.wakeups). This is the view from outside, as the kernel counts
        // them: every thread of the real process on the real clock, no client talking.
        let d = try DaemonUnderTest()
        #expect(d.ctl("start", "--seconds", "60").status == 0)
        #expect(d.ctl("pause").status == 0)
        // The last client's hangup is taken within moments: wait for 100 ms without a switch.
        var k0 = contextSwitches(of: d.pid)
        for _ in 0..<50 {
            sleepSeconds(0.1)
            let k = contextSwitches(of: d.pid)
            if k == k0 { break }
            k0 = k
        }
        sleepSeconds(3.0)
        let k1 = contextSwitches(of: d.pid)
        let woke = threadWakeups(from: k0, to: k1)
        #expect(!k0.isEmpty && woke <= 1, "paused: the kernel saw \(woke) context switches in 3 s across \(k1.count) threads")
    }

    @Test("SIGHUP reloads; a bad config keeps the old one")
    func reload() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let conf = dir + "/isletd.conf"
        try "[session]\nminutes = 0.5\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", conf], dir: dir)
        #expect(d.ctl("toggle").status == 0)
        #expect(try #require(try d.seconds("meditation")) > 29)
        #expect(d.ctl("reset").status == 0)
        try "[session]\nminutes = lots\n".write(toFile: conf, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        waitForLog(d, "configuration not reloaded")
        #expect(d.process?.isRunning == true, "a bad config on reload is not fatal")
        #expect(d.log_().contains("\(conf):2"), "the error names file:line")
        #expect(d.ctl("toggle").status == 0)
        let old = try #require(try d.seconds("meditation"))
        #expect(old > 29 && old <= 30, "the old session stays in force")
        #expect(d.ctl("reset").status == 0)
        try "[session]\nminutes = 2\n".write(toFile: conf, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        waitForLog(d, "configuration reloaded")
        #expect(d.ctl("toggle").status == 0)
        let new = try #require(try d.seconds("meditation"))
        #expect(new > 119 && new <= 120, "the new session length applies")
        #expect(d.stop() == 0, "SIGTERM shuts down cleanly")
        #expect(!FileManager.default.fileExists(atPath: d.socket), "and removes its socket")
    }
}

/// Voluntary plus involuntary context switches of each thread of `pid` (/proc/PID/task/*/status).
func contextSwitches(of pid: Int32) -> [String: Int] {
    let dir = "/proc/\(pid)/task"
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [:] }
    var counts: [String: Int] = [:]
    for t in tasks {
        guard let text = try? String(contentsOfFile: "\(dir)/\(t)/status", encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") where line.contains("ctxt_switches:") {
            counts[t, default: 0] += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }
    return counts
}

/// Wake-ups between two samples: per thread, so a thread that exits in between cannot hide
/// another's; a thread born in between counts in full.
func threadWakeups(from before: [String: Int], to after: [String: Int]) -> Int {
    after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
}
