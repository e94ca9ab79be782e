import Testing
import IsletProtocol

/// `brightness`: a contrast (81h, 0–255), night mode on or off, or both; no timer; everything
/// else is refused with the field named.
@Suite struct BrightnessRequestTests {
    func parse(_ line: String) throws(ProtocolError) -> ControlRequest { try ControlRequest.parse(Array(line.utf8)) }

    @Test func theFormsItTakes() throws {
        #expect(try parse(#"{"op":"brightness","contrast":0}"#).brightness == BrightnessRequest(contrast: 0))
        #expect(try parse(#"{"op":"brightness","contrast":255}"#).brightness == BrightnessRequest(contrast: 255))
        #expect(try parse(#"{"op":"brightness","night":true}"#).brightness == BrightnessRequest(night: true))
        #expect(try parse(#"{"op":"brightness","night":false,"contrast":9,"request_id":"a"}"#).brightness == BrightnessRequest(contrast: 9, night: false))
        #expect(ControlOp(rawValue: "brightness") == .brightness && ControlOp.allCases.contains(.brightness))
    }

    @Test(arguments: [
        (#"{"op":"brightness"}"#, "missing_field"),
        (#"{"op":"brightness","contrast":256}"#, "invalid_field"),
        (#"{"op":"brightness","contrast":-1}"#, "invalid_field"),
        (#"{"op":"brightness","contrast":1.5}"#, "invalid_field"),
        (#"{"op":"brightness","contrast":"40"}"#, "invalid_field"),
        (#"{"op":"brightness","contrast":1e300}"#, "invalid_field"),
        (#"{"op":"brightness","night":"yes"}"#, "invalid_field"),
        (#"{"op":"brightness","night":1}"#, "invalid_field"),
        (#"{"op":"brightness","contrast":9,"timer":"t"}"#, "unknown_field"),
        (#"{"op":"brightness","seconds":9}"#, "unknown_field"),
    ])
    func refusals(_ c: (String, String)) {
        do {
            _ = try parse(c.0)
            Issue.record("accepted \(c.0)")
        } catch {
            #expect(error.code == c.1, "\(c.0): \(error)")
        }
    }

    @Test func whatIsletctlSendsParsesBack() throws {
        for b in [BrightnessRequest(contrast: 42), BrightnessRequest(night: true), BrightnessRequest(contrast: 0, night: false)] {
            var r = ControlRequest(op: .brightness)
            r.brightness = b
            #expect(try ControlRequest.parse(Array(r.encodedLine().dropLast())).brightness == b)
        }
    }
}
