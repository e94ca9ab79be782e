/// Islet's topics under its prefix (docs/MQTT.md, "Topics").
public struct MQTTTopics: Hashable, Sendable {
    public let prefix: String

    public init(prefix: String) { self.prefix = prefix }

    /// `online` (retained) while connected; the last will says `offline`.
    public var availability: String { "\(prefix)/availability" }
    public var command: String { "\(prefix)/command" }
    /// Retained: the running process's token and when it connected. A token that is not ours,
    /// written after we first connected, is another client with our client id (docs/MQTT.md).
    public var instance: String { "\(prefix)/instance" }
    public var response: String { "\(prefix)/response" }
    /// Retained: the panel's picture as PNG (Home Assistant's image entity).
    public var image: String { "\(prefix)/image" }
    /// Retained: night mode and the contrast, `{"night":false,"contrast":207}` (Home Assistant's
    /// switch and number read it).
    public var brightness: String { "\(prefix)/brightness" }
    public func activity(_ timer: String) -> String { "\(prefix)/activity/\(timer)" }
    /// Every timer's activity topic: retained ones left from before are cleared on connect.
    public var activityFilter: String { "\(prefix)/activity/+" }

    /// The timer an activity topic is for, nil for any other topic.
    public func timer(ofActivityTopic topic: String) -> String? {
        let head = "\(prefix)/activity/"
        guard topic.hasPrefix(head) else { return nil }
        let t = topic.dropFirst(head.count)
        return t.isEmpty || t.contains("/") ? nil : String(t)
    }

    /// Why `prefix` cannot be a topic prefix, or nil when it can: MQTT's wildcards and the
    /// null character are not allowed in a topic one publishes to, and a `/` at either end would
    /// make empty levels.
    public static func problem(withPrefix prefix: String) -> String? {
        if prefix.isEmpty { return "the topic prefix is empty" }
        if prefix.utf8.count > 200 { return "the topic prefix is longer than 200 bytes" }
        if prefix.contains("+") || prefix.contains("#") { return "a topic prefix cannot contain the wildcards + or #" }
        if prefix.hasPrefix("/") || prefix.hasSuffix("/") { return "a topic prefix has no / at either end" }
        if prefix.contains("//") { return "a topic prefix has no empty level (//)" }
        if prefix.hasPrefix("$") { return "topics starting with $ are the broker's own" }
        if prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "a topic prefix has no control characters" }
        return nil
    }
}

/// A sync group's topics (docs/SYNC.md): `islet/group/<group>/…`, shared by every display of
/// the group, whatever each one's own prefix.
public struct GroupTopics: Hashable, Sendable {
    public let prefix: String

    public init(group: String) { prefix = "islet/group/\(group)" }

    /// Everything of the group: records, beacons and join markers.
    public var all: String { "\(prefix)/#" }
    /// A timer's record, retained.
    public func state(_ timer: String) -> String { "\(prefix)/state/\(timer)" }
    /// A device's clock beacon (not retained: an old reading would lie).
    public func clock(_ device: String) -> String { "\(prefix)/clock/\(device)" }
    /// A device's join marker: when it comes back, every retained record was delivered before it.
    public func join(_ device: String) -> String { "\(prefix)/join/\(device)" }

    public enum Kind: Hashable, Sendable {
        case state(timer: String)
        case clock(device: String)
        case join(device: String)
    }

    /// What a topic of the group is, nil for any other topic (or one level too many).
    public func kind(of topic: String) -> Kind? {
        guard topic.hasPrefix(prefix + "/") else { return nil }
        let rest = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard rest.count == 2, !rest[1].isEmpty else { return nil }
        switch rest[0] {
        case "state": return .state(timer: String(rest[1]))
        case "clock": return .clock(device: String(rest[1]))
        case "join": return .join(device: String(rest[1]))
        default: return nil
        }
    }

    /// Why a name cannot be a group's or a device's (a topic level), nil when it can.
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "it must be 1 to 64 bytes" }
        guard name.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" || $0 == "." }) else {
            return "it may hold only letters A-Z a-z, digits, \"-\", \"_\" and \".\" (it is an MQTT topic level)"
        }
        return nil
    }
}
