import Foundation
import IsletCore
import IsletDaemon
import IsletProtocol
import IsletRender
import Testing
import IsletTestSupport


/// Reads a plain PBM (P1) as rows of bits, comments skipped.
func readPBM(_ path: String) throws -> (width: Int, height: Int, bits: [Bool]) {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var tokens: [String] = []
    for line in text.split(separator: "\n") {
        let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        for t in content.split(separator: " ") where !t.isEmpty { tokens.append(String(t)) }
    }
    guard tokens.first == "P1", tokens.count >= 3, let w = Int(tokens[1]), let h = Int(tokens[2]) else {
        throw HarnessError("\(path) is not a plain PBM")
    }
    // Pixels may be written without separators: split every remaining token into digits.
    var bits: [Bool] = []
    for t in tokens.dropFirst(3) { for c in t where c == "0" || c == "1" { bits.append(c == "1") } }
    guard bits.count == w * h else { throw HarnessError("\(path): \(bits.count) pixels for \(w)x\(h)") }
    return (w, h, bits)
}

@Suite("capture replay against isletctl render", .offPool, .timeLimit(.minutes(2)))
struct CaptureReplayEndToEndTests {
    @Test("the daemon's bus capture, replayed, shows what isletctl render draws for the same state")
    func replayMatchesRender() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let conf = dir + "/isletd.conf"
        // Keep the last frame on the panel at exit, so the replay ends on it.
        try "[display]\non_exit = keep\nsize = 128x64\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let capture = dir + "/bus.capture"
        let d = try DaemonUnderTest(args: ["--config", conf, "--capture", capture], dir: dir)
        #expect(d.ctl("start", "--seconds", "300").status == 0)
        #expect(d.ctl("pause").status == 0)
        let live = try #require(try d.panel())
        #expect(d.stop() == 0)

        let replayed = dir + "/replayed.pbm", rendered = dir + "/rendered.pbm"
        let r1 = runProgram(Repo.isletctl, ["replay", capture, "--controller", "ssd1306", "--size", "128x64", "-o", replayed])
        #expect(r1.status == 0, "\(r1.err)")
        let r2 = runProgram(Repo.isletctl, ["render", "--presentation", "compact", "--size", "128x64", "--state", "paused",
                                            "--duration", "300", "--remaining", "300", "-o", rendered])
        #expect(r2.status == 0, "\(r2.err)")
        let a = try readPBM(replayed), b = try readPBM(rendered)
        #expect(a.width == 128 && a.height == 64)
        #expect(a.bits.contains(true), "the replayed panel is lit")
        #expect(a.bits == b.bits, "replayed capture and render of the same paused 5:00 state are the same image")
        // And the live panel the daemon reported is that image too.
        let liveBits = (0..<64).flatMap { y in (0..<128).map { x in live[x, y] } }
        #expect(liveBits == a.bits)
    }

    @Test("SIGTERM with the default on_exit = off leaves the panel dark")
    func darkOnExit() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let capture = dir + "/bus.capture"
        let d = try DaemonUnderTest(args: ["--capture", capture], dir: dir)
        #expect(d.ctl("start", "--seconds", "300").status == 0)
        #expect(try d.panel() != nil)
        #expect(d.stop() == 0)
        let out = dir + "/after.pbm"
        let r = runProgram(Repo.isletctl, ["replay", capture, "--controller", "ssd1306", "--size", "128x64", "-o", out])
        #expect(r.status == 0, "\(r.err)")
        #expect(try !readPBM(out).bits.contains(true), "the display was switched off on the way out")
    }

    @Test("SIGTERM with on_exit = keep leaves the last frame on the glass")
    func keepOnExit() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let capture = dir + "/bus.capture"
        try "[display]\non_exit = keep\n".write(toFile: dir + "/k.conf", atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(args: ["--config", dir + "/k.conf", "--capture", capture], dir: dir)
        #expect(d.ctl("start", "--seconds", "300").status == 0)
        #expect(d.ctl("pause").status == 0)
        let shown = try #require(try d.panel())
        #expect(d.stop() == 0)
        let out = dir + "/after.pbm"
        let r = runProgram(Repo.isletctl, ["replay", capture, "--controller", "ssd1306", "--size", "128x64", "-o", out])
        #expect(r.status == 0, "\(r.err)")
        let img = try readPBM(out)
        #expect(img.bits.filter { $0 }.count == shown.litCount, "the paused picture stays lit after the daemon left")
    }
}
