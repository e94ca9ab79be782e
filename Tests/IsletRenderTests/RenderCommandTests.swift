import Testing
import IsletCore
@testable import IsletRender
#if canImport(Glibc)
import Glibc
#endif

struct RenderCommandTests {
    @Test func flagsSetTheShownTime() throws {
        let r = try RenderCommand.parse(["--stopwatch", "--state", "paused", "--elapsed", "3725", "-o", "-"])
        let (a, now) = RenderCommand.scene(r)
        let activity = try #require(a)
        #expect(ShownTime.seconds(of: activity, at: now) == 3725)
        #expect(activity.phase == .paused)
        let c = try RenderCommand.parse(["--remaining", "61", "--duration", "90", "--cycle", "2", "--cycles", "3", "-o", "-"])
        let (b, t) = RenderCommand.scene(c)
        #expect(b.map { ShownTime.seconds(of: $0, at: t) } == 61)
        #expect(b?.content.cycle == 2 && b?.content.totalCycles == 3)
        let end = RenderCommand.scene(try RenderCommand.parse(["--state", "cycle-end", "--cycle", "1", "--cycles", "2", "-o", "-"]))
        #expect(end.activity?.phase == .cycleEnd)
        let done = RenderCommand.scene(try RenderCommand.parse(["--state", "complete", "-o", "-"]))
        #expect(done.activity?.phase == .complete)
        // --cycles 0: open-ended, as the content state's JSON spells it.
        let open = RenderCommand.scene(try RenderCommand.parse(["--cycle", "7", "--cycles", "0", "-o", "-"]))
        #expect(open.activity?.content.totalCycles == nil && open.activity?.content.cycle == 7)
        let openDone = RenderCommand.scene(try RenderCommand.parse(["--state", "complete", "--cycle", "7", "--cycles", "0", "-o", "-"]))
        #expect(openDone.activity?.phase == .complete)
    }

    /// `--test-pattern`: the pattern `isletctl test-pattern` puts on the panel, at the size asked,
    /// so a capture of it can be checked like any other frame (make test-pi). Its documented
    /// border: every pixel of the four edges lit.
    @Test func testPatternIsThePanelsPattern() throws {
        let r = try RenderCommand.parse(["--test-pattern", "--size", "128x64", "-o", "-"])
        let frame = RenderCommand.render(r, with: try Renderer())
        #expect(frame.width == 128 && frame.height == 64)
        #expect((0..<128).allSatisfy { frame[$0, 0] && frame[$0, 63] })
        #expect((0..<64).allSatisfy { frame[0, $0] && frame[127, $0] })
        #expect(throws: RenderCommand.UsageError.self) { try RenderCommand.parse(["--test-pattern", "--until", "-o", "-"]) }
    }
}
