import Testing
import IsletProtocol
@testable import isletctl

/// `isletctl brightness N | night | day`: the request it sends, and what it refuses (exit 64).
struct BrightnessCommandTests {
    @Test func theThreeForms() throws {
        #expect(try CtlMain.parse("brightness", ["42"]).request.brightness == BrightnessRequest(contrast: 42))
        #expect(try CtlMain.parse("brightness", ["night"]).request.brightness == BrightnessRequest(night: true))
        #expect(try CtlMain.parse("brightness", ["day", "--json"]).request.brightness == BrightnessRequest(night: false))
        for bad in [[], ["256"], ["-1"], ["dim"], ["1", "2"], ["40", "--timer", "t"]] {
            #expect(throws: (any Error).self, "\(bad)") { try CtlMain.parse("brightness", bad) }
        }
    }
}
