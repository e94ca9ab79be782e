import IsletSystem

/// The page's bytes on the wire (docs/PERFORMANCE.md): what isletd sends for the page's files as
/// a browser asks for them, whole answers (status line, headers, body) counted. A first load:
/// `/`, the stylesheet, the script and the tab's icon the page names, and the manifest, each with
/// `Accept-Encoding: gzip, deflate`. A reload: the page and the manifest again with their ETags
/// (`If-None-Match`, a 304 each); the hashed assets are not asked again (cached for good).
/// The API's live data (/api/*) is not counted. nil when an answer is not the one expected.
struct WebWire {
    let client: WebClient

    func measure() -> (first: Int, reload: Int)? {
        let gzip = ["Accept-Encoding": "gzip, deflate"]
        // The names the page links to, from its identity (not counted: a browser gets them from the gzip).
        guard let plain = client.exchange("/", headers: [:]), plain.status == 200 else { return nil }
        let page = String(decoding: plain.body, as: UTF8.self)
        let linked = Self.linked(page)
        guard linked.count == 3, let home = client.exchange("/", headers: gzip), home.status == 200,
              let manifest = client.exchange("/manifest.webmanifest", headers: gzip), manifest.status == 200 else { return nil }
        var first = home.total + manifest.total
        for path in linked {
            guard let a = client.exchange(path, headers: gzip), a.status == 200 else { return nil }
            first += a.total
        }
        guard let pageTag = home.headers["etag"], let manifestTag = manifest.headers["etag"],
              let again = client.exchange("/", headers: gzip.merging(["If-None-Match": pageTag]) { $1 }), again.status == 304,
              let manifestAgain = client.exchange("/manifest.webmanifest", headers: gzip.merging(["If-None-Match": manifestTag]) { $1 }),
              manifestAgain.status == 304 else { return nil }
        return (first, again.total + manifestAgain.total)
    }

    /// The page's quoted addresses of the stylesheet, the script and the tab's icon: `"/app.…"`
    /// and `"/favicon.…"` (the home-screen icons are fetched only when installing).
    static func linked(_ page: String) -> [String] {
        page.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 && ($0.element.hasPrefix("/app.") || $0.element.hasPrefix("/favicon.")) }
            .map { String($0.element) }
    }
}

extension WebClient {
    /// One request on its own connection: the status, the headers (names in lower case), the
    /// body, and every byte of the answer.
    func exchange(_ path: String, headers: [String: String]) -> (status: Int, headers: [String: String], body: [UInt8], total: Int)? {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { request += "\(k): \(v)\r\n" }
        guard let fd = try? TCPClient.connect("127.0.0.1", port: port), (try? fd.sendAll(Array((request + "\r\n").utf8))) != nil else { return nil }
        var raw: [UInt8] = []
        while (try? fd.waitReadable(timeoutMs: 3000)) == true, let c = try? fd.receive(capacity: 65536), !c.isEmpty { raw += c }
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: [13, 10, 13, 10]) }) else { return nil }
        let lines = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n")
        guard let first = lines.first, first.split(separator: " ").count >= 2, let status = Int(first.split(separator: " ")[1]) else { return nil }
        var h: [String: String] = [:]
        for l in lines.dropFirst() {
            guard let colon = l.firstIndex(of: ":") else { continue }
            h[l[..<colon].lowercased()] = String(l[l.index(after: colon)...].drop(while: { $0 == " " }))
        }
        return (status, h, Array(raw[(end + 4)...]), raw.count)
    }
}
