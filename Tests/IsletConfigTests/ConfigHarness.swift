import IsletSettings
import IsletNetwork
import IsletWeb
import IsletDaemon
import IsletConfig

/// The error a config text gives, parsed and validated as `isletd` does; nil when it is good.
func configError(_ text: String, file: String = "t.conf") -> ConfigError? {
    do {
        _ = try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: file).validated(origin: file)
        return nil
    } catch {
        return error
    }
}

/// The systemd drop-in for these sections, as `isletd --network-dropin` writes it.
func networkDropIn(mqtt: MQTTSettings?, web: WebSettings?) -> String? {
    NetworkNeed.dropIn([mqtt?.network, web?.network].compactMap { $0 }, configPath: "c")
}
