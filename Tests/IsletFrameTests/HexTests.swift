import Testing
import IsletFrame

@Test func hexSpellsBytesAsTwoDigits() {
    #expect(Hex.byte(0x3C) == "3c")
    #expect(Hex.byte(0x05) == "05")
    #expect(Hex.byte(0xAF, uppercase: true) == "AF")
    #expect(Hex.encode([0x00, 0x40, 0xFF]) == "0040ff")
    #expect(Hex.encode([]) == "")
}

@Test func hexReadsWhatItWritesAndRejectsTheRest() {
    #expect(Hex.decode("0040ff") == [0x00, 0x40, 0xFF])
    #expect(Hex.decode("0040FF") == [0x00, 0x40, 0xFF])
    #expect(Hex.decode("abc") == nil)
    #expect(Hex.decode("0g") == nil)
    #expect(Hex.byte(parsing: "3c") == 0x3C)
    #expect(Hex.byte(parsing: "3C", uppercase: false) == nil)
    #expect(Hex.byte(parsing: "3C") == 0x3C)
    #expect(Hex.byte(parsing: "c") == nil)
    #expect(Hex.byte(parsing: "+c") == nil)
    #expect(Hex.byte(parsing: "3cc") == nil)
    #expect(Hex.digit(UInt8(ascii: "F")) == 15)
    #expect(Hex.digit(UInt8(ascii: "F"), uppercase: false) == nil)
}
