import IsletMQTT
import IsletSettings

/// `[sync]` as written in the config (docs/SYNC.md, "Configuration"): the group this display
/// belongs to. It needs `[mqtt]`: the group meets on the broker.
public struct SyncSettings: PartSettings, Hashable {
    public var group: String?
    /// The display's name in the group (nil: its MQTT client id). Unique within the group.
    public var deviceName: String?
    /// How far this display's wall clock may be from its group's before it shows stale.
    public var skewBoundSeconds: Double = 2

    public init() {}

    public static let section = "sync"
    /// The group is joined once: a changed group waits for a restart.
    public static let reloads = false
    public static let keys = ["group", "device_name", "skew_bound"]

    public mutating func set(_ v: ConfigValue) throws(ConfigError) {
        let (key, value, origin) = (v.key, v.text, v.origin)
        func name() throws(ConfigError) -> String {
            if let why = GroupTopics.problem(withName: value) {
                throw ConfigError(origin, "sync.\(key) = \"\(value)\" is not valid: \(why)")
            }
            return value
        }
        switch key {
        case "group": group = try name()
        case "device_name": deviceName = try name()
        case "skew_bound":
            guard let v = Double(value), v.isFinite, (0.1...3600).contains(v) else {
                throw ConfigError(origin, "sync.skew_bound = \"\(value)\" is not valid; accepted: seconds from 0.1 to 3600")
            }
            skewBoundSeconds = v
        default:
            throw ConfigValue.unknownKey(key, section: Self.section, known: Self.keys, origin: origin)
        }
    }

    /// What needs the other sections: a group name, and the broker it meets on.
    public func validate(_ all: PartSections, origin: (String) -> String) throws(ConfigError) {
        guard group != nil else { throw ConfigError(origin("sync"), "[sync] needs group = <name> (the same on every display of the group), or remove the section") }
        guard all[MQTTSettings.self] != nil else {
            throw ConfigError(origin("sync.group"), "[sync] group meets on an MQTT broker: add [mqtt] url = mqtt://host (the same broker on every display of the group)")
        }
    }
}
