import IsletSettings

/// `[host]`: whether `status` reports the machine's own uptime and load (off without the
/// section). The template part of docs/ARCHITECTURE.md "Adding a part".
package struct HostSettings: PartSettings, Equatable {
    package static let section = "host"
    package static let keys = ["report"]

    package var report = false

    package init() {}

    package mutating func set(_ v: ConfigValue) throws(ConfigError) {
        switch v.key {
        case "report": report = try v.onOff()
        default: throw ConfigValue.unknownKey(v.key, section: v.section, known: Self.keys, origin: v.origin)
        }
    }
}
