import IsletSettings
import IsletNetwork
import IsletWeb
import IsletDaemon
import Foundation
import Testing
@testable import IsletConfig
import IsletMQTT
import IsletTestSupport

@Suite struct MQTTConfigTests {
    @Test func threeLinesAndTheDefaults() throws {
        let c = try DaemonConfig(parts: PartRegistry.settings).parsing("[mqtt]\nurl = mqtt://192.168.1.10\n", file: "t.conf").validated(origin: "t.conf")
        let m = try #require(c.parts[MQTTSettings.self])
        #expect(m.url == BrokerURL(host: "192.168.1.10", port: 1883, tls: false))
        #expect(m.keepaliveSeconds == 60 && m.discovery && m.discoveryPrefix == "homeassistant" && m.commands)
        #expect(DaemonConfig(parts: PartRegistry.settings).parts[MQTTSettings.self] == nil, "no [mqtt], no network")
    }

    @Test(arguments: [
        ("[mqtt]\nkeepalive = 30\n", "t.conf:1", "needs url"),
        ("[mqtt]\nurl = http://x\n", "t.conf:2", "mqtt:// or mqtts://"),
        ("[mqtt]\nurl = mqtt://b\nkeepalive = 4\n", "t.conf:3", "5 to 3600"),
        ("[mqtt]\nurl = mqtt://b\nclient_id = a b\n", "t.conf:3", "A-Z"),
        ("[mqtt]\nurl = mqtt://b\ntopic_prefix = islet/+\n", "t.conf:3", "wildcards"),
        ("[mqtt]\nurl = mqtt://b\ndiscovery = maybe\n", "t.conf:3", "on or off"),
        ("[mqtt]\nurl = mqtt://b\ntimers = ok, not ok\n", "t.conf:3", "not ok"),
        ("[mqtt]\nurl = mqtt://b\nallow = 300.1.1.1\n", "t.conf:3", "192.168.0.0/16"),
        ("[mqtt]\nurl = mqtt://b\npassword = x\n", "t.conf:3", "unknown key \"password\""),
        ("[mqtt]\nurl = mqtts://b\ncert_file = /etc/c.pem\n", "t.conf:3", "go together"),
        ("[mqtt]\nurl = mqtt://b\nca_file = /etc/ssl/certs/ca-certificates.crt\n", "t.conf:3", "mqtts://"),
        ("[mqtt]\nurl = mqtt://b\npassword_file = /etc/islet/pw\n", "t.conf:3", "needs mqtt.username"),
    ])
    func errorsNameTheLine(_ text: String, _ origin: String, _ fragment: String) {
        let e = configError(text)
        #expect(e?.origin == origin && e?.message.contains(fragment) == true, "\(text.debugDescription): \(e.map { "\($0)" } ?? "accepted")")
    }

    @Test(arguments: ["mqtt://user:s3cret@broker", "mqtts://s3cret@broker:8883", "mqtt://u:s3cret@b@broker", "s3cret@mqtt://x"])
    func aPasswordInTheURLIsRefusedWithoutQuotingIt(_ url: String) {
        let e = configError("[mqtt]\nurl = \(url)\n")
        #expect(e?.origin == "t.conf:2")
        #expect(e?.message.contains("password_file") == true || e?.message.contains("scheme") == true, "\(e.map { "\($0)" } ?? "accepted")")
        #expect(e.map { "\($0)" }?.contains("s3cret") == false, "\(e.map { "\($0)" } ?? "accepted")")
    }

