import IsletSettings
import IsletSystem

/// Where the web page listens: an address literal and a port (docs/WEB.md, "Configuration").
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 or IPv6 literal, without brackets.
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var isIPv6: Bool { host.contains(":") }

    /// 127.0.0.0/8 or ::1: reachable from this machine only.
    public var isLoopback: Bool {
        if isIPv6 { return host == "::1" || host == "0:0:0:0:0:0:0:1" }
        return host.hasPrefix("127.")
    }

    /// `0.0.0.0` or `::`: every address of the machine.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static let accepted = "ADDRESS:PORT with an IPv4 or IPv6 address literal, e.g. 127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080 or [::]:8080"

    /// `127.0.0.1:8080`, `[::1]:8080`; nil when it is anything else (a host name is not taken:
    /// the unit's firewall and the rebinding check need the address).
    public static func parse(_ text: String) -> ListenAddress? {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            port = rest.dropFirst()
            guard isIPv6Literal(host) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard isIPv4Literal(host) else { return nil }
        }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
              let p = UInt16(port), p > 0 else { return nil }
        return ListenAddress(host: String(host), port: p)
    }

    public static func isIPv4Literal<S: StringProtocol>(_ s: S) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } && UInt8($0) != nil }
    }

    public static func isIPv6Literal<S: StringProtocol>(_ s: S) -> Bool {
        guard (2...45).contains(s.count), s.contains(":") else { return false }
        guard s.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        let doubles = s.components(of: "::")
        guard doubles <= 1 else { return false }
        let groups = s.split(separator: ":", omittingEmptySubsequences: true)
        return groups.count <= 8 && groups.allSatisfy { $0.count <= 4 || isIPv4Literal($0) }
    }
}

extension StringProtocol {
    /// How often `needle` occurs, without overlaps.
    fileprivate func components(of needle: String) -> Int {
        var n = 0
        var rest = self[...]
        while let r = rest.firstRange(of: needle) {
            n += 1
            rest = rest[r.upperBound...]
        }
        return n
    }
}

/// `[web]` as written in the config (docs/WEB.md): off unless the section is there.
public struct WebSettings: PartSettings, Hashable {
    public var listen = ListenAddress(host: "127.0.0.1", port: 8080)
    public var passwordFile: String?
    /// The page shows; nothing changes.
    public var readOnly = false
    /// Names the page may be reached by besides address literals, localhost and the machine's
    /// own name (with and without `.local`).
    public var hostnames: [String] = []
    /// What the systemd drop-in allows (IPAddressAllow=); nil: the listen address's own
    /// range (loopback), or the home ranges.
    public var allow: [String]?
    public var certFile: String?
    public var keyFile: String?

    public init() {}

    public static let section = "web"
    /// The page listens from the start: a changed or added `[web]` waits for a restart.
    public static let reloads = false
    public static let keys = ["listen", "password_file", "read_only", "hostnames", "allow", "cert_file", "key_file"]
    /// At most this many `hostnames` (each is compared with every request's Host).
    public static let maximumHostnames = 16

    public mutating func set(_ v: ConfigValue) throws(ConfigError) {
        let (key, value, origin) = (v.key, v.text, v.origin)
        func bad(_ accepted: String) -> ConfigError { v.bad(accepted) }
        func path() throws(ConfigError) -> String { try v.absolutePath() }
        switch key {
        case "listen":
            guard let a = ListenAddress.parse(value) else { throw bad(ListenAddress.accepted) }
            listen = a
        case "password_file": passwordFile = try path()
        case "read_only": readOnly = try v.onOff()
        case "hostnames":
            let list = value.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
            guard !list.isEmpty, list.count <= Self.maximumHostnames, list.allSatisfy(Self.isHostName) else {
                throw bad("up to \(Self.maximumHostnames) host names separated by commas, e.g. islet.example.net, desk.lan")
            }
            hostnames = list
        case "allow":
            let list = value.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            guard !list.isEmpty, list.allSatisfy(NetworkNeed.isValidAllowEntry) else {
                throw bad("addresses or ranges for the systemd unit, e.g. 192.168.0.0/16, fd00::/8, localhost, or any")
            }
            allow = list
        case "cert_file": certFile = try path()
        case "key_file": keyFile = try path()
        default:
            throw ConfigValue.unknownKey(key, section: Self.section, known: Self.keys, origin: origin)
        }
    }

