/// How an asset is answered (docs/WEB.md "Delivery"), pure: gzip when the request's
/// Accept-Encoding allows it, 304 when its If-None-Match names what it has, and the cache rule:
/// a hashed name for good, anything else (the page, the plain names) revalidated every time.
package enum AssetAnswer {
    /// An asset by its hashed name: the name changes when a byte does. (No `public`: nothing here
    /// is asked with Authorization, the one case it changes.)
    package static let forGood = "max-age=31536000, immutable"
    /// The page and the plain names: kept, but asked again every time (a 304 costs headers).
    package static let revalidate = "no-cache"

    /// Whether `asset` is read as a document or a worker, whose policy comes from its own answer
    /// (the page, sw.js): only those need the CSP, X-Frame-Options and Referrer-Policy, which a
    /// stylesheet, a script, an image or a manifest ignore (nosniff goes on every answer anyway).
    package static func needsPolicy(_ asset: PageAsset) -> Bool {
        asset.type.hasPrefix("text/html") || asset.address == "/sw.js"
    }

    /// The status (200 or 304), headers and body for `asset` asked for as `hashed`.
    package static func make(_ asset: PageAsset, hashed: Bool, acceptEncoding: String?, ifNoneMatch: String?) -> HTTPAnswer {
        let gzip = asset.gzip != nil && acceptsGzip(acceptEncoding)
        let tag = "\"\(asset.hash)\(gzip ? "-gzip" : "")\""
        var headers: [(String, String)] = [("Cache-Control", hashed ? forGood : revalidate)]
        // A hashed name is never asked again, so its tag would be bytes for nothing.
        if !hashed { headers.append(("ETag", tag)) }
        if asset.gzip != nil { headers.append(("Vary", "Accept-Encoding")) }
        if !hashed && matches(ifNoneMatch, tag) { return HTTPAnswer(status: 304, headers: headers, body: .bytes([])) }
        headers.insert(("Content-Type", asset.type), at: 0)
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        return HTTPAnswer(status: 200, headers: headers, body: .bytes(gzip ? asset.gzip ?? asset.identity : asset.identity))
    }

    /// Whether `header` (Accept-Encoding, RFC 9110 §12.5.3) takes gzip: named (or `x-gzip`) with
    /// a q above 0, or not named and `*` above 0. Absent, empty or unreadable: no. Bounded: the
    /// first 1,024 bytes and 32 entries are read.
    package static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var gzip: Bool?
        var star: Bool?
        for entry in header.utf8.prefix(1024).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true).prefix(32) {
            let parts = entry.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            let coding = String(decoding: parts[0], as: UTF8.self).trimmingBlanks().lowercased()
            var weight = true
            for p in parts.dropFirst() {
                let param = String(decoding: p, as: UTF8.self).trimmingBlanks().lowercased()
                guard param.hasPrefix("q=") else { continue }
                weight = positive(String(param.dropFirst(2)))
            }
            switch coding {
            case "gzip", "x-gzip": gzip = weight
            case "*": star = weight
            default: break
            }
        }
        return gzip ?? star ?? false
    }

    /// A qvalue (`0`, `0.5`, `1.000`) above zero; one that is not a qvalue counts as zero.
    static func positive(_ q: String) -> Bool {
        let b = Array(q.utf8)
        guard let first = b.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1"), b.count <= 5 else { return false }
        if b.count == 1 { return first == UInt8(ascii: "1") }
        guard b[1] == UInt8(ascii: "."), b.dropFirst(2).allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        if first == UInt8(ascii: "1") { return b.dropFirst(2).allSatisfy { $0 == UInt8(ascii: "0") } }
        return b.dropFirst(2).contains { $0 != UInt8(ascii: "0") }
    }

    /// If-None-Match (RFC 9110 §13.1.2): `*`, or a list of tags one of which is `tag`, compared
    /// weakly (a `W/` prefix ignored). Bounded like Accept-Encoding.
    package static func matches(_ header: String?, _ tag: String) -> Bool {
        guard let header else { return false }
        for entry in header.utf8.prefix(1024).split(separator: UInt8(ascii: ",")).prefix(32) {
            var t = String(decoding: entry, as: UTF8.self).trimmingBlanks()
            if t == "*" { return true }
            if t.hasPrefix("W/") { t = String(t.dropFirst(2)) }
            if t == tag { return true }
        }
        return false
    }
}

extension String {
    /// Without the spaces and tabs at either end (an HTTP header's optional whitespace).
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
