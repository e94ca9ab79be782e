import IsletFrame
import Testing
import IsletTestSupport
import IsletCore
@testable import IsletRender
#if canImport(Glibc)
import Glibc
#endif

/// One renderer for the whole suite: loading fonts once keeps the tests fast.
enum Shared {
    static let renderer: Result<Renderer, FontError> = Result { () throws(FontError) in try Renderer() }

    static func get() throws -> Renderer { try renderer.get() }
}

/// A request as `isletctl render` would parse it.
func request(_ args: [String]) throws -> RenderCommand.Request {
    try RenderCommand.parse(args + ["-o", "-"])
}

func frame(_ args: [String]) throws -> Bitmap {
    RenderCommand.render(try request(args), with: try Shared.get())
}

/// A crop of a frame as ASCII rows.
func crop(_ b: Bitmap, x: Int, y: Int, w: Int, h: Int) -> [String] {
    (y..<(y + h)).map { yy in String((x..<(x + w)).map { b[$0, yy] ? "#" : "." }) }
}

/// Fixture files live beside the tests, found through #filePath so `swift test` works from
/// any directory.
enum Fixtures {
    static func directory(file: String = #filePath) -> String {
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/") + "/Fixtures"
    }

    static func read(_ name: String) -> String? { readTextFile(directory() + "/" + name) }

    /// Set ISLET_UPDATE_FIXTURES=1 to (re)write fixtures; then review every changed one.
    static var updating: Bool { getenv("ISLET_UPDATE_FIXTURES").map { String(cString: $0) == "1" } ?? false }
}


func seed() -> UInt64 {
    getenv("ISLET_FUZZ_SEED").flatMap { UInt64(String(cString: $0)) } ?? UInt64(UInt32(truncatingIfNeeded: time(nil)))
}

extension Fixtures {
    static func readAbsolute(_ path: String) -> String? { readTextFile(path) }
}
