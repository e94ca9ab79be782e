import Foundation
import IsletDaemon
import Testing
import IsletTestSupport
import IsletConfig

/// The config as isletd reads it: its exit status and the repository's example file.
@Suite("isletd and its config file", .offPool)
struct ConfigCheckTests {
    @Test("isletd exits 78 on a bad config line, naming file:line; --check-config validates")
    func exitStatus() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let bad = dir + "/bad.conf"
        try "[display]\nbus = mock\nsize = 128\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let r = runProgram(Repo.isletd, ["--config", bad, "--check-config"])
        #expect(r.status == 78)
        #expect(r.err.contains("\(bad):3"))
        #expect(r.err.hasPrefix("<3>"), "errors carry the journald priority prefix")
        let r2 = runProgram(Repo.isletd, ["--config", bad, "--socket", dir + "/s", "--state-dir", dir + "/st"])
        #expect(r2.status == 78, "the daemon itself refuses to start with EX_CONFIG")
        let good = dir + "/good.conf"
        try "[display]\nbus = mock\n".write(toFile: good, atomically: true, encoding: .utf8)
        #expect(runProgram(Repo.isletd, ["--config", good, "--check-config"]).status == 0)
        #expect(runProgram(Repo.isletd, ["--config", dir + "/missing.conf", "--check-config"]).status == 78,
                "--config makes a missing file an error")
    }

    @Test("the example config in the repository is valid, and on a Pi it reads the buttons")
    func example() throws {
        let r = runProgram(Repo.isletd, ["--config", Repo.root + "/isletd.conf.example", "--check-config"])
        #expect(r.status == 0, "\(r.err)")
        // `make install` puts this file in /etc/islet/; README "On a Raspberry Pi" step 4 says
        // "or press the toggle button", which needs buttons = gpio (the built-in default is none).
        let text = try String(contentsOfFile: Repo.root + "/isletd.conf.example", encoding: .utf8)
        let c = try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "isletd.conf.example")
        #expect(c.buttons == .gpio)
        #expect(c.bus == .device("/dev/i2c-1") && c.address == 0x3C, "the panel of docs/HARDWARE.md §2")
    }
}
