import Foundation
import Testing
import IsletTestSupport

/// The shipped unit, checked by systemd's own tools and for what the issue requires.
@Suite("systemd unit", .offPool)
struct SystemdUnitTests {
    var unitPath: String { Repo.root + "/systemd/isletd.service" }

    func unit() throws -> [(key: String, value: String)] {
        try String(contentsOfFile: unitPath, encoding: .utf8).split(separator: "\n").compactMap { line in
            let l = line.trimmingCharacters(in: .whitespaces)
            guard !l.hasPrefix("#"), let eq = l.firstIndex(of: "=") else { return nil }
            return (String(l[..<eq]), String(l[l.index(after: eq)...]))
        }
    }

    func values(_ key: String) throws -> [String] { try unit().filter { $0.key == key }.map(\.value) }

    /// A copy whose ExecStart points at the built binary, as `make install` rewrites PREFIX.
    func stagedUnit() throws -> String {
        let dir = makeTempDir()   // removed by the caller (removeTree of the path's directory)
        let text = try String(contentsOfFile: unitPath, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/", with: Repo.binaries + "/")
        let path = dir + "/isletd.service"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("systemd-analyze verify accepts it")
    func verify() throws {
        let unit = try stagedUnit()
        defer { removeTree(String(unit.dropLast("/isletd.service".count))) }
        let r = runProgram("/usr/bin/systemd-analyze", ["verify", unit])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(!r.err.contains("isletd.service:"), "no warnings about the unit: \(r.err)")
    }

    @Test("systemd-analyze security rates its exposure at 2.0 or below")
    func exposure() throws {
        let unit = try stagedUnit()
        defer { removeTree(String(unit.dropLast("/isletd.service".count))) }
        let r = runProgram("/usr/bin/systemd-analyze", ["security", "--offline=yes", unit])
        let marker = "Overall exposure level for isletd.service: "
        let line = try #require(r.out.split(separator: "\n").first { $0.contains(marker) }, "\(r.out)\(r.err)")
        let number = line.components(separatedBy: marker)[1].split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(number)
        #expect(exposure <= 2.0, "exposure \(exposure)")
    }

    @Test("notify type, restart policy, clock ordering, runtime and state directories")
    func service() throws {
        #expect(try values("Type") == ["notify"])
        #expect(try values("RestartPreventExitStatus") == ["78"], "a config error (EX_CONFIG) does not restart")
        #expect(try values("Restart") == ["on-failure"])
        #expect(try values("After").contains("time-sync.target"))
        #expect(try values("Wants").contains("time-sync.target"))
        #expect(try values("RuntimeDirectory") == ["islet"])
        #expect(try values("StateDirectory") == ["islet"])
        #expect(try !values("WatchdogSec").isEmpty)
        #expect(try values("User") == ["islet"], "not root")
    }

    @Test("devices: closed policy, the I2C and GPIO character devices only, via their groups")
    func devices() throws {
        #expect(try values("DevicePolicy") == ["closed"])
        let allowed = try Set(values("DeviceAllow").map { $0.split(separator: " ").first.map(String.init) ?? $0 })
        #expect(allowed == ["char-i2c", "char-gpiochip"])
        let groups = try Set(values("SupplementaryGroups").flatMap { $0.split(separator: " ").map(String.init) })
        #expect(groups == ["i2c", "gpio"])
        #expect(try values("PrivateDevices").isEmpty, "PrivateDevices would hide /dev/i2c-N and /dev/gpiochipN")
    }
}