    @Test func aWorldReadablePasswordFileIsRefusedAndAPrivateOneRead() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let pw = dir + "/pw"
        try "s3cret\nignored\n".write(toFile: pw, atomically: true, encoding: .utf8)
        let text = "[mqtt]\nurl = mqtt://b\nusername = islet\npassword_file = \(pw)\n"
        #expect(chmod(pw, 0o644) == 0)
        #expect {
            _ = try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "t.conf").validated(origin: "t.conf")
        } throws: { error in
            guard let e = error as? ConfigError else { return false }
            return e.origin == "t.conf:4" && e.message.contains("readable by every user") && !e.message.contains("s3cret")
        }
        #expect(chmod(pw, 0o640) == 0)
        _ = try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "t.conf").validated(origin: "t.conf")
        #expect(try SecretFile.password(pw, origin: "t.conf:4", key: "mqtt.password_file") == "s3cret")
    }

    /// Issue 44 §12: a password file others may write lets them set the password; a key file
    /// likewise. Each mode is refused at the key's file:line with the mode in octal, for
    /// [mqtt] and [web] alike (one check).
    @Test(arguments: [(0o622, "writable by every user"), (0o602, "writable by every user"), (0o620, "writable by its group"),
                      (0o660, "writable by its group"), (0o666, "readable and writable by every user"),
                      (0o604, "readable by every user"), (0o2620, "writable by its group")])
    func aSecretFileOthersMayWriteIsRefused(_ mode: Int, _ words: String) throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let pw = dir + "/pw"
        try "s3cret\n".write(toFile: pw, atomically: true, encoding: .utf8)
        #expect(chmod(pw, mode_t(mode)) == 0)
        let octal = "mode 0" + String(mode, radix: 8)
        for (text, line, key) in [("[mqtt]\nurl = mqtts://b\nusername = islet\npassword_file = \(pw)\n", 4, "mqtt.password_file"),
                                  ("[mqtt]\nurl = mqtts://b\ncert_file = \(pw)\nkey_file = \(pw)\n", 4, "mqtt.key_file"),
                                  ("[web]\npassword_file = \(pw)\n", 2, "web.password_file")] {
            #expect {
                _ = try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "t.conf").validated(origin: "t.conf")
            } throws: { error in
                guard let e = error as? ConfigError else { return false }
                return e.origin == "t.conf:\(line)" && e.message.contains(key) && e.message.contains(words) && e.message.contains(octal)
            }
        }
        #expect(throws: ConfigError.self) { _ = try SecretFile.password(pw, origin: "t.conf:4", key: "mqtt.password_file") }
    }

    @Test(arguments: [0o600, 0o640, 0o400, 0o440])
    func aPrivateSecretFileIsRead(_ mode: Int) throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let pw = dir + "/pw"
        try "s3cret\n".write(toFile: pw, atomically: true, encoding: .utf8)
        #expect(chmod(pw, mode_t(mode)) == 0)
        #expect(try SecretFile.password(pw, origin: "t.conf:4", key: "mqtt.password_file") == "s3cret")
    }

    @Test func theDefaultClientIDIsStablePerMachineAndHidesTheMachineID() {
        let a = Array("4c4c4544004b4810804bb3c04f4b3732".utf8)
        let b = Array("0123456789abcdef0123456789abcdef".utf8)
        let idA = MQTTPlan.defaultClientID(machineID: a)
        #expect(idA == MQTTPlan.defaultClientID(machineID: a))
        #expect(idA != MQTTPlan.defaultClientID(machineID: b))
        #expect(idA.hasPrefix("islet-") && idA.count == 18)
        #expect(!"4c4c4544004b4810804bb3c04f4b3732".contains(idA.dropFirst(6)))
        #expect(MQTTSettings.isValidClientID(idA))
        #expect(MQTTPlan.defaultClientID(machineID: nil) == "islet")
    }

    @Test func thePlanHasTheWillAndThePrefix() throws {
        var s = MQTTSettings()
        s.url = BrokerURL(host: "b", port: 1883, tls: false)
        s.clientID = "desk"
        let plan = MQTTPlan(s, url: try #require(s.url), password: nil, machineID: nil)
        #expect(plan.topics.prefix == "islet/desk")
        #expect(plan.options.willTopic == "islet/desk/availability" && plan.options.willPayload == Array("offline".utf8))
    }

    @Test func theDropInOpensOnlyWhatTheBrokerNeeds() throws {
        #expect(networkDropIn(mqtt: nil, web: nil) == nil)
        var s = MQTTSettings()
        s.url = BrokerURL(host: "192.168.1.10", port: 1883, tls: false)
        let numeric = try #require(networkDropIn(mqtt: s, web: nil))
        #expect(numeric.contains("\nIPAddressAllow=192.168.1.10\n"))
        #expect(numeric.contains("\nRestrictAddressFamilies=AF_UNIX AF_INET\n"), "no IPv6 for an IPv4 broker")
        #expect(numeric.contains("\nPrivateNetwork=no\n"))
        s.url = BrokerURL(host: "broker.lan", port: 1883, tls: false)
        let named = try #require(networkDropIn(mqtt: s, web: nil))
        #expect(named.contains("IPAddressAllow=localhost link-local 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7"))
        s.allow = ["203.0.113.7"]
        #expect(try #require(networkDropIn(mqtt: s, web: nil)).contains("\nIPAddressAllow=203.0.113.7\n"))
    }
}
