import Testing
import IsletCore

/// Every text a person sees is bounded in characters, in UTF-8 bytes (4 per character) and in
/// scalars per character (16) (README.md, "Bounds"; docs/RELIABILITY.md). Expectations come
/// from Unicode: U+0301 COMBINING ACUTE ACCENT extends the cluster before it (UAX #29), so a
/// letter and any number of them is one character; UTF-8 takes 2 bytes for U+0301 and 4 for
/// U+1D11E MUSICAL SYMBOL G CLEF.
@Suite struct TextBoundsTests {
    /// One letter and 7,800 combining acute accents: one character of 15,601 bytes.
    let heavy = "a" + String(repeating: "\u{301}", count: 7800)
    let clef = "\u{1D11E}"

    func title(_ s: String) -> InvariantViolation? { ActivityAttributes(kind: .stopwatch, title: s).violation() }
    func text(_ s: String) -> InvariantViolation? { PushedContent(text: s).violation() }

    @Test func theBoundsAreTheDocumentedNumbers() {
        #expect(ActivityAttributes.maxTitleLength == 64 && ActivityAttributes.maxTitleBytes == 256)
        #expect(PushedContent.maximumTextLength == 32 && PushedContent.maximumTextBytes == 128)
        #expect(TextRule.maximumScalarsPerCharacter == 16)
    }

    @Test func aLetterWithThousandsOfMarksIsRefusedByItsBytes() throws {
        #expect(heavy.count == 1 && heavy.utf8.count == 15_601)
        let t = try #require(title(heavy))
        #expect(t.field == "title" && t.message.contains("256 bytes") && t.message.contains("15601"))
        let x = try #require(text(heavy))
        #expect(x.field == "text" && x.message.contains("128 bytes"))
        // The same through a start and an update: the request is refused, naming the field.
        #expect(performing: { try ActivityAttributes(kind: .stopwatch, title: heavy).validated() },
                throws: { ($0 as? Rejection)?.code == .invalidAttributes && "\($0)".contains("title") })
        let laundry = try TimerMachine.apply(.start(ActivityAttributes(timerID: "l", kind: .until(PushedContent(text: "Washing")))),
                                             to: nil, now: t0).activity
        #expect(performing: { try TimerMachine.apply(.update(ContentUpdate(text: .set(heavy))), to: laundry, now: t0) },
                throws: { ($0 as? Rejection)?.code == .invalidAttributes && "\($0)".contains("text") })
    }

    @Test func bytesAtTheirEdge() {
        // 64 four-byte characters: 256 bytes, taken; one more of any kind is refused.
        #expect(title(String(repeating: clef, count: 64)) == nil)
        #expect(title(String(repeating: clef, count: 64) + "a")?.field == "title")
        // Clusters of 7 bytes (e and three marks): 36 are 252 bytes, 37 are 259, though only 37 characters.
        let e3 = "e\u{301}\u{302}\u{303}"
        #expect(title(String(repeating: e3, count: 36)) == nil)
        #expect(title(String(repeating: e3, count: 37))?.message.contains("256 bytes") == true)
        #expect(text(String(repeating: clef, count: 32)) == nil)
        #expect(text(String(repeating: clef, count: 31) + "e\u{301}\u{302}")?.message.contains("128 bytes") == true)
        // The character bound still holds for one-byte text.
        #expect(title(String(repeating: "a", count: 65))?.message.contains("64 characters") == true)
    }

    @Test func scalarsPerCharacterAtTheirEdge() {
        #expect(title("a" + String(repeating: "\u{301}", count: 15)) == nil)
        let over = "a" + String(repeating: "\u{301}", count: 16)
        #expect(over.count == 1)
        #expect(title(over)?.message.contains("17 Unicode scalars") == true)
        #expect(text("ok " + over)?.field == "text")
    }

    @Test func whatScriptsAndEmojiNeedIsTaken() {
        let taken = [
            "\u{1F469}\u{1F3FB}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F468}\u{1F3FC}",  // kiss, two skin tones: 10 scalars
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",                           // family of four: 7
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",                         // flag of Scotland: 7
            "\u{915}\u{94D}\u{937}\u{93F} \u{928}\u{92E}\u{938}\u{94D}\u{924}\u{947}",                 // Devanagari conjuncts
            "\u{E01}\u{E35}\u{E49}",                                                                   // Thai: consonant, vowel, tone
            "Vie\u{323}\u{302}t",                                                                      // Vietnamese, decomposed
            "\u{1F9D8} Morning sit",
        ]
        for s in taken {
            #expect(title(s) == nil, "\(s.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(text(s) == nil)
        }
    }

    @Test func aLanguageCodeIsBoundedInBytesToo() throws {
        // U+0345 COMBINING GREEK YPOGEGRAMMENI is Alphabetic (Other_Alphabetic), so "e" with
        // thousands of them and "n" is two characters of letters.
        let marked = "e" + String(repeating: "\u{345}", count: 7800) + "n"
        #expect(marked.count == 2 && Unicode.Scalar(0x345).map { $0.properties.isAlphabetic } == true)
        let v = try #require(ActivityAttributes(kind: .stopwatch, language: marked).violation())
        #expect(v.field == "language" && v.message.utf8.count < 300)
        #expect(ActivityAttributes(kind: .stopwatch, language: "zh-Hans").violation() == nil)
    }

    @Test func theLoaderAndSyncRecordsMeetTheSameBounds() throws {
        // What a state file or a peer's record holds is checked by `Activity.violation`.
        var a = try #require(try TimerMachine.apply(.start(ActivityAttributes(timerID: "l", kind: .until(PushedContent(text: "Washing")))),
                                                    to: nil, now: t0).activity)
        #expect(a.violation() == nil)
        a.attributes.title = heavy
        #expect(a.violation()?.field == "attributes.title")
        a.attributes.title = nil
        a.content.pushed?.text = heavy
        #expect(a.violation()?.field == "content.pushed.text")
        a.content.pushed?.text = nil
        a.attributes.kind = .until(PushedContent(text: heavy))
        #expect(a.violation()?.field == "attributes.text")
    }

    @Test func anErrorsEchoIsBoundedInBytes() {
        #expect(TextRule.excerpt("abc", bytes: 40) == "abc")
        let cut = TextRule.excerpt(heavy, bytes: 40)
        #expect(cut.utf8.count <= 40 + 3 && cut.hasSuffix("…"))
        let v = ActivityAttributes(timerID: heavy, kind: .stopwatch).violation()
        #expect(v?.field == "timer" && (v?.message.utf8.count ?? .max) < 300)
    }
}
