import Testing
import IsletSystem
@testable import islet_page_gen

/// islet-page-gen (issue 47 §5): served.txt, the hashed names, the rewriting of addresses, and
/// the icons drawn as the pill draws its own (IconPNGTests).
@Suite("making the page")
struct ServedTests {
    static func source(_ s: String) -> PageSource { PageSource(path: "Assets/x", bytes: Array(s.utf8)) }
    static func parse(_ text: String) -> Result<[ServedLine], AssetError> {
        do throws(AssetError) { return .success(try ServedLine.parse(text, file: "served.txt")) } catch { return .failure(error) }
    }

    @Test("served.txt: comments and blank lines skipped; a bad line refused at its line")
    func parsing() throws {
        let ok = try Self.parse("# c\n\n/a.js immutable a.js b.js\n/ revalidate index.html\n").get()
        #expect(ok == [ServedLine(address: "/a.js", immutable: true, files: ["a.js", "b.js"], line: 3),
                       ServedLine(address: "/", immutable: false, files: ["index.html"], line: 4)])
        let bad: [(String, String)] = [
            ("/a.js immutable\n", "served.txt:1: expected `ADDRESS immutable|revalidate FILE...`"),
            ("a.js immutable a.js\n", "served.txt:1: an address starts with / and holds small ASCII letters, digits, '.', '-' and '/' only, outside /api/"),
            ("/api/x.js immutable a.js\n", "served.txt:1: an address starts with / and holds small ASCII letters, digits, '.', '-' and '/' only, outside /api/"),
            ("/a.js forever a.js\n", "served.txt:1: the cache is `immutable` or `revalidate`, not forever"),
            ("/ immutable index.html\n", "served.txt:1: an immutable address needs an extension (its hash goes before it)"),
            ("/a.js immutable a.js\n/a.js revalidate a.js\n", "served.txt:2: /a.js is served twice"),
        ]
        for (text, message) in bad {
            guard case .failure(let e) = Self.parse(text) else { Issue.record("taken: \(text)"); continue }
            #expect(e.description == message)
        }
    }

    @Test("hashed names go into the text that names them (quoted), files are joined in order, gzip kept only when smaller")
    func making() throws {
        let lines = try Self.parse("/ revalidate index.html\n/app.js immutable a.js b.js\n/app.css immutable app.css\n").get()
        let sources = ["index.html": Self.source("<script src=\"/app.js\"></script><link href=\"/app.css\">/app.js\n"),
                       "a.js": Self.source("a\n"), "b.js": Self.source("b\n"), "app.css": Self.source("x\n")]
        let page = try makePage(lines, sources: sources, servedFile: "served.txt", compress: { $0.count > 3 ? [1, 2] : $0 + [0] })
        let js = try #require(page.first { $0.address == "/app.js" })
        #expect(js.text == "a\nb\n" && js.path == "/app.\(contentHash(Array("a\nb\n".utf8)).prefix(12)).js" && js.gzip == [1, 2])
        let css = try #require(page.first { $0.address == "/app.css" })
        #expect(css.gzip == nil)   // not smaller
        let html = try #require(page.first { $0.address == "/" })
        #expect(html.text == "<script src=\"\(js.path)\"></script><link href=\"\(css.path)\">/app.js\n" && html.path == "/")
    }

    @Test("a file served by no line, or a line naming no file, stops the build")
    func missing() throws {
        let lines = try Self.parse("/a.js immutable a.js\n").get()
        #expect(throws: AssetError.self) { try makePage(lines, sources: [:], servedFile: "s", compress: { _ in nil }) }
        let extra = ["a.js": Self.source("a\n"), "settings.js": Self.source("s\n")]
        do throws(AssetError) {
            _ = try makePage(lines, sources: extra, servedFile: "served.txt", compress: { _ in nil })
            Issue.record("an unserved file was taken")
        } catch {
            #expect(error.description == "served.txt: Assets/settings.js is served by no line (add it to a line, or remove it)")
        }
    }

    @Test("trimming: indentation out, a script's comment-only lines emptied, no line moved; untouched where it could change meaning")
    func trimming() {
        #expect(trimmed("a {\n  b: c;\n\t}\n", script: false) == "a {\nb: c;\n}\n")
        #expect(trimmed("  // why\n  f(1); // kept\n", script: true) == "\nf(1); // kept\n")
        #expect(trimmed("  // a style's line\n", script: false) == "// a style's line\n")
        let template = "const a = `one\n  two`;\n"
        #expect(trimmed(template, script: true) == template)
        let continued = "const s = \"one \\\n  two\";\n"
        #expect(trimmed(continued, script: true) == continued)
    }

    @Test("base64 as RFC 4648 says (its test vectors)")
    func base64Vectors() {
        for (plain, coded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            #expect(base64(Array(plain.utf8)) == coded)
        }
    }
}
