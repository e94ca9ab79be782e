import Testing
import IsletMQTT

@Suite struct BrokerURLTests {
    @Test func schemesGiveTheirDefaultPorts() throws {
        let plain = try BrokerURL.parse("mqtt://broker.lan").get()
        #expect(plain.host == "broker.lan" && plain.port == 1883 && !plain.tls)
        let tls = try BrokerURL.parse("mqtts://broker.lan").get()
        #expect(tls.port == 8883 && tls.tls)
    }
}
