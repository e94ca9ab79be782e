import Testing
import Foundation
import IsletSystem

/// sysinfo(2)'s figures against the kernel's own text of them in /proc (readable in tests).
@Suite("the machine's uptime and load")
struct SystemInfoTests {
    @Test("uptime and the three load averages agree with /proc/uptime and /proc/loadavg")
    func agreesWithProc() throws {
        let before = try Self.proc("/proc/uptime")
        let load = try SystemInfo.load()
        let after = try Self.proc("/proc/uptime")
        let loadavg = try Self.proc("/proc/loadavg")
        // Whole seconds, rounded down as uptime(1) does; /proc has hundredths, read on either side.
        #expect(Double(load.uptimeSeconds) >= before[0].rounded(.down) && Double(load.uptimeSeconds) <= after[0].rounded(.down))
        #expect(load.averages.count == 3)
        // /proc/loadavg prints two decimals of the same fixed-point values; they may move between the reads.
        for (mine, theirs) in zip(load.averages, loadavg.prefix(3)) { #expect(abs(mine - theirs) < 0.5, "\(mine) vs \(theirs)") }
    }

    static func proc(_ path: String) throws -> [Double] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    }
}
