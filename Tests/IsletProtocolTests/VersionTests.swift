import IsletProtocol
import Testing

@Test func versionIsSemantic() {
    #expect(IsletVersion.string.split(separator: ".").count == 3)
}
