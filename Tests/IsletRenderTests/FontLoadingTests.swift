import Foundation
import IsletCore
import IsletFrame
import Testing
@testable import IsletRender

/// Issue 12 §2 (memory): fonts are opened when a drawing needs them, so a Latin session pays for
/// the two or three Terminus faces its presentations draw with, and Unifont only when a label
/// needs a script Terminus lacks. A font file FreeType cannot read is still a start-up error.
@Suite("fonts are opened when a drawing needs them")
struct FontLoadingTests {
    let t0 = Instant(milliseconds: 1_800_000_000_000)

    @Test func aLatinCompactSessionOpensOnlyTheTerminusFacesItDraws() throws {
        let r = try Renderer()
        #expect(r.openFontFiles.isEmpty, "nothing is opened before the first drawing")
        let a = try PropertyTests.countdown(minutes: 20, language: "en", at: t0)
        for s in 0..<70 {
            _ = r.render([a], presentation: .compact, now: t0 + .seconds(s), size: .w128h32)
        }
        let open = r.openFontFiles
        #expect(!open.isEmpty && open.count <= 3, "\(open)")
        #expect(open.allSatisfy { $0.contains("ter-u") || $0.contains("terminus") }, "\(open)")
        #expect(!open.contains { $0.contains("unifont") }, "a Latin session never opens Unifont")
    }

    @Test func aJapaneseLabelOpensUnifont() throws {
        let r = try Renderer()
        let a = try PropertyTests.countdown(minutes: 20, language: "ja", at: t0)
        _ = r.render([a], presentation: .expanded, now: t0 + .seconds(5), size: .w128h64)
        #expect(r.openFontFiles.contains { $0.hasSuffix("unifont.pcf.gz") }, "\(r.openFontFiles)")
    }

    @Test func aFontFileFreeTypeCannotReadIsAStartUpErrorNamingIt() throws {
        let system = FontFiles.defaultDirectory
        let dir = NSTemporaryDirectory() + "islet-fonts-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = try FileManager.default.contentsOfDirectory(atPath: system)
            .filter { ($0.hasPrefix("ter-u") && $0.hasSuffix("_unicode.pcf.gz")) || $0 == "unifont.pcf.gz" }
        try #require(names.count >= 19, "xfonts-terminus and xfonts-unifont are installed")
        for n in names { try FileManager.default.createSymbolicLink(atPath: dir + "/" + n, withDestinationPath: system + "/" + n) }
        #expect(throws: Never.self) { _ = try Renderer(fontDirectory: dir) }

        // A size no Latin 128x32 session draws: found at start, not on the day a panel needs it.
        let broken = dir + "/ter-u28n_unicode.pcf.gz"
        try FileManager.default.removeItem(atPath: broken)
        try Data("not a font".utf8).write(to: URL(fileURLWithPath: broken))
        do {
            _ = try Renderer(fontDirectory: dir)
            Issue.record("a corrupt font file was accepted")
        } catch {
            guard case .unreadable(let path, _) = error else { Issue.record("wrong error: \(error)"); return }
            #expect(path == broken)
            #expect(error.description.contains(broken))
        }
    }

    @Test(arguments: [false, true])
    func aCountdownsFirstFrameRendersEveryDigitSoNoLaterTickWaitsForFreeType(dimmed: Bool) throws {
        let r = try Renderer()
        let a = try PropertyTests.countdown(minutes: 10, cycles: 1, language: "en", at: t0)
        let options = RenderOptions(dimLevel: dimmed ? 0x08 : nil)
        _ = r.render([a], presentation: .compact, now: t0, size: .w128h32, options: options)   // 10:00
        let afterFirst = r.glyphLoads
        #expect(afterFirst >= 11, "the ten digits and the colon, at least")
        // Every shown time down to 0:01 uses only those glyphs.
        for s in 1..<600 {
            _ = r.render([a], presentation: .compact, now: t0 + .seconds(s), size: .w128h32, options: options)
        }
        #expect(r.glyphLoads == afterFirst, "no glyph rendered after the first frame")
    }
}
