import Foundation
import Testing
import IsletTestSupport

/// The daemon at its descriptor limit (docs/RELIABILITY.md): accept fails with EMFILE while
/// connections keep waiting; the loop must neither spin nor go silent, and a person still gets in.
@Suite("out of file descriptors", .serialized)
struct DescriptorLimitTests {
    /// CPU time (user + system) the process has used, in clock ticks.
    static func cpuTicks(_ pid: Int32) -> Int? {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = s.lastIndex(of: ")") else { return nil }
        let fields = s[s.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, man 5 proc).
        guard fields.count > 13, let u = Int(fields[11]), let k = Int(fields[12]) else { return nil }
        return u + k
    }

    @Test("with its limit at 40 and 60 clients held, the daemon idles, says why once, and isletctl status still answers")
    func survivesEMFILE() throws {
        let d = try DaemonUnderTest()
        defer { _ = d.stop(); removeTree(d.dir) }
        let limited = runProgram("/usr/bin/prlimit", ["--pid", "\(d.pid)", "--nofile=40:40"])
        try #require(limited.status == 0, "prlimit: \(limited.err)")
        var held: [RawClient] = []
        for _ in 0..<60 { held.append(try RawClient(path: d.socket)) }
        defer { held.removeAll() }
        sleepSeconds(0.3)
        let before = try #require(Self.cpuTicks(d.pid))
        sleepSeconds(2)
        let after = try #require(Self.cpuTicks(d.pid))
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        // A spinning loop burns ~2 s of CPU in 2 s; an idle one a few ticks at most.
        #expect(Double(after - before) / ticksPerSecond < 0.4, "\(after - before) ticks of CPU in 2 s")
        let status = d.ctl("status")
        #expect(status.status == 0, "a person's status gets through: \(status.err)")
        let log = d.log_()
        let said = log.components(separatedBy: "cannot accept clients").count - 1
        #expect(said == 1, "the episode is logged once, not per attempt: \(said) times\n\(log)")
        #expect(log.contains("Too many open files") || log.contains("EMFILE"), "the errno is named: \(log)")
    }
}

/// Rate limits never hide a new problem (docs/RELIABILITY.md).
@Suite("rate-limited logs")
struct RateLimitedLogTests {
    @Test("a reload whose error differs from the last one logged is logged inside the rate limit; the same one is not")
    func distinctReloadErrors() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let conf = dir + "/isletd.conf"
        try "[session]\nminutes = 1\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", conf], dir: dir)
        defer { _ = d.stop() }
        func reload(_ text: String, expecting: String) throws {
            try text.write(toFile: conf, atomically: true, encoding: .utf8)
            d.signal(SIGHUP)
            waitForLog(d, expecting, seconds: 3)
        }
        try reload("[session]\nminutes = lots\n", expecting: "minutes")
        try reload("[session]\nminutes = lots\n", expecting: "similar")   // the same error: suppressed
        sleepSeconds(0.3)
        try reload("[display]\nsize = 7x7\n", expecting: "display.size")
        let log = d.log_()
        #expect(log.components(separatedBy: "configuration not reloaded").count - 1 == 2,
                "the first error and the different second one, not the repeat: \(log)")
        #expect(log.contains("display.size"), "the second, different error is in the log within 10 s of the first")
    }
}
