/// Islet's topics under its prefix (docs/MQTT.md, "Topics").
public struct MQTTTopics: Hashable, Sendable {
    public let prefix: String

    public init(prefix: String) { self.prefix = prefix }

    /// `online` (retained) while connected; the last will says `offline`.
    public var availability: String { "\(prefix)/availability" }
    public var command: String { "\(prefix)/command" }
    public var response: String { "\(prefix)/response" }
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
