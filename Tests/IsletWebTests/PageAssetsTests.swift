import Testing
import IsletSystem
import IsletWeb

/// Issue 46 §4: the page's assets are files (Sources/IsletWeb/Assets), embedded at build time;
/// what the page serves is those files' bytes, not a copy that drifted or an escape that slipped.
@Suite("the page's assets")
struct PageAssetsTests {
    static let folder = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
        .joined(separator: "/")) + "/Sources/IsletWeb/Assets/"

    static func file(_ name: String) -> [UInt8]? {
        try? FileSystem.readFile(folder + name).get()
    }

    @Test("each served asset is its files' bytes, byte for byte (the words' scripts, quotes and backslashes included)")
    func byteForByte() {
        let script = ["words.js", "parts.js", "behaviour.js", "settings.js"].compactMap(Self.file)
        #expect(script.count == 4)
        #expect(Array(PageAssets.html.utf8) == Self.file("index.html"))
        #expect(Array(PageAssets.style.utf8) == Self.file("app.css"))
        #expect(Array(PageAssets.script.utf8) == script.flatMap { $0 })
    }
}
