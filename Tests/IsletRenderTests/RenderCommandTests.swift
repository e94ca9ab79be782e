import Testing
import IsletCore
@testable import IsletRender
#if canImport(Glibc)
import Glibc
#endif

struct RenderCommandTests {
    @Test(arguments: [
        [],                                                     // no -o
        ["-o", "x.gif"],                                        // unsupported extension
        ["--presentation", "big", "-o", "-"],
        ["--size", "128", "-o", "-"],
        ["--size", "1000x32", "-o", "-"],
        ["--state", "stopped", "-o", "-"],
        ["--remaining", "-5", "-o", "-"],
        ["--remaining", "abc", "-o", "-"],
        ["--remaining", "600", "--duration", "300", "-o", "-"],
        ["--cycle", "2", "-o", "-"],                           // --cycle without --cycles
        ["--cycle", "4", "--cycles", "3", "-o", "-"],
        ["--stopwatch", "--state", "complete", "-o", "-"],       // a stopwatch only runs or pauses
        ["--stopwatch", "--remaining", "5", "-o", "-"],
        ["--elapsed", "5", "-o", "-"],                          // --elapsed needs --stopwatch
        ["--language", "x", "-o", "-"],
        ["--scale", "0", "-o", "x.png"],
        ["--bogus", "-o", "-"],
        ["-o"],
    ])
    func badArgumentsExit64(_ args: [String]) {
        #expect(RenderCommand.run(arguments: args) == 64)
    }

    @Test func writesThePBMTheRendererDraws() throws {
        let path = "/tmp/islet-render-test-\(getpid()).pbm"
        defer { unlink(path) }
        let args = ["--presentation", "lockscreen", "--size", "128x64", "--state", "paused", "--remaining", "100",
                    "--duration", "600", "--cycle", "2", "--cycles", "4", "--language", "pt", "--title", "Manhã"]
        #expect(RenderCommand.run(arguments: args + ["-o", path]) == 0)
        let written = try #require(Fixtures.readAbsolute(path).flatMap(ImageFile.parsePBM))
        // The same state built by hand through the core, as the daemon would hold it.
        let t0 = Instant(milliseconds: 5_000_000)
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 4), title: "Manhã", language: "pt")
        var a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: t0).activity)
        a.content.cycle = 2
        let paused = try #require(try TimerMachine.apply(.pause, to: a, now: t0 + .seconds(500)).activity)
        let r = try Shared.get()
        #expect(written == r.render([paused], presentation: .lockscreen, now: t0 + .seconds(999), size: .w128h64))
    }

    @Test func idleIsDarkAndPNGIsWritten() throws {
        let path = "/tmp/islet-render-test-\(getpid()).png"
        defer { unlink(path) }
        #expect(RenderCommand.run(arguments: ["--state", "idle", "--scale", "3", "-o", path]) == 0)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_size > 8)
        #expect(try frame(["--state", "idle"]).litCount == 0)
    }

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
}
