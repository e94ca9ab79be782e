import Testing
import IsletWeb

/// Issue 47 §5: gzip only when Accept-Encoding takes it (RFC 9110 §12.5.3, q=0 meaning "not"),
/// 304 when If-None-Match names the tag (§13.1.2, compared weakly), a hashed name cached for
/// good and anything else revalidated.
@Suite("answering an asset")
struct AssetAnswerTests {
    static let asset = PageAsset(address: "/app.js", path: "/app.0123456789ab.js", type: "text/javascript; charset=utf-8",
                                 immutable: true, hash: "0123456789abcdef", identity: Array("plain".utf8), gzip: [0x1F, 0x8B, 1])
    static let image = PageAsset(address: "/favicon.png", path: "/favicon.0123456789ab.png", type: "image/png",
                                 immutable: true, hash: "fedcba9876543210", identity: [0x89, 0x50], gzip: nil)

    @Test("Accept-Encoding: gzip taken when named or starred above q=0, never at q=0 or when unreadable", arguments: [
        (nil, false), ("", false), ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip, br", true),
        ("gzip;q=0", false), ("gzip; q=0.0", false), ("gzip;q=0.000", false), ("gzip;q=0.001", true), ("gzip;Q=1", true),
        ("gzip;q=1.0", true), ("gzip;q=1.5", false), ("gzip;q=2", false), ("gzip;q=abc", false), ("gzip;q=", false),
        ("*", true), ("*;q=0", false), ("br, *;q=0.1", true), ("gzip;q=0, *", false), ("*;q=0, gzip", true),
        ("identity", false), ("deflate", false), ("gzipx", false), (" gzip ; q=0.5 ", true),
    ] as [(String?, Bool)])
    func negotiation(_ header: String?, _ takes: Bool) {
        #expect(AssetAnswer.acceptsGzip(header) == takes, "\(header ?? "nil")")
    }

    @Test("a header of 10,000 entries is read up to its bound and answered")
    func bounded() {
        #expect(AssetAnswer.acceptsGzip(String(repeating: "br, ", count: 10_000) + "gzip") == false)
        #expect(AssetAnswer.matches(String(repeating: "\"x\", ", count: 10_000) + "*", "\"y\"") == false)
    }

    static func header(_ a: HTTPAnswer, _ name: String) -> String? { a.headers.first { $0.0 == name }?.1 }

    @Test("a hashed name: cached for good with no tag (never asked again); gzip with Vary; identity otherwise")
    func hashed() {
        let gz = AssetAnswer.make(Self.asset, hashed: true, acceptEncoding: "gzip, deflate", ifNoneMatch: nil)
        #expect(gz.status == 200 && Self.header(gz, "Cache-Control") == "max-age=31536000, immutable")
        #expect(Self.header(gz, "Content-Encoding") == "gzip" && Self.header(gz, "Vary") == "Accept-Encoding")
        #expect(Self.header(gz, "ETag") == nil && Self.header(gz, "Content-Type") == "text/javascript; charset=utf-8")
        guard case .bytes(let packed) = gz.body else { Issue.record("not bytes"); return }
        #expect(packed == [0x1F, 0x8B, 1])
        let plain = AssetAnswer.make(Self.asset, hashed: true, acceptEncoding: "gzip;q=0", ifNoneMatch: nil)
        #expect(Self.header(plain, "Content-Encoding") == nil && Self.header(plain, "Vary") == "Accept-Encoding")
        #expect(Self.header(plain, "ETag") == nil)
        // Even asked with its tag, a hashed name answers whole: nothing to compare it with.
        #expect(AssetAnswer.make(Self.asset, hashed: true, acceptEncoding: nil, ifNoneMatch: "\"0123456789abcdef\"").status == 200)
        guard case .bytes(let bytes) = plain.body else { Issue.record("not bytes"); return }
        #expect(bytes == Array("plain".utf8))
    }

    @Test("a plain name and the page: revalidated; 304 with no body when If-None-Match names the tag")
    func revalidated() {
        let first = AssetAnswer.make(Self.asset, hashed: false, acceptEncoding: "gzip", ifNoneMatch: nil)
        #expect(first.status == 200 && Self.header(first, "Cache-Control") == "no-cache")
        for tags in ["\"0123456789abcdef-gzip\"", "W/\"0123456789abcdef-gzip\"", "\"other\", \"0123456789abcdef-gzip\"", "*"] {
            let again = AssetAnswer.make(Self.asset, hashed: false, acceptEncoding: "gzip", ifNoneMatch: tags)
            #expect(again.status == 304 && Self.header(again, "ETag") == "\"0123456789abcdef-gzip\"", "\(tags)")
            #expect(Self.header(again, "Content-Type") == nil && Self.header(again, "Cache-Control") == "no-cache")
            guard case .bytes(let b) = again.body else { Issue.record("not bytes"); return }
            #expect(b.isEmpty)
        }
        // The identity's tag does not stand for the gzip (a strong tag per representation).
        #expect(AssetAnswer.make(Self.asset, hashed: false, acceptEncoding: "gzip", ifNoneMatch: "\"0123456789abcdef\"").status == 200)
        #expect(AssetAnswer.make(Self.asset, hashed: false, acceptEncoding: nil, ifNoneMatch: "\"0123456789abcdef\"").status == 304)
        #expect(AssetAnswer.make(Self.asset, hashed: false, acceptEncoding: nil, ifNoneMatch: "\"0123456789abcde\"").status == 200)
    }

    @Test("an image is never gzipped again and varies on nothing")
    func image() {
        let a = AssetAnswer.make(Self.image, hashed: true, acceptEncoding: "gzip", ifNoneMatch: nil)
        #expect(a.status == 200 && Self.header(a, "Content-Encoding") == nil && Self.header(a, "Vary") == nil)
        #expect(Self.header(a, "Content-Type") == "image/png" && Self.header(a, "ETag") == nil)
        let plain = AssetAnswer.make(Self.image, hashed: false, acceptEncoding: "gzip", ifNoneMatch: nil)
        #expect(Self.header(plain, "ETag") == "\"fedcba9876543210\"" && Self.header(plain, "Vary") == nil)
    }

    @Test("the policy headers go with what a browser reads as a document or a worker: the page and sw.js")
    func policy() {
        func asset(_ address: String, _ type: String) -> PageAsset {
            PageAsset(address: address, path: address, type: type, immutable: false, hash: "0", identity: [], gzip: nil)
        }
        #expect(AssetAnswer.needsPolicy(asset("/", "text/html; charset=utf-8")))
        #expect(AssetAnswer.needsPolicy(asset("/sw.js", "text/javascript; charset=utf-8")))
        #expect(!AssetAnswer.needsPolicy(Self.asset) && !AssetAnswer.needsPolicy(Self.image))
        #expect(!AssetAnswer.needsPolicy(asset("/manifest.webmanifest", "application/manifest+json")))
        #expect(!AssetAnswer.needsPolicy(asset("/app.css", "text/css; charset=utf-8")))
    }
}