    /// A DNS name: labels of letters, digits and hyphens, dot-separated, at most 253 bytes.
    static func isHostName(_ s: String) -> Bool {
        guard (1...253).contains(s.utf8.count) else { return false }
        return s.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// What needs the keys together and the files on disk.
    public func validate(_ all: PartSections, origin: (String) -> String) throws(ConfigError) {
        if !listen.isLoopback, passwordFile == nil, !readOnly {
            throw ConfigError(origin("web.listen"),
                              "web.listen = \(listen) reaches beyond this machine, and without a password anyone on the network could drive the timer: set web.password_file (a file holding the password, mode 0640 group islet), or read_only = on, or listen on 127.0.0.1")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw ConfigError(origin(certFile == nil ? "web.key_file" : "web.cert_file"), "web.cert_file and web.key_file go together: set both or neither")
        }
        if let p = passwordFile { _ = try SecretFile.password(p, origin: origin("web.password_file"), key: "web.password_file") }
        if let k = keyFile { _ = try SecretFile.checkPrivate(k, origin: origin("web.key_file"), key: "web.key_file") }
        if let c = certFile { try SecretFile.checkReadable(c, origin: origin("web.cert_file"), key: "web.cert_file") }
        if let c = certFile, let k = keyFile { try TLSPair.check(cert: c, key: k, origin: origin) }
    }

    /// A page that can act without a password (on loopback: the config allows no other) admits
    /// only the users the control socket admits (docs/WEB.md "Security").
    public var checksPeers: Bool { passwordFile == nil && !readOnly && listen.isLoopback }

    /// The listen address's family; loopback alone, the `allow` list, or a home's ranges. A
    /// page without a password admits only the socket's group: it asks the kernel (a
    /// NETLINK_SOCK_DIAG socket) who owns each client's socket.
    public var network: NetworkNeed? {
        let family = listen.isIPv6 ? "AF_INET6" : "AF_INET"
        // `[::]` takes IPv4 clients too (as mapped addresses): the socket is AF_INET6 alone.
        let allowed = allow ?? (listen.isLoopback ? ["localhost"] : NetworkNeed.homeRanges)
        return NetworkNeed(families: [family] + (checksPeers ? ["AF_NETLINK"] : []), allowed: allowed, reason: "[web] listen = \(listen)",
                           reach: "the page's clients on \(listen)")
    }

    public var checkSummary: String? { "web page on \(listen)" + (readOnly ? " (read only)" : "") }

    /// Whether the page is served over HTTPS.
    public var tls: Bool { certFile != nil }

    /// The page's address as a person types it (`status.web.url`, Home Assistant's
    /// `configuration_url`): the listen address, or for a wildcard listen the machine's name
    /// with `.local` (mDNS; a name that already has a dot is taken as it is), or `localhost`
    /// when the machine has no name.
    public func pageURL(machineName: String) -> String {
        let host: String
        if listen.isWildcard {
            host = machineName.isEmpty ? "localhost" : machineName.contains(".") ? machineName : machineName + ".local"
        } else {
            host = listen.isIPv6 ? "[\(listen.host)]" : listen.host
        }
        return "\(tls ? "https" : "http")://\(host):\(listen.port)/"
    }

    /// The page's address for another machine (Home Assistant's `configuration_url`, whose
    /// "Visit" opens in the Home Assistant user's browser): nil when the page listens on loopback
    /// (reachable from this machine only, so no address would work there). Its host is the first
    /// of `hostnames`, else the machine's name with `.local` (mDNS; a name with a dot as it is),
    /// else, with no name, a listen address that is not the wildcard; otherwise nil.
    public func advertisedURL(machineName: String) -> String? {
        guard !listen.isLoopback else { return nil }
        let host: String
        if let first = hostnames.first {
            host = first
        } else if !machineName.isEmpty {
            host = machineName.contains(".") ? machineName : machineName + ".local"
        } else if !listen.isWildcard {
            host = listen.isIPv6 ? "[\(listen.host)]" : listen.host
        } else {
            return nil
        }
        return "\(tls ? "https" : "http")://\(host):\(listen.port)/"
    }
}

/// The page's two addresses, worked out once at start: on this machine, and for another one.
struct PageAddress: Sendable {
    let url: String
    let advertised: String?
}
