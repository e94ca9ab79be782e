import Testing
import Foundation
import IsletWeb

/// Issue 47 §5 over real TCP to libmicrohttpd: the page revalidated (ETag, 304), its assets under
/// hashed names cached for good and gzipped when asked, the old plain names still answered, the
/// icons and the manifest served, and the API still never kept.
extension WebPageTests {
    @Test("the page and its assets: hashed names cached for good, gzip when accepted, 304 on a reload, the CSP kept")
    func delivery() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        let gz = ["Accept-Encoding": "gzip, deflate"]
        let page = try Self.http("GET", "/", headers: gz)
        #expect(page.status == 200 && page.headers["content-encoding"] == "gzip" && page.body.starts(with: [0x1F, 0x8B]))
        #expect(page.headers["cache-control"] == "no-cache" && page.headers["vary"] == "Accept-Encoding")
        #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true)
        let tag = try #require(page.headers["etag"])
        let again = try Self.http("GET", "/", headers: gz.merging(["If-None-Match": tag]) { $1 })
        #expect(again.status == 304 && again.body.isEmpty && again.headers["etag"] == tag, "\(again.status)")
        let plain = try Self.http("GET", "/", headers: ["Accept-Encoding": "gzip;q=0"])
        #expect(plain.status == 200 && plain.headers["content-encoding"] == nil && plain.headers["etag"] != tag)
        let script = try #require(plain.text.firstMatch(of: #/src="(/app\.[0-9a-f]{12}\.js)"/#)?.output.1)
        let js = try Self.http("GET", String(script), headers: gz)
        #expect(js.status == 200 && js.headers["cache-control"] == "max-age=31536000, immutable")
        #expect(js.headers["content-type"] == "text/javascript; charset=utf-8" && js.headers["content-encoding"] == "gzip")
        let old = try Self.http("GET", "/app.js")
        #expect(old.status == 200 && old.headers["cache-control"] == "no-cache" && old.headers["content-encoding"] == nil)
        #expect(old.body == PageAssets.find("/app.js")?.asset.identity)
        let ico = try Self.http("GET", "/favicon.ico")
        #expect(ico.status == 200 && ico.headers["content-type"] == "image/x-icon" && ico.body.starts(with: [0, 0, 1, 0]))
        let manifest = try Self.http("GET", "/manifest.webmanifest")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(manifest.body)) as? [String: Any])
        #expect(manifest.headers["content-type"] == "application/manifest+json" && json["display"] as? String == "standalone")
        #expect(try Self.http("GET", "/api/status").headers["cache-control"] == "no-store")
        #expect(try Self.http("GET", "/app.0123456789ab.js").status == 404)
    }

    @Test("the policy headers on what is read as a document or a worker (the page, sw.js, the API); nosniff on every answer; no ETag on a hashed name")
    func policyWhereItActs() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        let csp = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        var asked: [String] = []
        for a in PageAssets.all {
            for (path, hashed) in [(a.address, false)] + (a.immutable ? [(a.path, true)] : []) {
                let got = try Self.http("GET", path, headers: ["Accept-Encoding": "gzip"])
                asked.append(path)
                #expect(got.status == 200 && got.headers["x-content-type-options"] == "nosniff", "\(path): \(got.headers)")
                let document = path == "/" || path == "/sw.js"
                #expect((got.headers["content-security-policy"] == csp) == document, "\(path): CSP \(got.headers["content-security-policy"] ?? "none")")
                #expect((got.headers["x-frame-options"] == "DENY") == document && (got.headers["referrer-policy"] == "no-referrer") == document, "\(path)")
                #expect((got.headers["etag"] == nil) == hashed, "\(path): ETag \(got.headers["etag"] ?? "none")")
            }
        }
        #expect(asked.contains("/") && asked.contains("/sw.js") && asked.contains("/manifest.webmanifest"), "\(asked)")
        for path in ["/api/status", "/api/session", "/no-such-file"] {
            let got = try Self.http("GET", path)
            #expect(got.headers["content-security-policy"] == csp && got.headers["x-content-type-options"] == "nosniff", "\(path): \(got.headers)")
        }
        // A 304 of the page keeps them too.
        let tag = try #require(try Self.http("GET", "/").headers["etag"])
        let again = try Self.http("GET", "/", headers: ["If-None-Match": tag])
        #expect(again.status == 304 && again.headers["content-security-policy"] == csp && again.headers["x-content-type-options"] == "nosniff")
    }

    @Test("HEAD answers as GET without the body; another method gets 405 naming what the address takes (RFC 9110)")
    func methods() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        let get = try Self.http("GET", "/")
        let head = try Self.http("HEAD", "/")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers["etag"] == get.headers["etag"] && head.headers["content-length"] == String(get.body.count))
        for (method, path, allowed) in [("DELETE", "/app.js", "GET, HEAD"), ("POST", "/", "GET, HEAD"),
                                        ("GET", "/api/request", "POST"), ("GET", "/api/login", "POST"),
                                        ("PUT", "/api/status", "GET"), ("POST", "/api/session", "GET")] {
            let a = try Self.http(method, path)
            #expect(a.status == 405 && a.headers["allow"] == allowed, "\(method) \(path): \(a.status) \(a.headers["allow"] ?? "no Allow")")
        }
    }
}
