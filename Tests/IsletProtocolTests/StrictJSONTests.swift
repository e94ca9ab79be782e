import IsletProtocol
import Testing

/// Issue 13 §3: the protocol's JSON is RFC 8259 with no duplicate keys or trailing commas.
@Suite struct StrictJSONTests {
    func parses(_ s: String) -> Bool { (try? StrictJSON.parse(Array(s.utf8))) != nil }

    @Test func validDocumentsParse() throws {
        #expect(try StrictJSON.parse(Array(#"{"op":"start","seconds":90.5,"title":"Evening \u00e9\ud83d\ude00","x":[true,false,null,-0,1e3]}"#.utf8))
            == .object(["op": .string("start"), "seconds": .number(90.5), "title": .string("Evening é😀"),
                        "x": .array([.bool(true), .bool(false), .null, .number(-0.0), .number(1000)])]))
        #expect(parses(" \t{ } \r\n") && parses("[]") && parses(#""\"\\\/\b\f\n\r\t""#))
    }

    @Test(arguments: [
        #"{"op":"status","op":"pause"}"#,         // duplicate key: which one did the sender mean?
        #"{"op":"status",}"#, "[1,]", "[1,,2]",  // trailing and doubled commas
        #"{"op":"status"} x"#, "{", #"{"a" 1}"#, #"{a:1}"#, "'a'",
        "01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity",
        "\"a\u{01}b\"", #""\x""#, #""\ud800""#, #""\udc00\ud800""#, #""\u12""#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func malformedDocumentsAreRefused(_ s: String) {
        #expect(!parses(s), "accepted: \(s)")
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect((try? StrictJSON.parse([0x22, 0xC3, 0x28, 0x22])) == nil)
    }

    @Test func aDuplicateKeyNamesTheKeyAndTheRequestIsRefused() {
        do {
            _ = try ControlRequest.parse(Array(#"{"op":"start","seconds":60,"seconds":6000}"#.utf8))
            Issue.record("a request with two \"seconds\" was accepted")
        } catch {
            #expect(error.code == "invalid_json" && error.message.contains("\"seconds\" appears twice"), "\(error)")
        }
    }

    @Test(arguments: [#"{"op":"start","seconds":1e400}"#, #"{"op":"start","cycles":1e10}"#,
                      #"{"op":"start","seconds":-1e400}"#])
    func hugeNumbersAreOutOfRange(_ s: String) {
        do {
            _ = try ControlRequest.parse(Array(s.utf8))
            Issue.record("accepted: \(s)")
        } catch {
            #expect(error.code == "invalid_field" && error.message.contains("out of range"), "\(error)")
        }
    }
}
