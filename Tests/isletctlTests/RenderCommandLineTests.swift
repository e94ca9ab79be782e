import Testing
import IsletCore
import IsletRender
import IsletTestSupport
@testable import isletctl
#if canImport(Glibc)
import Glibc
#endif

/// `isletctl render`: arguments, exit status and the files written.
struct RenderCommandLineTests {
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
        let written = try #require(readTextFile(path).flatMap(ImageFile.parsePBM))
        // The same state built by hand through the core, as the daemon would hold it.
        let t0 = Instant(milliseconds: 5_000_000)
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 4), title: "Manhã", language: "pt")
        var a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: t0).activity)
        a.content.cycle = 2
        let paused = try #require(try TimerMachine.apply(.pause, to: a, now: t0 + .seconds(500)).activity)
        let r = try Renderer()
        #expect(written == r.render([paused], presentation: .lockscreen, now: t0 + .seconds(999), size: .w128h64))
    }

    @Test func idleIsDarkAndPNGIsWritten() throws {
        let path = "/tmp/islet-render-test-\(getpid()).png"
        defer { unlink(path) }
        #expect(RenderCommand.run(arguments: ["--state", "idle", "--scale", "3", "-o", path]) == 0)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_size > 8)
        #expect(RenderCommand.render(try RenderCommand.parse(["--state", "idle", "-o", "-"]), with: try Renderer()).litCount == 0)
    }
}
