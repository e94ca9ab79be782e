import IsletCore
import IsletProtocol

/// Home Assistant's MQTT discovery for Islet: one device with an image entity (the pill as the
/// glass shows it), and per timer a phase sensor, a timestamp sensor for the end of the running
/// cycle, a duration sensor for the paused time, a button for each verb the table gives it
/// (five) and a number that starts a session of N minutes; for the device also the panel's
/// contrast (a number) and night mode (a switch). Pure: the bridge publishes what this returns. Payloads use full key names (no
/// abbreviations), so Home Assistant's schemas read them as they are (make test-mqtt checks
/// them with those schemas).
public struct HomeAssistantDiscovery: Sendable {
    public struct Device: Sendable, Hashable {
        public var name: String
        public var model: String
        public var version: String
        /// The web page (`[web]`), as Home Assistant's "Visit" link on the device; nil without one.
        public var configurationURL: String?
        public init(name: String, model: String, version: String, configurationURL: String? = nil) {
            self.name = name
            self.model = model
            self.version = version
            self.configurationURL = configurationURL
        }
    }

    public let prefix: String
    /// The node id in the discovery topics: the MQTT client id.
    public let node: String
    public let topics: MQTTTopics
    public var device: Device
    /// What the number entity shows while its timer has no activity.
    public let defaultMinutes: Double

    public init(prefix: String, node: String, topics: MQTTTopics, device: Device, defaultMinutes: Double) {
        self.prefix = prefix
        self.node = node
        self.topics = topics
        self.device = device
        self.defaultMinutes = defaultMinutes
    }

    /// Home Assistant's birth message arrives here (`online` when it starts).
    public var statusTopic: String { "\(prefix)/status" }
    /// Every config topic of this node, for finding announcements left from before.
    public var configFilter: String { "\(prefix)/+/\(node)/+/config" }

    /// The entities of one timer: component, entity key, and payload fields. The buttons are
    /// the verbs the table gives Home Assistant (`Verb.hasHomeAssistantButton`).
    enum Entity: Hashable, CaseIterable {
        case phase, ends, pausedRemaining
        case button(Verb)
        case start

        static var allCases: [Entity] {
            [.phase, .ends, .pausedRemaining] + Verb.allCases.filter(\.hasHomeAssistantButton).map(Entity.button) + [.start]
        }

        var component: String {
            switch self {
            case .phase, .ends, .pausedRemaining: "sensor"
            case .button: "button"
            case .start: "number"
            }
        }

        var key: String {
            switch self {
            case .phase: "phase"
            case .ends: "ends"
            case .pausedRemaining: "paused_remaining"
            // The op it sends: the button's topic names it.
            case .button(let verb): verb.rawValue
            case .start: "start_minutes"
            }
        }

        var label: String {
            switch self {
            case .pausedRemaining: "paused remaining"
            case .start: "start minutes"
            default: key
            }
        }
    }

    /// A button's icon in Home Assistant.
    static func icon(_ verb: Verb) -> String {
        switch verb {
        case .pause: "mdi:pause"
        case .resume: "mdi:play"
        case .toggle: "mdi:play-pause"
        case .reset: "mdi:stop"
        case .expand: "mdi:arrow-expand"
        case .start, .end, .update: "mdi:timer"
        }
    }

    /// A timer's name as a discovery object id: Home Assistant allows `[A-Za-z0-9_-]` there.
    /// One-to-one, so two timers never share entities: `_` is written `__` and `.` `_d`; a
    /// name without either is unchanged. (`a.b` and `a_b` once both became `a_b`, and a reset
    /// of one cleared the other's entities.) No entity key starts with `_` or `d`, so the
    /// `_` before the key cannot be read as part of the name either.
    public static func objectKey(_ timer: String) -> String {
        var out = ""
        out.reserveCapacity(timer.utf8.count + 4)
        for c in timer {
            switch c {
            case "_": out += "__"
            case ".": out += "_d"
            default: out.append(c)
            }
        }
        return out
    }

