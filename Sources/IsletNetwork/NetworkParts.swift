import IsletParts
import IsletClock
import IsletConfig
import IsletSettings
import IsletSystem
import IsletProtocol
import IsletMQTT
import IsletSync

/// The network's parts, from `[mqtt]` and `[sync]` (and `[web]`'s address for Home Assistant):
/// the bridge, and the sync group riding the same link beside it (none without `[mqtt]`).
package enum NetworkParts {
    package static func make(_ config: DaemonConfig, _ env: PartEnvironment, restoring saved: SavedLedger?) throws(DaemonStartError) -> [any DaemonPart] {
        guard let settings = config.parts[MQTTSettings.self] else { return [] }
        let plan = try plan(settings, origin: config.origins)
        let link = try MQTTLink(env, plan: plan)
        let device = HomeAssistantDiscovery.Device(name: "Islet \(plan.clientID)",
                                                   model: "\(config.controller.rawValue.uppercased()) \(config.width)x\(config.height)",
                                                   version: IsletVersion.string)
        var parts: [any DaemonPart] = [MQTTBridge(env, config: config, plan: plan, link: link, device: device)]
        if let sync = config.parts[SyncSettings.self] {
            parts.append(SyncGroup(env, settings: sync, device: sync.deviceName ?? plan.clientID, link: link, restoring: saved?.ledger))
        }
        return parts
    }

    /// `[mqtt]` with its password read; a problem is a config error (exit 78, no restart loop).
    private static func plan(_ s: MQTTSettings, origin: [String: String]) throws(DaemonStartError) -> MQTTPlan {
        guard let url = s.url else { throw DaemonStartError("[mqtt] needs url", status: ConfigError.exitStatus) }
        var password: String?
        if let file = s.passwordFile {
            do { password = try SecretFile.password(file, origin: origin["mqtt.password_file"] ?? "mqtt.password_file", key: "mqtt.password_file") }
            catch { throw DaemonStartError("\(error)", status: ConfigError.exitStatus) }
        }
        return MQTTPlan(s, url: url, password: password, machineID: MQTTPlan.readMachineID())
    }
}
