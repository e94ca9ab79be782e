import Foundation
import IsletCore
import IsletDaemon
import Testing
import IsletTestSupport

/// The real isletd against state files that crashed it at every start (a crash loop under
/// systemd's `Restart=`), and against a start-up that crashes while loading (the test seam).
@Suite("isletd survives its state file", .timeLimit(.minutes(1)))
struct CrashOnLoadTests {
    func stateDir() -> String {
        let dir = makeTempDir()
        try? FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        return dir
    }

    func files(_ dir: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir + "/state")) ?? []).sorted() }

    @Test("each file that trapped the host clock is moved aside and the daemon serves", arguments: Untrusted.traps.indices)
    func trappingFilesNoLongerCrashTheDaemon(_ i: Int) throws {
        let dir = stateDir()
        defer { removeTree(dir) }
        try Untrusted.traps[i].text.write(toFile: dir + "/state/activities.json", atomically: false, encoding: .utf8)
        let d = try DaemonUnderTest(dir: dir)   // throws if isletd exits (it trapped here before)
        #expect(try d.status().activities?.isEmpty ?? true)
        #expect(d.log_().contains("moved aside") && d.log_().contains(Untrusted.traps[i].field), "\(d.log_())")
        #expect(files(dir).contains { $0.hasPrefix("activities.json.bad-") })
        #expect(d.stop() == 0)
    }

    @Test("a start-up that crashes while loading leaves a mark; the next start moves the file aside and serves")
    func aCrashDuringLoadIsNotRepeated() throws {
        let dir = stateDir()
        defer { removeTree(dir) }
        try Untrusted.file([Untrusted.paused()]).write(toFile: dir + "/state/activities.json", atomically: false, encoding: .utf8)
        let args = ["--bus", "mock", "--socket", dir + "/islet.sock", "--state-dir", dir + "/state"]
        // Bounded: a build without the seam would serve instead of crashing.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repo.isletd)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["ISLET_TEST_CRASH_ON_LOAD"] = "1"
        env["SWIFT_BACKTRACE"] = "enable=no"
        p.environment = env
        p.standardError = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        for _ in 0..<400 where p.isRunning { sleepSeconds(0.025) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGABRT,
                "the seam aborts the start-up (status \(p.terminationStatus))")
        #expect(files(dir).contains("activities.json.loading"), "\(files(dir))")
        #expect(files(dir).contains("activities.json"), "the crash itself moves nothing")

        let d = try DaemonUnderTest(dir: dir)
        #expect(d.log_().contains("activities.json.loading") && d.log_().contains("moved aside"), "\(d.log_())")
        #expect(try d.status().activities?.isEmpty ?? true)
        #expect(files(dir).contains { $0.hasPrefix("activities.json.bad-") } && !files(dir).contains("activities.json.loading"), "\(files(dir))")
        _ = d.ctl("start", "--minutes", "5")
        #expect(d.stop() == 0)

        // A start that got through keeps its state: a third start loads it as usual.
        let again = try DaemonUnderTest(dir: dir)
        #expect(try again.phase("meditation") == .running, "\(again.log_())")
        #expect(!again.log_().contains("moved aside"), "\(again.log_())")
        #expect(again.stop() == 0)
    }

    @Test("the seam takes exactly 1, and a daemon that serves leaves no mark")
    func theMarkGoesOnceTheFirstFrameIsDrawn() throws {
        let dir = stateDir()
        defer { removeTree(dir) }
        try Untrusted.file([Untrusted.paused()]).write(toFile: dir + "/state/activities.json", atomically: false, encoding: .utf8)
        let d = try DaemonUnderTest(env: ["ISLET_TEST_CRASH_ON_LOAD": "yes"], dir: dir)
        #expect(!files(dir).contains("activities.json.loading"), "\(files(dir))")
        #expect(try d.phase("meditation") == .paused)
        #expect(d.stop() == 0)
    }
}
