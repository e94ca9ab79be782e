import Testing
import IsletMQTT

@Suite struct BrokerURLTests {
    @Test func schemesGiveTheirDefaultPorts() throws {
        // MQTT's registered ports (IANA): 1883 plain, 8883 over TLS.
        let plain = try BrokerURL.parse("mqtt://broker.lan").get()
        #expect(plain.host == "broker.lan" && plain.port == 1883 && !plain.tls)
        let tls = try BrokerURL.parse("mqtts://broker.lan").get()
        #expect(tls.port == 8883 && tls.tls)
    }

    @Test func portsAndAddresses() throws {
        let v4 = try BrokerURL.parse("mqtt://192.168.1.10:1884/").get()
        #expect(v4.host == "192.168.1.10" && v4.port == 1884 && v4.isNumeric)
        let v6 = try BrokerURL.parse("mqtts://[fd00::1]:8884").get()
        #expect(v6.host == "fd00::1" && v6.port == 8884 && v6.isNumeric)
        #expect(v6.description == "mqtts://[fd00::1]:8884")
        #expect(!(try BrokerURL.parse("mqtt://10.0.0.1.lan").get().isNumeric), "a name that starts with digits is still a name")
    }

    @Test(arguments: [
        ("http://broker", "scheme"),
        ("mqtt://", "no host"),
        ("mqtt://user:pw@broker", "password_file"),
        ("mqtt://broker:0", "1 to 65535"),
        ("mqtt://broker:70000", "1 to 65535"),
        ("mqtt://broker/topic", "no path"),
        ("mqtt://bro ker", "not a host name"),
        ("mqtt://[fd00::1", "closing ]"),
    ])
    func refusals(_ text: String, _ fragment: String) {
        guard case .failure(let e) = BrokerURL.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(e.reason.contains(fragment), "\(text): \(e.reason)")
    }
}

@Suite struct TopicsTests {
    @Test func topicsLiveUnderThePrefix() {
        let t = MQTTTopics(prefix: "islet/desk")
        #expect(t.availability == "islet/desk/availability")
        #expect(t.command == "islet/desk/command")
        #expect(t.response == "islet/desk/response")
        #expect(t.activity("meditation") == "islet/desk/activity/meditation")
        #expect(t.timer(ofActivityTopic: "islet/desk/activity/tea.break") == "tea.break")
        #expect(t.timer(ofActivityTopic: "islet/desk/activity/a/b") == nil)
        #expect(t.timer(ofActivityTopic: "islet/desk/command") == nil)
        #expect(t.timer(ofActivityTopic: "islet/desk2/activity/x") == nil)
    }

    @Test(arguments: ["", "a/+/b", "a/#", "/islet", "islet/", "a//b", "$SYS/x", "a\u{1}b"])
    func badPrefixes(_ prefix: String) {
        #expect(MQTTTopics.problem(withPrefix: prefix) != nil, "\(prefix.debugDescription)")
    }

    @Test func goodPrefixes() {
        for p in ["islet", "islet/islet-0ce2fdf8b425", "home/bedroom/timer"] { #expect(MQTTTopics.problem(withPrefix: p) == nil) }
    }
}

@Suite struct RequestLedgerTests {
    @Test func theSameIDGetsTheFirstAnswer() {
        var l = RequestLedger(capacity: 4, lifetimeMs: 1000)
        #expect(l.answer(for: "a", nowMs: 0) == nil)
        l.record("a", answer: [1], nowMs: 0)
        #expect(l.answer(for: "a", nowMs: 999) == [1])
        #expect(l.answer(for: "a", nowMs: 1000) == nil, "forgotten after its lifetime")
    }

    @Test func boundedInCount() {
        var l = RequestLedger(capacity: 3, lifetimeMs: 10_000)
        for i in 0..<5 { l.record("r\(i)", answer: [UInt8(i)], nowMs: Int64(i)) }
        #expect(l.count == 3)
        #expect(l.answer(for: "r0", nowMs: 5) == nil && l.answer(for: "r1", nowMs: 5) == nil)
        #expect(l.answer(for: "r4", nowMs: 5) == [4])
    }
}
