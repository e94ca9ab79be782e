// The web page's own decisions on bytes from anyone (docs/WEB.md "Security", "Threat model and
// bounds"): the Host and Origin headers, the session cookie, the login body and password, from
// many addresses; the framing of a request's headers; each address's pace; Accept-Encoding and
// If-None-Match, and a path looked up among the page's files.
// libmicrohttpd parses HTTP itself; the control request a POST carries is the `protocol` target.
import IsletSystem
import IsletConfig
import IsletProtocol
import IsletWeb

enum WebTarget {
    static let password = Array("correct horse battery".utf8)

    /// Each line of the input is one header value, cookie and password guess at once.
    static func run(_ bytes: [UInt8]) {
        var settings = WebSettings()
        settings.hostnames = ["islet.example.net"]
        var g = WebGuard(settings: settings, machineName: "desk", password: String(decoding: password, as: UTF8.self))
        var mono = MonotonicInstant(nanoseconds: 5_000_000_000_000)
        var admission = WebAdmission()
        var headers: [(String, String)] = []
        var n = 0
        let token = { () throws(SystemError) -> String in
            n += 1
            let digits = String(n)
            return String(repeating: "0", count: 64 - digits.count) + digits
        }
        for (i, m) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(256).enumerated() {
            let line = Array(m)
            let text = String(decoding: line, as: UTF8.self)
            mono = mono.adding(milliseconds: Int64(line.first ?? 0) * 250)
            // An accepted name is plain: nothing that could end a header or a log line early.
            if g.acceptsHost(text), !text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || ".:[]-".unicodeScalars.contains($0)) }) {
                fail("web: the host \(Array(text.utf8)) was accepted")
            }
            if g.acceptsOrigin(text, host: "desk.local:8080"), text.lowercased() != "http://desk.local:8080" {
                fail("web: the origin \(Array(text.utf8)) was accepted for desk.local:8080")
            }
            if g.admits(text, at: mono), text.utf8.count != 64 { fail("web: a cookie of \(text.utf8.count) bytes was taken") }
            // The asset headers (docs/WEB.md "Delivery"): gzip only when gzip or `*` is named, a
            // 304 only for the tag or `*`, and any path looked up without a trap.
            if AssetAnswer.acceptsGzip(text), !text.lowercased().contains("gzip"), !text.contains("*") {
                fail("web: Accept-Encoding \(Array(text.utf8)) took gzip")
            }
            if AssetAnswer.matches(text, "\"0123456789abcdef\""), !text.contains("\"0123456789abcdef\""), !text.contains("*") {
                fail("web: If-None-Match \(Array(text.utf8)) matched another tag")
            }
            _ = PageAssets.find(text)
            // The page's login body, then the guess itself, from one of a few addresses.
            _ = try? StrictJSON.parse(line)
            let address = "192.0.2.\((line.last ?? 0) % 8)"
            let (outcome, _) = g.login(line, from: address, at: mono, token: token)
            if case .accepted = outcome, line != password { fail("web: a wrong password opened a session") }
            if i % 16 == 15 { _ = g.login(password, from: "198.51.100.\(i % 200)", at: mono, token: token) }
            // The line as a header ("Name: value"), added to the request's headers so far.
            if let colon = text.firstIndex(of: ":") {
                headers.append((String(text[..<colon]), String(text[text.index(after: colon)...])))
                framing(headers)
            }
            _ = admission.take(address + ".\(i % 300)", at: mono)
            if admission.addressCount > WebAdmission.maximumAddresses { fail("web: \(admission.addressCount) addresses paced") }
        }
        if g.sessionCount > WebGuard.maximumSessions { fail("web: \(g.sessionCount) sessions kept") }
    }

    /// RFC 9112 §6.3: what is taken has one Host, one length or chunked alone, within the bound.
    static func framing(_ headers: [(String, String)]) {
        func count(_ name: String) -> Int { headers.count { $0.0.lowercased() == name.lowercased() } }
        func value(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        let verdict = RequestFraming.check(count: count, value: value, maximumBody: 16 * 1024)
        guard verdict == .fine else { return }
        if count("Host") > 1 || count("Content-Length") > 1 || count("Transfer-Encoding") > 1 {
            fail("web: a request with repeated framing headers was taken: \(headers.map(\.0))")
        }
        if count("Transfer-Encoding") == 1, count("Content-Length") == 1 { fail("web: Transfer-Encoding beside Content-Length was taken") }
        if let length = value("Content-Length"), let n = Int(length.filter { $0 != " " && $0 != "\t" }), n > 16 * 1024 {
            fail("web: a Content-Length of \(n) was taken")
        }
    }
}
