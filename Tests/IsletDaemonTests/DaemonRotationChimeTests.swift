import Foundation
import IsletCore
import IsletDaemon
import IsletProtocol
import IsletRender
import Testing
import IsletTestSupport

/// Panel rotation and the chime, through the real daemon.
@Suite("isletd end to end: rotation and chime", .offPool, .timeLimit(.minutes(2)))
struct DaemonRotationChimeTests {

    // The chime's pulses over a session run on an injected clock: DaemonLoopTests.chime.

    @Test("SIGHUP: a changed chime line waits for a restart, and the log says so")
    func chimeLineReload() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let conf = dir + "/c.conf"
        try "[chime]\nline = mock\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", conf], dir: dir)
        try "[chime]\nline = none\ncycle_end = 300\n".write(toFile: conf, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        var logged = false
        for _ in 0..<40 where !logged { sleepSeconds(0.05); logged = d.log_().contains("configuration reloaded") }
        #expect(d.log_().contains("chime line changes take effect at restart"), "\(d.log_())")
        #expect(try d.status().status?.chimePulses == 0, "the chime opened at start is still there")
    }

    @Test("SIGHUP: every changed outcome is logged (a broken file, then the fixed one), and an added [web] or [host] waits for a restart")
    func reloadsAreConfirmed() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let conf = dir + "/c.conf"
        try "[display]\nbus = mock\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", conf], dir: dir)
        func reload(_ text: String, until fragment: String) {
            try? text.write(toFile: conf, atomically: true, encoding: .utf8)
            d.signal(SIGHUP)
            waitForLog(d, fragment, seconds: 3)
            #expect(d.log_().contains(fragment), "\(d.log_())")
        }
        reload("[display]\nbus = mock\n[host]\nreport = on\n", until: "host changes take effect at restart")
        reload("[display]\nbus = mock\n[web]\nlisten = 127.0.0.1:1\n", until: "web changes take effect at restart")
        reload("[display]\nbus = mock\nnight = 25:00-01:00\n", until: "configuration not reloaded")
        // Within the rate limit's 10 s: the fixed file is confirmed all the same.
        reload("[display]\nbus = mock\nnight = 03:00-04:00\n", until: "configuration reloaded\n")
        #expect(try d.status().status?.night?.window == "03:00-04:00")
    }

    @Test("GPIO buttons that cannot be opened are not fatal and are tried again (boot before udev)")
    func gpioRetry() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        // A line no machine has, so the lookup fails here whether or not GPIO chips exist.
        try "[buttons]\nbutton.toggle = ISLET_NO_SUCH_LINE\n".write(toFile: dir + "/g.conf", atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", dir + "/g.conf", "--buttons", "gpio"], dir: dir)
        #expect(d.log_().contains("buttons unavailable"))
        #expect(d.ctl("start", "--seconds", "30").status == 0, "the timer runs without buttons")
        waitForLog(d, "trying the GPIO lines again", seconds: 1.4)   // first retry one second after start
        #expect(d.log_().contains("trying the GPIO lines again"), "\(d.log_())")
    }

    @Test("a restart does not chime for a completion that happened while the daemon was down")
    func noLateChime() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try "[chime]\nline = mock\n".write(toFile: dir + "/c.conf", atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", dir + "/c.conf"], dir: dir)
        #expect(d.ctl("start", "--seconds", "1").status == 0)
        let started = Date()   // at the latest
        d.kill9()
        // Down until just after the completion at +1 s; the dismissal is at +4 s (README:
        // natural completion + 3 s), long after the restart.
        sleepSeconds(1.05 - Date().timeIntervalSince(started))
        try d.start()
        // Complete, or already dismissed where the start took longer than the 3 s that follow a
        // completion (seen under qemu-user, make test ARCH=arm64): either way the restart applied it.
        let phase = try d.phase("meditation")
        #expect(phase == .complete || phase == nil, "the restart applied the completion (phase \(String(describing: phase)))")
        #expect(try d.status().status?.chimePulses == 0, "but that moment passed unheard; no late beep")
    }

    @Test("rotation = 180 turns the picture on the glass upside down (a panel mounted the other way)")
    func rotation180() throws {
        // Two daemons show the same frozen state; the emulated panel (which follows the segment
        // remap A0h/A1h and COM scan C0h/C8h, SSD1306 datasheet §10.1.12, §10.1.14) must show
        // the second one's picture as the first one's turned by 180°.
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try "[display]\nrotation = 180\n".write(toFile: dir + "/r.conf", atomically: true, encoding: .utf8)
        let plain = try DaemonUnderTest()
        let turned = try DaemonUnderTest(args: ["--config", dir + "/r.conf"])
        for d in [plain, turned] {
            #expect(d.ctl("start", "--seconds", "90").status == 0)
            #expect(d.ctl("pause").status == 0)
        }
        let a = try #require(try plain.panel())
        let b = try #require(try turned.panel())
        #expect(a.litCount > 0)
        var mismatches = 0
        for y in 0..<a.height { for x in 0..<a.width where a[x, y] != b[a.width - 1 - x, a.height - 1 - y] { mismatches += 1 } }
        #expect(mismatches == 0, "\(mismatches) pixels differ from the picture turned by 180°")
        #expect(a != b, "the turned picture is not the plain one")
    }
}
