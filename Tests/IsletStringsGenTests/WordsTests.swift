import Testing
@testable import islet_page_gen

/// words.js split by language at build time (docs/WEB.md "Delivery"): English stays in the page's
/// script, each other language is its own hashed file, and what cannot be split safely stops the build.
@Suite("the page's words by language")
struct WordsTests {
    static let words = """
        "use strict";
        const ISLET_WORDS = {
        langs: ["en", "es", "zh-Hans"],
        rtl: [],
        t: {
        go: "Go|Ir|走",
        url: "See http://a.b/c|Ver http://a.b/c|看 http://a.b/c",
        fill: "{n} left|quedan {n}|剩 {n}"
        }
        };

        """

    static func split(_ text: String) -> Result<SplitWords, AssetError> {
        do throws(AssetError) { return .success(try splitWords(text, pattern: "/words-*.js", file: "words.js")) } catch { return .failure(error) }
    }

    @Test("English in the base, on the same lines; each other language in its own file, at its address")
    func splitting() throws {
        let s = try Self.split(Self.words).get()
        let base = s.base.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(base.count == Self.words.split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(base[2] == "langs: [\"en\", \"es\", \"zh-Hans\"], files: {\"es\": \"/words-es.js\", \"zh-Hans\": \"/words-zh-hans.js\"},")
        #expect(base[5] == "go: \"Go\",")
        #expect(base[6] == "url: \"See http://a.b/c\",")   // a `//` inside a word is a word's
        #expect(base[7] == "fill: \"{n} left\"")             // the last key keeps its missing comma
        #expect(s.others.map(\.lang) == ["es", "zh-Hans"])
        #expect(s.others.map(\.address) == ["/words-es.js", "/words-zh-hans.js"])
        #expect(s.others[1].text == "ISLET_WORDS.add(\"zh-Hans\", {\ngo: \"走\",\nurl: \"看 http://a.b/c\",\nfill: \"剩 {n}\"\n});\n")
    }

    @Test("what cannot be split safely stops the build at its line")
    func refusals() {
        let bad: [(String, String)] = [
            (Self.words.replacing("go: \"Go|Ir|走\"", with: "go: \"Go|Ir\""), "words.js:6: go has 2 parts, not one per language (3)"),
            (Self.words.replacing("go: \"Go|Ir|走\"", with: "go: \"Go||走\""), "words.js:6: go has an empty part (every language has its words)"),
            (Self.words.replacing("go: \"Go|Ir|走\"", with: "go: \"G\\\"o|Ir|走\""), "words.js:6: a key's line is `key: \"en|...\",` (one string on one line)"),
            (Self.words.replacing("go: \"Go|Ir|走\"", with: "go: \"Go|Ir|走\", // why"), "words.js:6: a key's line is `key: \"en|...\",` (one string on one line)"),
            (Self.words.replacing("go: \"Go|Ir|走\",", with: "go:\n\"Go|Ir|走\","), "words.js:6: a key's line is `key: \"en|...\",` (one string on one line)"),
            (Self.words.replacing("[\"en\", \"es\", \"zh-Hans\"]", with: "[\"es\", \"en\", \"zh-Hans\"]"),
             "words.js:3: langs lists distinct tags of ASCII letters, digits and '-', English (\"en\") first"),
            (Self.words.replacing("t: {", with: "  t: {"), "words.js: no block `t: {` … `}` (its lines unindented)"),
        ]
        for (text, message) in bad {
            guard case .failure(let e) = Self.split(text) else { Issue.record("taken: \(message)"); continue }
            #expect(e.description == message)
        }
    }

    @Test("served.txt's `*` line: a file per language made before the script, whose words.js names their hashed files")
    func served() throws {
        // The `*` line after the script's: its files are made first all the same.
        let lines = try ServedLine.parse("/app.js immutable words.js b.js\n/words-*.js immutable words.js\n", file: "served.txt")
        let sources = ["words.js": PageSource(path: "Assets/words.js", bytes: Array(Self.words.utf8)),
                       "b.js": PageSource(path: "Assets/b.js", bytes: Array("b\n".utf8))]
        let page = try makePage(lines, sources: sources, servedFile: "served.txt", compress: { _ in nil })
        #expect(page.map(\.address) == ["/app.js", "/words-es.js", "/words-zh-hans.js"])
        let es = try #require(page.first { $0.address == "/words-es.js" })
        #expect(es.immutable && es.path.hasPrefix("/words-es.") && es.path != "/words-es.js" && es.text?.contains("go:\"Ir\"") == true)
        let app = try #require(page.first { $0.address == "/app.js" }).text ?? ""
        #expect(app.contains("\"es\":\"\(es.path)\"") && app.contains("go:\"Go\",") && !app.contains("Ir") && app.hasSuffix("b\n"))
        for bad in ["/words-*.js revalidate words.js\n", "/w-*-*.js immutable words.js\n", "/words-*.js immutable words.js b.js\n", "/x-*.js immutable b.js\n"] {
            #expect(throws: AssetError.self, "\(bad)") { try ServedLine.parse(bad, file: "served.txt") }
        }
    }

    @Test("a key the page's own element says in the same English leaves an empty line; any doubt keeps the words")
    func shownOnce() throws {
        let html = """
            <h2 data-w="go">Go</h2>
            <template id="row"><span class="x" data-w="fill">{n} left</span></template>
            <p data-w="url">See <b>http://a.b/c</b></p>
            <b data-w="two">One</b><b data-w="two">Two</b>
            <i data-w="amp">A &amp; B</i><i data-w="blank"> Go</i>
            """
        let shown = shownWords(html)
        #expect(shown == ["go": "Go", "fill": "{n} left"], "\(shown)")
        let s = try { () throws(AssetError) in try splitWords(Self.words, pattern: "/words-*.js", file: "words.js", shown: shown) }()
        let base = s.base.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(base[5] == "" && base[7] == "", "\(base)")             // the lines stay: an error's line is the source's
        #expect(base[6] == "url: \"See http://a.b/c\",")               // markup inside: the element's text is not the words
        #expect(s.others[0].text.contains("go: \"Ir\""))              // the other languages keep every key
        // Another English than the element's keeps the words in the script.
        let other = try { () throws(AssetError) in try splitWords(Self.words, pattern: "/words-*.js", file: "words.js", shown: ["go": "Go!"]) }()
        #expect(other.base.contains("go: \"Go\","))
    }

    @Test("served.txt's `words.js:PREFIX`: those keys' English leaves the page's script for the script that claims them; other languages keep them")
    func claimed() throws {
        let lines = try ServedLine.parse("/app.js immutable words.js b.js\n/later.js immutable words.js:f later.js\n/words-*.js immutable words.js\n",
                                         file: "served.txt")
        // later.js brings markup that says `go` in English: that key is read back from it, not claimed again.
        let later = "x.insertAdjacentHTML(\"beforeend\", '<b data-w=\"go\">Go</b>');\n"
        let sources = ["words.js": PageSource(path: "Assets/words.js", bytes: Array(Self.words.utf8)),
                       "b.js": PageSource(path: "Assets/b.js", bytes: Array("b\n".utf8)),
                       "later.js": PageSource(path: "Assets/later.js", bytes: Array(later.utf8))]
        let page = try makePage(lines, sources: sources, servedFile: "served.txt", compress: { _ in nil })
        let app = try #require(page.first { $0.address == "/app.js" }).text ?? ""
        let claim = try #require(page.first { $0.address == "/later.js" }).text ?? ""
        let es = try #require(page.first { $0.address == "/words-es.js" }).text ?? ""
        #expect(!app.contains("left") && !app.contains("go:") && app.contains("url:\"See http://a.b/c\""), "\(app)")
        #expect(claim.hasPrefix("ISLET_WORDS.add(\"en\",{\nfill:\"{n} left\"\n});\n"),
                "\(claim)")
        #expect(claim.contains("insertAdjacentHTML") && !claim.contains("go:"), "\(claim)")
        #expect(es.contains("fill:\"quedan {n}\"") && es.contains("go:\"Ir\""), "\(es)")
        for bad in ["/x.js immutable words.js: b.js\n", "/x.js immutable other.js:f b.js\n", "/x.css immutable words.js:f\n",
                    "/x.js immutable words.js:F b.js\n", "/x.js immutable words.js:a:b b.js\n"] {
            #expect(throws: AssetError.self, "\(bad)") { try ServedLine.parse(bad, file: "served.txt") }
        }
    }
}
