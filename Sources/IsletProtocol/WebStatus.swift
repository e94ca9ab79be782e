/// The web page's server, as `status` reports it (docs/WEB.md).
public struct WebStatus: Codable, Sendable, Hashable {
    /// Where it listens (`127.0.0.1:8080`, `[::]:8080`) and the page's address for a person.
    public var listen: String
    public var url: String
    public var tls: Bool
    public var readOnly: Bool
    public var password: Bool
    /// Connections open now, and event streams among them.
    public var connections: Int
    public var streams: Int
    /// Requests answered since start, and those refused, by why.
    public var requests: Int
    public var refused: [String: Int]

    package init(listen: String, url: String, tls: Bool, readOnly: Bool, password: Bool, connections: Int, streams: Int,
                 requests: Int, refused: [String: Int]) {
        self.listen = listen
        self.url = url
        self.tls = tls
        self.readOnly = readOnly
        self.password = password
        self.connections = connections
        self.streams = streams
        self.requests = requests
        self.refused = refused
    }

    enum CodingKeys: String, CodingKey {
        case listen, url, tls, readOnly = "read_only", password, connections, streams, requests, refused
    }

    /// One line for `isletctl status`.
    public var line: String {
        let refusedTotal = refused.values.reduce(0, +)
        var s = "web page \(url)" + (readOnly ? " (read only)" : "") + (password ? ", password" : ", no password")
        s += "; \(connections) connection(s), \(streams) stream(s), \(requests) request(s)"
        if refusedTotal > 0 {
            s += ", refused \(refusedTotal) (" + refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        return s
    }
}
