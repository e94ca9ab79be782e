import IsletTestSupport
import Testing
@testable import isletctl
import IsletDisplay
import IsletFrame
import IsletRender
#if canImport(Glibc)
import Glibc
#endif

/// `isletctl replay`: the command line around IsletDisplay's pure replay.
@Suite struct ReplayCommandTests {
    /// The hand-written SSD1306 capture both the replay library and its command line are tested on.
    let capture = handWrittenSSD1306Capture

    @Test func replayWritesTheImageAPersonWouldSee() throws {
        let input = temporaryPath("replay.txt"), output = temporaryPath("replay.pbm")
        defer { unlink(input); unlink(output) }
        writeFile(input, capture)
        let status = ReplayCommand.run(arguments: [input, "--controller", "ssd1306", "--size", "128x32", "-o", output])
        #expect(status == 0)
        let text = try #require(readFile(output))
        let image = try #require(ImageFile.parsePBM(text))
        // Column 5 page 1 = FFh: rows 8–15; column 6 = 81h: rows 8 and 15.
        var expected = Bitmap(width: 128, height: 32)
        for y in 8...15 { expected[5, y] = true }
        expected[6, 8] = true
        expected[6, 15] = true
        #expect(image == expected)
        unlink(input); unlink(output)
    }

    @Test func badArgumentsExit64() {
        #expect(ReplayCommand.run(arguments: []) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "--controller", "st7735", "--size", "128x32", "-o", "o.pbm"]) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "--controller", "ssd1306", "--size", "100x10", "-o", "o.pbm"]) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "--controller", "ssd1306", "--size", "128x32"]) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "--controller", "sh1106", "--size", "128x64", "--col-offset", "9", "-o", "o.pbm"]) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "--controller", "sh1107", "--size", "64x128", "--col-offset", "2", "-o", "o.pbm"]) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "y.txt", "--controller", "ssd1306", "--size", "128x32", "-o", "o.pbm"]) == 64)
        #expect(ReplayCommand.run(arguments: ["x.txt", "--controller", "ssd1306", "--size", "128x32", "--fast", "-o", "o.pbm"]) == 64)
    }

    @Test func malformedCaptureExits65AndMissingFile66() {
        let input = temporaryPath("bad.txt")
        defer { unlink(input); unlink(temporaryPath("o.pbm")) }
        writeFile(input, "0 3c 00 zz\n")
        #expect(ReplayCommand.run(arguments: [input, "--controller", "ssd1306", "--size", "128x32", "-o", temporaryPath("o.pbm")]) == 65)
        #expect(ReplayCommand.run(arguments: [temporaryPath("missing.txt"), "--controller", "ssd1306", "--size", "128x32", "-o", temporaryPath("o.pbm")]) == 66)
        unlink(input)
    }
}

private func temporaryPath(_ name: String) -> String {
    "/tmp/islet-replay-command-test-\(getpid())-\(name)"
}

private func readFile(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var out = [UInt8]()
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out += buf[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

private func writeFile(_ path: String, _ text: String) {
    guard let f = fopen(path, "w") else { return }
    _ = text.withCString { fputs($0, f) }
    fclose(f)
}
