import IsletSettings
import IsletSystem
import IsletMQTT
import IsletCore

/// `[mqtt]` as written in the config (docs/MQTT.md, "Configuration"). Secrets are read from
/// files when the daemon starts (`resolved`), never kept in the config's text.
public struct MQTTSettings: PartSettings, Hashable {
    public var url: BrokerURL?
    public var username: String?
    public var passwordFile: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var clientID: String?
    public var topicPrefix: String?
    public var keepaliveSeconds = 60
    public var discovery = true
    public var discoveryPrefix = "homeassistant"
    /// nil: the session's default timer and the timers the button map names.
    public var timers: [String]?
    public var commands = true
    /// What the systemd drop-in allows (IPAddressAllow=); nil: the broker's address, or a home
    /// network's ranges for a broker named by host name.
    public var allow: [String]?

    public init() {}

    public static let section = "mqtt"
    /// The link is made once: a changed broker waits for a restart.
    public static let reloads = false
    public static let keys = ["url", "username", "password_file", "ca_file", "cert_file", "key_file", "client_id",
                              "topic_prefix", "keepalive", "discovery", "discovery_prefix", "timers", "commands", "allow"]

    /// Sets one key; errors are the config's (file:line and what is accepted).
    public mutating func set(_ v: ConfigValue) throws(ConfigError) {
        let (key, value, origin) = (v.key, v.text, v.origin)
        func bad(_ accepted: String) -> ConfigError { v.bad(accepted) }
        func path() throws(ConfigError) -> String { try v.absolutePath() }
        func onOff() throws(ConfigError) -> Bool { try v.onOff() }
        switch key {
        case "url":
            switch BrokerURL.parse(value) {
            case .success(let u): url = u
            // The text is quoted with any user:password@ part masked: it goes to the journal.
            case .failure(let e): throw ConfigError(origin, "mqtt.url = \"\(BrokerURL.masked(value))\": \(e); accepted: \(BrokerURL.accepted)")
            }
        case "username":
            guard !value.isEmpty, value.utf8.count <= 256 else { throw bad("a user name of 1 to 256 bytes") }
            username = value
        case "password_file": passwordFile = try path()
        case "ca_file": caFile = try path()
        case "cert_file": certFile = try path()
        case "key_file": keyFile = try path()
        case "client_id":
            guard Self.isValidClientID(value) else { throw bad("1 to 64 of A-Z, a-z, 0-9, '_' and '-'") }
            clientID = value
        case "topic_prefix":
            if let why = MQTTTopics.problem(withPrefix: value) { throw bad("a topic such as islet/desk (\(why))") }
            topicPrefix = value
        case "keepalive":
            guard let k = Int(value), (5...3600).contains(k) else { throw bad("a whole number of seconds from 5 to 3600") }
            keepaliveSeconds = k
        case "discovery": discovery = try onOff()
        case "discovery_prefix":
            if let why = MQTTTopics.problem(withPrefix: value) { throw bad("a topic such as homeassistant (\(why))") }
            discoveryPrefix = value
        case "timers":
            let list = value.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            for t in list where !ActivityAttributes.isValidTimerID(t) {
                throw bad("timer ids separated by commas, each \(ActivityAttributes.timerIDRule) (\"\(t.prefix(80))\" is not)")
            }
            timers = list
        case "commands": commands = try onOff()
        case "allow":
            let list = value.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            guard !list.isEmpty, list.allSatisfy(NetworkNeed.isValidAllowEntry) else {
                throw bad("addresses or ranges for the systemd unit, e.g. 192.168.1.10 or 192.168.0.0/16, fd00::/8, localhost, or any")
            }
            allow = list
        default:
            throw ConfigValue.unknownKey(key, section: Self.section, known: Self.keys, origin: origin)
        }
    }

    public static func isValidClientID(_ s: String) -> Bool {
        (1...64).contains(s.count) && s.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" }
    }

