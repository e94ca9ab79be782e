import Testing
import FoundationEssentials
import IsletMQTT
import IsletProtocol

/// The payloads' shape as Home Assistant's MQTT discovery documents it; make test-mqtt checks
/// them again with Home Assistant's own schemas.
@Suite struct DiscoveryTests {
    let d = HomeAssistantDiscovery(prefix: "homeassistant", node: "islet-0ce2fdf8b425",
                                   topics: MQTTTopics(prefix: "islet/islet-0ce2fdf8b425"),
                                   device: .init(name: "Islet desk", model: "SSD1306 128x64", version: "1.0"),
                                   defaultMinutes: 20)

    func object(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        guard case .object(let o) = try StrictJSON.parse(bytes) else { throw ProtocolError("x", "not an object") }
        return o
    }

    @Test func topicsFollowTheDiscoveryPattern() throws {
        // <discovery_prefix>/<component>/[<node_id>/]<object_id>/config, ids of [a-zA-Z0-9_-].
        let all = d.announcements(timer: "tea.break")
        #expect(all.count == 9)
        for a in all {
            let parts = a.topic.split(separator: "/").map(String.init)
            #expect(parts.count == 5 && parts[0] == "homeassistant" && parts[2] == "islet-0ce2fdf8b425" && parts[4] == "config")
            #expect(["sensor", "button", "number"].contains(parts[1]))
            #expect(parts[3].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }, "\(parts[3])")
            #expect(d.isConfigTopic(a.topic))
        }
        #expect(!d.isConfigTopic("homeassistant/sensor/other-node/x/config"))
        #expect(!d.isConfigTopic("homeassistant/sensor/islet-0ce2fdf8b425/x/state"))
    }

    @Test func uniqueIDsAreUniqueAcrossTimers() throws {
        var ids: Set<String> = []
        for timer in ["meditation", "tea.break", "tea_break"] {
            for a in d.announcements(timer: timer) {
                guard case .string(let id)? = try object(a.payload)["unique_id"] else { Issue.record("no unique_id"); continue }
                ids.insert(id)
            }
        }
        #expect(ids.count == 27)
    }

    @Test func namesThatOnceClashedGetTheirOwnTopicsAndIDs() throws {
        // Each pair once mapped to one object key ("." became "_").
        let timers = ["a.b", "a_b", "a__b", "a._b", "a_.b", "a..b", "a_d", "ad", "a_db", "a", "a_pause", "a_paused"]
        var topics: Set<String> = [], ids: Set<String> = [], objects: Set<String> = []
        for timer in timers {
            for a in d.announcements(timer: timer) {
                topics.insert(a.topic)
                let o = try object(a.payload)
                guard case .string(let id)? = o["unique_id"], case .string(let obj)? = o["object_id"] else { Issue.record("no ids"); continue }
                ids.insert(id)
                objects.insert(obj)
            }
        }
        #expect(topics.count == timers.count * 9)
        #expect(ids.count == timers.count * 9)
        #expect(objects.count == timers.count * 9)
        // A name with neither "_" nor "." keeps its ids: nothing moves for existing entities.
        #expect(HomeAssistantDiscovery.objectKey("meditation") == "meditation")
        #expect(HomeAssistantDiscovery.objectKey("tea-time") == "tea-time")
    }

    @Test func buttonsSendRequestsTheControlProtocolAccepts() throws {
        for a in d.announcements(timer: "meditation") where a.topic.contains("/button/") {
            let o = try object(a.payload)
            #expect(o["command_topic"] == .string("islet/islet-0ce2fdf8b425/command"))
            guard case .string(let press)? = o["payload_press"] else { Issue.record("no payload_press"); continue }
            let request = try ControlRequest.parse(Array(press.utf8))
            #expect(request.timer == "meditation")
            #expect(a.topic.contains("_\(request.op.rawValue)/"), "\(a.topic) sends \(request.op)")
        }
    }

    @Test func everyEntityHasTheDeviceAndAvailability() throws {
        for a in d.announcements(timer: "meditation") {
            let o = try object(a.payload)
            guard case .object(let device)? = o["device"] else { Issue.record("no device in \(a.topic)"); continue }
            #expect(device["identifiers"] == .array([.string("islet_islet-0ce2fdf8b425")]))
            let plain = o["availability_topic"] == .string("islet/islet-0ce2fdf8b425/availability")
            var listed = false
            if case .array(let list)? = o["availability"] {
                listed = list.contains(.object(["topic": .string("islet/islet-0ce2fdf8b425/availability")]))
            }
            #expect(plain || listed, "\(a.topic) is not tied to the last will")
        }
    }

