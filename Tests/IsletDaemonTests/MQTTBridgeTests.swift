import Foundation
import Testing

/// The bridge inside a running daemon, with no broker: a port on loopback where nothing
/// listens (the kernel refuses the connection). The broker cases are in make test-mqtt, on
/// Debian's mosquitto.
@Suite("the MQTT bridge without a broker")
struct MQTTBridgeTests {
    static let config = "[display]\nbus = mock\n[mqtt]\nurl = mqtt://127.0.0.1:1\nclient_id = desk\nkeepalive = 5\n"

    @Test("a refused broker is reported in status, and the timer runs on untouched")
    func refusedBrokerLeavesTheTimerAlone() throws {
        let d = try InProcessDaemon(config: Self.config)
        defer { d.stop() }
        let started = try d.request(#"{"op":"start","seconds":600,"request_id":"r1"}"#)
        #expect(started?["ok"] as? Bool == true)
        #expect(started?["request_id"] as? String == "r1", "the socket echoes request_id too")
        let s = try #require(try d.waitForStatus { s in
            let m = (s["status"] as? [String: Any])?["mqtt"] as? [String: Any]
            return (m?["last_error"] as? String)?.contains("Connection refused") == true
        })
        let m = try #require((s["status"] as? [String: Any])?["mqtt"] as? [String: Any])
        #expect(m["state"] as? String == "connecting")
        #expect(m["broker"] as? String == "mqtt://127.0.0.1:1")
        #expect(m["client_id"] as? String == "desk" && m["topic_prefix"] as? String == "islet/desk")
        #expect((m["attempts"] as? Int ?? 0) >= 1)
        let paused = try d.request(#"{"op":"pause"}"#)
        let phase = ((paused?["activities"] as? [[String: Any]])?.first?["phase"]) as? String
        #expect(phase == "paused")
    }

    @Test("the bridge is one more part, small like the others")
    func theBridgeIsAPart() throws {
        let d = try InProcessDaemon(config: Self.config)
        defer { d.stop() }
        let objects = d.objects()
        let bridge = try #require(objects.first { $0.type == "MQTTBridge" })
        #expect(bridge.fields > 0 && bridge.fields <= 15, "the bridge holds \(bridge.fields) fields")
        #expect(objects.contains { $0.type == "MQTTLink" }, "the link is found beside it")
    }
}
