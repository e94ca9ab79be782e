import Testing
@testable import islet_page_gen

/// islet-page-gen: what it embeds, and what stops the build at its file and line.
@Suite("embedding assets")
struct AssetsTests {
    /// The refusal's words, or nil when the bytes were taken.
    static func refusal(_ bytes: [UInt8]) -> String? {
        do throws(AssetError) {
            _ = try assetText("Assets/a.js", bytes)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("text is kept byte for byte, tabs and every script included")
    func kept() throws {
        let s = "\t\"use strict\";\nconst a = \"…\\\\ العربية 日本語 🙂\";\n"
        #expect(try assetText("Assets/a.js", Array(s.utf8)) == s)
    }

    @Test("a file it cannot embed is refused at its line and column")
    func refused() {
        let cases: [([UInt8], String)] = [
            ([], "Assets/a.js:1: empty"),
            (Array("a\nb".utf8), "Assets/a.js:2: no line feed at the end"),
            (Array("a\r\nb\n".utf8), "Assets/a.js:1:2: U+000D is not text an asset may hold (a control character or a byte order mark)"),
            (Array("ok\n\tx\0\n".utf8), "Assets/a.js:2:3: U+0000 is not text an asset may hold (a control character or a byte order mark)"),
            ([0xEF, 0xBB, 0xBF, 0x61, 0x0A], "Assets/a.js:1:1: U+FEFF is not text an asset may hold (a control character or a byte order mark)"),
            ([0x61, 0x0A, 0x62, 0xFF, 0x0A], "Assets/a.js:2: not UTF-8"),
        ]
        for (bytes, message) in cases {
            #expect(Self.refusal(bytes) == message)
        }
    }

    @Test("a name becomes stem and extension; any other name is refused")
    func names() throws {
        #expect(try assetName("/x/Assets/index.html") == "indexHTML")
        #expect(try assetName("behaviour.js") == "behaviourJS")
        #expect(try assetName("app2.css") == "app2CSS")
        for bad in ["Index.html", "app.min.js", "app-x.js", "app", ".hidden.js", "app.JS", "app.", "1.js"] {
            #expect(throws: AssetError.self) { try assetName(bad) }
        }
    }
}
