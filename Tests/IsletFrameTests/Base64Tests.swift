import Testing
import IsletFrame

/// RFC 4648 §10's test vectors, and what the strict decoder refuses.
struct Base64Tests {
    @Test(arguments: [("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"),
                      ("Zm9vYmE=", "fooba"), ("Zm9vYmFy", "foobar")])
    func rfc4648Vectors(encoded: String, decoded: String) throws {
        #expect(try Base64.decode(encoded) == Array(decoded.utf8))
    }

    @Test func refusals() {
        #expect(throws: Base64.Problem.length(characters: 5)) { try Base64.decode("Zm9vY") }
        #expect(throws: Base64.Problem.character(position: 2)) { try Base64.decode("Zm*v") }
        // `=` only as the last one or two characters.
        #expect(throws: Base64.Problem.character(position: 1)) { try Base64.decode("Z=9v") }
        #expect(throws: Base64.Problem.character(position: 4)) { try Base64.decode("Zm9v====") }
        // Positions count UTF-8 bytes: é is two.
        #expect(throws: Base64.Problem.character(position: 2)) { try Base64.decode("Zm\u{00E9}") }
    }
}