    @Test func thePillIsAnImageEntityOfTheDeviceReadingTheImageTopic() throws {
        let a = try #require(d.deviceAnnouncements.first)
        #expect(a.topic == "homeassistant/image/islet-0ce2fdf8b425/pill/config")
        #expect(d.isConfigTopic(a.topic))
        let o = try object(a.payload)
        #expect(o["image_topic"] == .string("islet/islet-0ce2fdf8b425/image"))
        #expect(o["content_type"] == .string("image/png"))
        #expect(o["availability_topic"] == .string("islet/islet-0ce2fdf8b425/availability"))
        #expect(o["unique_id"] == .string("islet_islet-0ce2fdf8b425_pill"))
        #expect(o["object_id"] == .string("islet-0ce2fdf8b425_pill"))
        guard case .object(let device)? = o["device"] else { Issue.record("no device"); return }
        #expect(device["identifiers"] == .array([.string("islet_islet-0ce2fdf8b425")]))
        // Without [web] there is no page to link to.
        #expect(device["configuration_url"] == nil)
        // No timer's entity has its topic or ids, whatever the timer is called.
        for timer in ["pill", "p", "pill_", "_pill", "ill"] {
            for t in d.announcements(timer: timer) {
                #expect(t.topic != a.topic)
                #expect(try object(t.payload)["unique_id"] != o["unique_id"])
            }
        }
    }

    /// The contrast (a number, 0–255 like 81h) and night mode (a switch) send `brightness`
    /// requests the protocol accepts, and read the retained brightness topic.
    @Test func contrastAndNightModeAreDeviceEntitiesSendingBrightness() throws {
        let byTopic = Dictionary(uniqueKeysWithValues: d.deviceAnnouncements.map { ($0.topic, $0.payload) })
        let number = try object(try #require(byTopic["homeassistant/number/islet-0ce2fdf8b425/contrast/config"]))
        let toggle = try object(try #require(byTopic["homeassistant/switch/islet-0ce2fdf8b425/night/config"]))
        #expect(number["min"] == .number(0) && number["max"] == .number(255) && number["step"] == .number(1))
        for o in [number, toggle] {
            #expect(o["command_topic"] == .string("islet/islet-0ce2fdf8b425/command"))
            #expect(o["state_topic"] == .string("islet/islet-0ce2fdf8b425/brightness"))
        }
        #expect(number["command_template"] == .string(#"{"op":"brightness","contrast":{{ value | int }}}"#))
        for (key, night) in [("payload_on", true), ("payload_off", false)] {
            guard case .string(let payload)? = toggle[key] else { Issue.record("no \(key)"); continue }
            let r = try ControlRequest.parse(Array(payload.utf8))
            #expect(r.op == .brightness && r.brightness.night == night && r.brightness.contrast == nil)
        }
        // The number's template with a value, as Home Assistant renders it, parses too.
        let sent = try ControlRequest.parse(Array(#"{"op":"brightness","contrast":42}"#.utf8))
        #expect(sent.brightness.contrast == 42)
        for topic in d.deviceConfigTopics { #expect(d.isConfigTopic(topic)) }
        #expect(Set(d.deviceConfigTopics).isDisjoint(with: d.configTopics(timer: "contrast") + d.configTopics(timer: "night")))
    }

    @Test func withAPageEveryEntityLinksTheDeviceToIt() throws {
        let web = HomeAssistantDiscovery(prefix: "homeassistant", node: "desk", topics: MQTTTopics(prefix: "islet/desk"),
                                         device: .init(name: "Islet desk", model: "SSD1306 128x32", version: "1.0",
                                                       configurationURL: "http://islet.local:8080/"),
                                         defaultMinutes: 20)
        let all = web.announcements(timer: "meditation") + web.deviceAnnouncements
        #expect(all.count == 12)
        for a in all {
            guard case .object(let device)? = try object(a.payload)["device"] else { Issue.record("no device in \(a.topic)"); continue }
            #expect(device["configuration_url"] == .string("http://islet.local:8080/"), "\(a.topic)")
        }
    }

    @Test func theTimestampSensorIsATimestampAndReadsTheActivity() throws {
        let ends = try #require(d.announcements(timer: "meditation").first { $0.topic.hasSuffix("meditation_ends/config") })
        let o = try object(ends.payload)
        #expect(o["device_class"] == .string("timestamp"))
        #expect(o["state_topic"] == .string("islet/islet-0ce2fdf8b425/activity/meditation"))
    }
}
