import Testing
import IsletDaemon

@Test func versionIsSemantic() {
    #expect(IsletVersion.string.split(separator: ".").count == 3)
}