    func configTopic(_ e: Entity, timer: String) -> String {
        "\(prefix)/\(e.component)/\(node)/\(Self.objectKey(timer))_\(e.key)/config"
    }

    /// The device's own entity, whatever the timers: the pill as an `image` entity. Its object id
    /// has no `_`, so no timer's entity can have it (a timer's ids end in `_<entity key>`).
    public var pillConfigTopic: String { "\(prefix)/image/\(node)/pill/config" }

    /// The device's brightness entities: the contrast as a `number`, night mode as a `switch`.
    /// Their object ids have no `_` either.
    public var contrastConfigTopic: String { "\(prefix)/number/\(node)/contrast/config" }
    public var nightConfigTopic: String { "\(prefix)/switch/\(node)/night/config" }

    /// The device's own config topics, whatever the timers.
    public var deviceConfigTopics: [String] { [pillConfigTopic, contrastConfigTopic, nightConfigTopic] }

    /// The device's own announcements: (topic, retained JSON payload).
    public var deviceAnnouncements: [(topic: String, payload: [UInt8])] {
        [(pillConfigTopic, Self.encode(pillPayload)), (contrastConfigTopic, Self.encode(contrastPayload)),
         (nightConfigTopic, Self.encode(nightPayload))]
    }

    /// The panel's contrast (81h), 0–255: a `brightness` request until the next boundary.
    var contrastPayload: [String: JSONValue] {
        var o = common(name: "contrast", id: "contrast")
        o["command_topic"] = .string(topics.command)
        o["command_template"] = .string("{\"op\":\"brightness\",\"contrast\":{{ value | int }}}")
        o["state_topic"] = .string(topics.brightness)
        o["value_template"] = .string("{{ value_json.contrast }}")
        o["min"] = .number(0)
        o["max"] = .number(255)
        o["step"] = .number(1)
        o["mode"] = .string("slider")
        o["entity_category"] = .string("config")
        o["icon"] = .string("mdi:brightness-6")
        return o
    }

    /// Night mode: on or off until the next boundary.
    var nightPayload: [String: JSONValue] {
        var o = common(name: "night mode", id: "night")
        o["command_topic"] = .string(topics.command)
        o["payload_on"] = .string("{\"op\":\"brightness\",\"night\":true}")
        o["payload_off"] = .string("{\"op\":\"brightness\",\"night\":false}")
        o["state_topic"] = .string(topics.brightness)
        o["value_template"] = .string("{{ 'ON' if value_json.night else 'OFF' }}")
        o["state_on"] = .string("ON")
        o["state_off"] = .string("OFF")
        o["icon"] = .string("mdi:weather-night")
        return o
    }

    /// The pill: PNG bytes, retained on `<prefix>/image` (the bridge publishes the panel's picture there).
    var pillPayload: [String: JSONValue] {
        var o = common(name: "pill", id: "pill")
        o["image_topic"] = .string(topics.image)
        o["content_type"] = .string("image/png")
        o["icon"] = .string("mdi:meditation")
        return o
    }

    /// What every entity carries: name, ids, the device, availability (the last will), QoS.
    func common(name: String, id: String) -> [String: JSONValue] {
        var device: [String: JSONValue] = [
            "identifiers": .array([.string("islet_\(node)")]),
            "name": .string(self.device.name),
            "manufacturer": .string("Islet"),
            "model": .string(self.device.model),
            "sw_version": .string(self.device.version),
        ]
        if let url = self.device.configurationURL { device["configuration_url"] = .string(url) }
        return [
            "name": .string(name),
            "unique_id": .string("islet_\(node)_\(id)"),
            // The device's id in the entity id too: two Islets on one Home Assistant do not clash.
            "object_id": .string("\(node)_\(id)"),
            "device": .object(device),
            "availability_topic": .string(topics.availability),
            "payload_available": .string("online"),
            "payload_not_available": .string("offline"),
            "qos": .number(1),
        ]
    }

    /// The config topics a timer's entities live under.
    public func configTopics(timer: String) -> [String] { Entity.allCases.map { configTopic($0, timer: timer) } }

