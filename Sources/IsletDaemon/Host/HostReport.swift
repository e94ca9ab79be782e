import IsletParts
import IsletSystem
import IsletProtocol
import IsletConfig

/// The `[host]` part, the template of docs/ARCHITECTURE.md "Adding a part": the machine's own
/// uptime and load averages in `status`, so a person or Home Assistant sees that the Pi
/// rebooted at night or that a backup keeps it busy.
/// - config: `[host] report = on` (off without the section; `HostSettings`). A change waits
///   for a restart (the part is built at start only when it is on), and the reload says so.
/// - status: `host`, `{"uptime_seconds": 86400, "load": [0.08, 0.03, 0.01]}` (1, 5 and 15
///   minutes, as uptime(1) prints them; `HostFigures`), read from sysinfo(2) when a status is
///   asked for: nothing runs in between.
/// - saved: nothing; it outlives no restart.
/// - events: none; it changes no activity.
final class HostReport: DaemonPart {
    private let env: PartEnvironment

    /// One with `[host] report = on`, none otherwise: a desk without it pays nothing.
    static func make(_ config: DaemonConfig, _ env: PartEnvironment) -> [any DaemonPart] {
        guard let s = config.parts[HostSettings.self], s.report else { return [] }
        return [HostReport(env)]
    }

    init(_ env: PartEnvironment) { self.env = env }

    func report(into status: inout DaemonStatus, _ turn: TurnView) {
        do { status.set("host", HostFigures(try SystemInfo.load())) }
        catch {
            env.log.limited(.warning, topic: "host", nowMs: turn.mono.milliseconds, "host: no uptime or load: \(error); status has no host block")
        }
    }
}
