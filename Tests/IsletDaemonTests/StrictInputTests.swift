import IsletSettings
import IsletNetwork
import IsletWeb
import Foundation
import IsletDaemon
import Testing
import IsletTestSupport
import IsletConfig

/// Issue 13 §3: inputs a person or a program might send that used to be read loosely. The
/// protocol's JSON is RFC 8259 with no duplicate keys or trailing commas; the config parser takes
/// a BOM and CRLF, and names a bad quote, a bad byte and a cross-key problem by line.
@Suite(.offPool) struct ConfigParserTests {
    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "isletd.conf").validated(origin: "isletd.conf")
    }

    func failure(_ text: String) -> ConfigError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func aByteOrderMarkAndCRLFLineEndsAreRead() throws {
        let c = try parse("\u{FEFF}[display]\r\nbus = mock\r\ncontrast = 200\r\n\r\n[session]\r\nminutes = 15\r\n")
        #expect(c.contrast == 200 && c.session.minutes == 15 && c.bus == .mock)
        // Lines are still counted right under CRLF.
        #expect(failure("[display]\r\nbus = mock\r\ncontrast = 999\r\n")?.origin == "isletd.conf:3")
    }

    @Test func quotesWrapAWholeValue() throws {
        #expect(try parse("[session]\ntitle = \"Evening # sit\"\n").session.title == "Evening # sit")
        let unterminated = failure("[session]\ntitle = \"Evening sit\n")
        #expect(unterminated?.origin == "isletd.conf:2" && unterminated?.message.contains("no closing") == true, "\(String(describing: unterminated))")
        let after = failure("[session]\ntitle = \"Evening\" sit\n")
        #expect(after?.origin == "isletd.conf:2" && after?.message.contains("whole value") == true, "\(String(describing: after))")
    }

    @Test func crossKeyProblemsNameTheirLine() {
        // long_press_ms must exceed debounce_ms: the error points at the line that set it.
        let e = failure("[display]\nbus = mock\n[buttons]\ndebounce_ms = 50\nlong_press_ms = 40\n")
        #expect(e?.origin == "isletd.conf:5", "\(String(describing: e))")
        let cap = failure("[display]\nbus = /dev/i2c-1\ncapture = /tmp/x\n")
        #expect(cap?.origin == "isletd.conf:3", "\(String(describing: cap))")
    }

    /// Issue 13 §3: a group that does not exist passed --check-config and then stopped the daemon
    /// with 69 at the socket, so systemd restarted it forever. It is a config error (78) with its line.
    @Test func anUnknownSocketGroupIsAConfigErrorWithItsLine() throws {
        let e = failure("[daemon]\nsocket_group = nosuchgroup-islet\n[display]\nbus = mock\n")
        #expect(e?.origin == "isletd.conf:2" && e?.message.contains("no such group") == true, "\(String(describing: e))")
        #expect(try parse("[daemon]\nsocket_group = root\n[display]\nbus = mock\n").socketGroup == "root")
    }

    @Test func aFileThatIsNotUTF8NamesTheLine() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/isletd.conf"
        var bytes = Array("[display]\nbus = mock\n[session]\ntitle = ".utf8)
        bytes += [0xC3, 0x28, 0x0A]
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let r = runProgram(Repo.isletd, ["--config", path, "--check-config"])
        #expect(r.status == 78)
        #expect(r.err.contains("\(path):4") && r.err.contains("not UTF-8"), "\(r.err)")
    }

    /// Issue 13 §3: `--mock-unplug 1:1e308` trapped ("Double value cannot be converted to Int64").
    @Test(arguments: ["1:1e308", "1e308:1", "nan:1", "1:inf", "-1:2", "1:0", "86401:1"])
    func hugeOrBadMockUnplugIsAnErrorNotATrap(_ v: String) {
        let r = runProgram(Repo.isletd, ["--bus", "mock", "--mock-unplug", v, "--check-config"])
        #expect(r.status == 64 || r.status == 78, "status \(r.status): \(r.err)")
        #expect(r.err.contains("--mock-unplug"), "\(r.err)")
    }
}
