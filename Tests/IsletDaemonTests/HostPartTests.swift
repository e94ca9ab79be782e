import Testing
import Foundation
import IsletConfig
import IsletSettings
@testable import IsletDaemon

/// The `[host]` part, through the config file and `status`, against the kernel's own figures.
@Suite("the [host] part")
struct HostPartTests {
    @Test("report = on puts the machine's uptime and load in status, as /proc has them")
    func reportsUptimeAndLoad() throws {
        let d = try InProcessDaemon(config: "[host]\nreport = on\n")
        defer { d.stop() }
        let before = try Self.proc("/proc/uptime")[0]
        let host = try #require(try d.request(#"{"op":"status"}"#)?["status"] as? [String: Any])["host"] as? [String: Any]
        let after = try Self.proc("/proc/uptime")[0]
        let up = try #require(host?["uptime_seconds"] as? Int)
        #expect(Double(up) >= before.rounded(.down) && Double(up) <= after.rounded(.down))
        let load = try #require(host?["load"] as? [Double])
        let proc = try Self.proc("/proc/loadavg")
        #expect(load.count == 3)
        for (mine, theirs) in zip(load, proc) { #expect(abs(mine - theirs) < 0.5) }
    }

    @Test("--check-config names it; a reload that turns it on or off says it waits for a restart")
    func checkAndReload() throws {
        let on = try DaemonConfig(parts: PartRegistry.settings).parsing("[host]\nreport = on\n", file: "h.conf")
        #expect(on.parts.present.compactMap(\.checkSummary).contains("host figures in status"))
        let off = try DaemonConfig(parts: PartRegistry.settings).parsing("", file: "h.conf")
        let (kept, waiting) = off.reloaded(with: on)
        #expect(waiting.contains("host") && kept.parts[HostSettings.self] == nil)
    }

    @Test("without [host], or with report = off, there is no part and no block")
    func offByDefault() throws {
        for config in ["", "[host]\nreport = off\n"] {
            let d = try InProcessDaemon(config: config)
            defer { d.stop() }
            #expect(!d.objects().contains { $0.type == "HostReport" })
            #expect((try d.request(#"{"op":"status"}"#)?["status"] as? [String: Any])?["host"] == nil)
        }
    }

    @Test("a bad [host] line names its file:line and what is accepted")
    func badValues() {
        for (text, fragment) in [("[host]\nreport = maybe\n", "on or off"), ("[host]\nreports = on\n", "unknown key \"reports\" in [host]")] {
            #expect(performing: { try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "h.conf") },
                    throws: { ($0 as? ConfigError).map { $0.origin == "h.conf:2" && $0.message.contains(fragment) } ?? false })
        }
    }

    static func proc(_ path: String) throws -> [Double] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    }
}
