import Testing
import IsletFrame

// Swift: The Swift Programming Language, "Special Characters in String Literals" (\u{n});
// JSON: RFC 8259 §7 (\t, \uXXXX with four hex digits for other control characters).
@Test func quotedSpellsSwiftLiteralsInASCII() {
    #expect(Quoted.literal("a\"b\\c\nd", .swift) == #""a\"b\\c\nd""#)
    #expect(Quoted.literal("é\t", .swift) == #""\u{e9}\u{9}""#)
}

@Test func quotedSpellsJSONStringsAsRFC8259() {
    #expect(Quoted.literal("a\"b\\c\nd", .json) == #""a\"b\\c\nd""#)
    #expect(Quoted.literal("é\t\u{1}", .json) == #""é\t\u0001""#)
}
