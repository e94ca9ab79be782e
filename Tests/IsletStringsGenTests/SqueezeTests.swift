import Testing
@testable import islet_page_gen

/// The trims of islet-page-gen (docs/WEB.md "Delivery"): what a browser does not need goes, what
/// only looks like a comment stays, and no line moves.
@Suite("trimming what is served")
struct SqueezeTests {
    @Test("a script: comments and blanks out; a `//` or `/*` in a string or a regular expression stays; line feeds stay")
    func scripts() {
        let cases: [(String, String)] = [
            ("  const a = 1; // why\n", "const a=1;\n"),
            ("f(\"http://a.b/c\"); // x\n", "f(\"http://a.b/c\");\n"),
            ("s = 'a /* b */ c';\n", "s='a /* b */ c';\n"),
            ("s = \"it\\\"s // not\";\n", "s=\"it\\\"s // not\";\n"),
            ("r = /\\/\\/ +x/g.test(s);\n", "r=/\\/\\/ +x/g.test(s);\n"),
            ("r = /[/]+ a/.exec(s);\n", "r=/[/]+ a/.exec(s);\n"),
            ("return / +/.test(s);\n", "return/ +/.test(s);\n"),
            ("x = a / b / c;\n", "x=a/b/c;\n"),
            ("x = (a) / 2;\n", "x=(a)/2;\n"),
            ("a = b /* one */ + c;\n", "a=b+c;\n"),
            ("a = b /* one\ntwo */ + c;\n", "a=b\n+c;\n"),
            ("let x = a + +b - -c;\n", "let x=a+ +b- -c;\n"),
            ("x = y / /re/.source.length;\n", "x=y/ /re/.source.length;\n"),
            ("if (a < !b) f();\n", "if(a< !b)f();\n"),
            ("typeof x === \"string\"\n", "typeof x===\"string\"\n"),
            ("a\n++b\n", "a\n++b\n"),
            ("n = 1 .toString();\n", "n=1 .toString();\n"),
            ("const π = 3;\n", "const π=3;\n"),
            ("s = 'a \\\n  b';\n", "s='a \\\n  b';\n"),   // a continued string, its blanks its own
        ]
        for (input, want) in cases {
            #expect(squeezed(input) == want, "\(input)")
        }
    }

    @Test("a script it cannot read for certain is left to the plain trim: a template literal, a string or comment left open")
    func refusals() {
        for input in ["const a = `x ${y}`;\n", "s = \"open\n", "/* open\n", "r = /open\n"] {
            #expect(squeezed(input) == nil, "\(input)")
        }
        #expect(asServed("const a = `x`;  // kept\n", ext: "js") == "const a = `x`;  // kept\n")
    }

    @Test("a stylesheet: comments and indentation out; `/*` in a string stays; lines stay")
    func styles() {
        #expect(styleTrimmed("/* a */\na {\n  b: c; /* d\n e */\n}\n") == "\na {\nb: c; \n\n}\n")
        #expect(styleTrimmed("a::before { content: \"/* no */\"; }\n") == "a::before { content: \"/* no */\"; }\n")
        #expect(styleTrimmed("a { content: '\\'/*'; }\n") == "a { content: '\\'/*'; }\n")
        #expect(styleTrimmed("a { b: c } /* open\n") == nil)
        #expect(asServed("/* open\n", ext: "css") == "/* open\n")
    }

    @Test("the page: indentation out, unless blanks show (pre, textarea), are code (an inline script or style) or sit in a value")
    func page() {
        #expect(pageTrimmed("<main>\n  <p class=\"a\">x</p>\n    <script src=\"/a.js\" defer></script>\n</main>\n")
                == "<main>\n<p class=\"a\">x</p>\n<script src=\"/a.js\" defer></script>\n</main>\n")
        #expect(pageTrimmed("<p>it's\n  <b>x</b></p>\n") == "<p>it's\n<b>x</b></p>\n")   // an apostrophe in text is no quote
        #expect(pageTrimmed("<input\n  type=\"text\"\n  value=\"a\">\n") == "<input\ntype=\"text\"\nvalue=\"a\">\n")
        for kept in ["<pre>\n  a\n</pre>\n", "<textarea>\n  a</textarea>\n", "<script>\n  f();\n</script>\n", "<style>\n  a{}\n</style>\n",
                     "<!-- a -->\n  <p>\n", "<p title=\"a\n  b\">x</p>\n"] {
            #expect(pageTrimmed(kept) == nil, "\(kept)")
            #expect(asServed(kept, ext: "html") == kept)
        }
    }
}
