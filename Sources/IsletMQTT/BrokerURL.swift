/// `[mqtt] url`: `mqtt://host[:port]` or `mqtts://host[:port]`, host a name, an IPv4
/// address or a bracketed IPv6 address. Credentials have keys of their own (never in a URL,
/// which ends up in logs and `status`).
public struct BrokerURL: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public static let accepted = "mqtt://host[:port] or mqtts://host[:port] (host a name, an IPv4 address or [IPv6])"

    /// Parses `text`; the reason it is not a broker URL otherwise.
    public static func parse(_ text: String) -> Result<BrokerURL, BrokerURLError> {
        func bad(_ why: String) -> Result<BrokerURL, BrokerURLError> { .failure(BrokerURLError(why)) }
        let tls: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") { tls = false; rest = text.dropFirst(7) }
        else if text.hasPrefix("mqtts://") { tls = true; rest = text.dropFirst(8) }
        else { return bad("the scheme must be mqtt:// or mqtts://") }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("@") { return bad("put the user name in `username` and the password in `password_file`, not in the URL") }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") { return bad("a broker URL has no path, query or fragment") }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return bad("an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return bad("expected :port after the IPv6 address") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return bad("\"\(host)\" is not an IPv6 address")
            }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
            guard !host.isEmpty else { return bad("the URL names no host") }
            guard host.count <= 253, host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }),
                  !host.hasPrefix("-"), !host.hasPrefix(".") else {
                return bad("\"\(host)\" is not a host name or address (letters, digits, '-' and '.')")
            }
        }
        var port = tls ? 8883 : 1883
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { return bad("the port must be 1 to 65535 (got \"\(portText)\")") }
            port = p
        }
        return .success(BrokerURL(host: String(host), port: port, tls: tls))
    }

    /// `text` fit for a log: a `user:password@` part (refused, but written) becomes `***@`.
    public static func masked(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.firstRange(of: "://")?.upperBound ?? text.startIndex
        guard start <= at else { return "***" + text[text.index(after: at)...] }
        return text[..<start] + "***" + text[at...]
    }

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// Whether the host is an address already (no name to resolve, so no DNS needed).
    public var isNumeric: Bool {
        host.contains(":") || (host.split(separator: ".", omittingEmptySubsequences: false).count == 4
            && host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { UInt8($0) != nil })
    }

    public var description: String {
        "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

public struct BrokerURLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