    /// What needs the keys together and the files on disk; `origin(key)` names where a key
    /// was set.
    public func validate(_ all: PartSections, origin: (String) -> String) throws(ConfigError) {
        guard let url else { throw ConfigError(origin("mqtt"), "[mqtt] needs url = mqtt://host[:port] (or remove the section)") }
        if (certFile == nil) != (keyFile == nil) {
            throw ConfigError(origin(certFile == nil ? "mqtt.key_file" : "mqtt.cert_file"), "mqtt.cert_file and mqtt.key_file go together: set both or neither")
        }
        if !url.tls, caFile != nil || certFile != nil {
            throw ConfigError(origin(caFile != nil ? "mqtt.ca_file" : "mqtt.cert_file"), "TLS files are set but the url is mqtt://; use mqtts:// for TLS")
        }
        if passwordFile != nil, username == nil {
            throw ConfigError(origin("mqtt.password_file"), "mqtt.password_file needs mqtt.username")
        }
        if let p = passwordFile { _ = try SecretFile.password(p, origin: origin("mqtt.password_file"), key: "mqtt.password_file") }
        if let k = keyFile { _ = try SecretFile.checkPrivate(k, origin: origin("mqtt.key_file"), key: "mqtt.key_file") }
        for (key, path) in [("ca_file", caFile), ("cert_file", certFile)] {
            if let path { try SecretFile.checkReadable(path, origin: origin("mqtt.\(key)"), key: "mqtt.\(key)") }
        }
    }

    /// The broker's address, or for a broker named by host name the ranges where a home's
    /// broker and DNS server live (or `allow`).
    public var network: NetworkNeed? {
        guard let url else { return nil }
        let (reason, reach) = ("[mqtt] url = \(url)", "the broker \(url)")
        if let list = allow { return NetworkNeed(families: ["AF_INET", "AF_INET6"], allowed: list, reason: reason, reach: reach) }
        if url.isNumeric {
            return NetworkNeed(families: [url.host.contains(":") ? "AF_INET6" : "AF_INET"], allowed: [url.host], reason: reason, reach: reach)
        }
        return NetworkNeed(families: ["AF_INET", "AF_INET6"], allowed: NetworkNeed.homeRanges, reason: reason, reach: reach)
    }
}

/// `[mqtt]` with the defaults filled in and the password read: what the bridge runs with.
public struct MQTTPlan: Sendable {
    public var url: BrokerURL
    public var options: MQTTOptions
    public var topics: MQTTTopics
    public var settings: MQTTSettings

    public init(_ s: MQTTSettings, url: BrokerURL, password: String?, machineID: [UInt8]?) {
        settings = s
        self.url = url
        let id = s.clientID ?? Self.defaultClientID(machineID: machineID)
        topics = MQTTTopics(prefix: s.topicPrefix ?? "islet/\(id)")
        var o = MQTTOptions(host: url.host, port: url.port, tls: url.tls, clientID: id, keepaliveSeconds: s.keepaliveSeconds)
        o.username = s.username
        o.password = password
        o.caFile = s.caFile
        o.certFile = s.certFile
        o.keyFile = s.keyFile
        o.willTopic = topics.availability
        o.willPayload = Array("offline".utf8)
        options = o
    }

    public var clientID: String { options.clientID }

    /// `islet-` and 12 hex digits of a hash of /etc/machine-id: stable for the machine,
    /// different on two Pis that share a host name, and not the machine id itself (which
    /// systemd asks applications not to expose). Without a machine id: `islet`.
    public static func defaultClientID(machineID: [UInt8]?) -> String {
        guard let m = machineID, !m.isEmpty else { return "islet" }
        // FNV-1a, 64-bit, over a prefix of our own and the id.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in Array("islet-mqtt-client:".utf8) + m {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return "islet-" + String((String(repeating: "0", count: 16 - hex.count) + hex).prefix(12))
    }

    /// /etc/machine-id's text (its 32 hex digits), nil when absent.
    public static func readMachineID(_ path: String = "/etc/machine-id") -> [UInt8]? {
        guard case .success(let b) = FileSystem.readFile(path, limit: 256) else { return nil }
        let id = b.filter { $0 != 10 && $0 != 13 && $0 != 32 }
        return id.isEmpty ? nil : id
    }
}