    /// Whether `topic` is a config topic of this node (ours to keep or to clear).
    public func isConfigTopic(_ topic: String) -> Bool {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        let head = prefix.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == head.count + 4, Array(parts.prefix(head.count)) == head else { return false }
        return parts[head.count + 1] == node && parts[head.count + 3] == "config"
    }

    /// Every announcement of a timer: (topic, retained JSON payload).
    public func announcements(timer: String) -> [(topic: String, payload: [UInt8])] {
        Entity.allCases.map { e in (configTopic(e, timer: timer), Self.encode(payload(e, timer: timer))) }
    }

    func payload(_ e: Entity, timer: String) -> [String: JSONValue] {
        let key = Self.objectKey(timer)
        let state = topics.activity(timer)
        var o = common(name: "\(timer) \(e.label)", id: "\(key)_\(e.key)")
        // A template sees an empty payload when the activity's retained message is cleared
        // (the timer went idle): `value_json` is undefined then.
        let defined = "value_json is defined and value_json.phase is defined"
        switch e {
        case .phase:
            o["state_topic"] = .string(state)
            o["device_class"] = .string("enum")
            o["options"] = .array(["idle", "running", "paused", "cycle_end", "complete"].map(JSONValue.string))
            o["value_template"] = .string("{{ value_json.phase if \(defined) else 'idle' }}")
            o["icon"] = .string("mdi:meditation")
        case .ends:
            // Available only while a countdown runs, or an until activity whose source gave its
            // end; a timestamp sensor cannot show "none" without Home Assistant logging the
            // state as invalid.
            o.removeValue(forKey: "availability_topic")
            o.removeValue(forKey: "payload_available")
            o.removeValue(forKey: "payload_not_available")
            let countdown = "value_json.attributes.kind == 'countdown'"
            let pushedEnd = "(value_json.attributes.kind == 'until' and value_json.content.pushed is defined and value_json.content.pushed.ends_at is defined)"
            let running = "\(defined) and value_json.phase == 'running' and (\(countdown) or \(pushedEnd))"
            o["availability"] = .array([
                .object(["topic": .string(topics.availability)]),
                .object(["topic": .string(state),
                         "value_template": .string("{{ 'online' if \(running) else 'offline' }}")]),
            ])
            o["availability_mode"] = .string("all")
            o["state_topic"] = .string(state)
            o["device_class"] = .string("timestamp")
            o["value_template"] = .string("{{ (value_json.content.reference if \(countdown) else value_json.content.pushed.ends_at) if \(running) else '1970-01-01T00:00:00+00:00' }}")
        case .pausedRemaining:
            o["state_topic"] = .string(state)
            o["device_class"] = .string("duration")
            o["unit_of_measurement"] = .string("s")
            o["value_template"] = .string("{{ value_json.remaining_seconds | round(0) | int if \(defined) and value_json.phase == 'paused' and value_json.remaining_seconds is defined else 'None' }}")
        case .button(let verb):
            o["command_topic"] = .string(topics.command)
            o["payload_press"] = .string(String(decoding: Self.encode(["op": .string(verb.rawValue), "timer": .string(timer)]), as: UTF8.self))
            o["icon"] = .string(Self.icon(verb))
        case .start:
            o["command_topic"] = .string(topics.command)
            o["command_template"] = .string("{\"op\":\"start\",\"timer\":\"\(timer)\",\"seconds\":{{ (value | float * 60) | round(0) | int }}}")
            o["state_topic"] = .string(state)
            o["value_template"] = .string("{{ (value_json.attributes.cycle_seconds / 60) | round(1) if \(defined) and value_json.attributes.cycle_seconds is defined else \(StrictJSON.plain(defaultMinutes)) }}")
            o["min"] = .number(1)
            o["max"] = .number(1440)
            o["step"] = .number(1)
            o["mode"] = .string("box")
            o["unit_of_measurement"] = .string("min")
            o["icon"] = .string("mdi:timer-play")
        }
        return o
    }

    static func encode(_ o: [String: JSONValue]) -> [UInt8] {
        Array(JSONLines.encode(JSONValue.object(o)).dropLast())
    }
}
