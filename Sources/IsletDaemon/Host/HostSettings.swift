import IsletSettings

/// `[host]`: whether `status` reports the machine's own uptime and load (off without the
/// section). The template part of docs/ARCHITECTURE.md "Adding a part".
package struct HostSettings: PartSettings, Equatable {
    package static let section = "host"
    package static let keys = ["report"]
    /// The part is built at start only when it is on: a change waits for a restart (the
    /// reload's log line says so).
    package static let reloads = false

    package var report = false

    package init() {}

    package var checkSummary: String? { report ? "host figures in status" : nil }

    package mutating func set(_ v: ConfigValue) throws(ConfigError) {
        switch v.key {
        case "report": report = try v.onOff()
        default: throw ConfigValue.unknownKey(v.key, section: v.section, known: Self.keys, origin: v.origin)
        }
    }
}
