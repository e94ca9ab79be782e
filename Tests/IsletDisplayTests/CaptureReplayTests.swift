import IsletTestSupport
import IsletFrame
import Testing
import IsletDisplay
import IsletSystem
import IsletErrno
#if canImport(Glibc)
import Glibc
#endif

func temporaryPath(_ name: String) -> String {
    "/tmp/islet-display-test-\(getpid())-\(name)"
}

func readFile(_ path: String) -> String? { readTextFile(path) }

func writeFile(_ path: String, _ text: String) {
    guard let f = fopen(path, "w") else { return }
    _ = text.withCString { fputs($0, f) }
    fclose(f)
}

@Suite struct CaptureTests {
    /// A capture whose file cannot take more (here /dev/full: every write is ENOSPC) says so,
    /// naming the file and the errno, and the bus keeps serving the panel.
    @Test func aFailingCaptureFileIsReportedAndTheBusKeepsWorking() throws {
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 32))
        let bus = MockI2CBus(panel: model)
        try bus.startCapture(to: "/dev/full")
        try bus.write(address: 0x3C, bytes: [0x00, 0xAE])
        let e = try #require(bus.captureError)
        #expect(e.file == "/dev/full" && e.message.contains("errno \(ENOSPC)"))
        #expect(e.description.hasPrefix("/dev/full: capture stopped"))
        try bus.write(address: 0x3C, bytes: [0x00, 0x8D, 0x14, 0xA5, 0xAF])
        #expect(bus.problems.isEmpty)
        #expect(bus.image().litCount == 128 * 32)   // A5h: entire display on, the panel still listens
        bus.stopCapture()
        #expect(bus.captureError == nil)
    }

    @Test func theHeaderStatesItsOriginOnTheMonotonicClockOnlyWhenItIsThatClock() throws {
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 32))
        func now() -> UInt64 {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        }
        let path = temporaryPath("capture-origin.txt")
        defer { unlink(path) }
        let real = MockI2CBus(panel: model)
        let before = now()
        try real.startCapture(to: path)
        let after = now()
        real.stopCapture()
        let header = try #require(readFile(path)?.split(separator: "\n").first.map(String.init))
        let stated = try #require(header.split(separator: "monotonic_ns=").last.flatMap { UInt64($0) })
        #expect(stated >= before && stated <= after)

        let manual = ManualClock()
        let fake = MockI2CBus(panel: model, clock: manual.read)
        try fake.startCapture(to: path)
        fake.stopCapture()
        #expect(readFile(path)?.contains("monotonic_ns=") == false)
    }

    @Test func linesFollowTheFormat() throws {
        let clock = ManualClock()
        clock.set(5_000)
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 32))
        let bus = MockI2CBus(panel: model, clock: clock.read)
        let path = temporaryPath("capture.txt")
        defer { unlink(path) }
        writeFile(path, "stale content that must be truncated\n")
        try bus.startCapture(to: path)
        clock.advance(1_500)
        try bus.write(address: 0x3C, bytes: [0x00, 0xAE, 0x8D, 0x14])
        clock.advance(250)
        try bus.write(address: 0x3C, bytes: [0x40, 0xFF, 0x0A])
        bus.failTransaction(2, errno: .remoteIO)
        clock.advance(1)
        #expect(throws: I2CError.self) { try bus.write(address: 0x3C, bytes: [0x00, 0xAF]) }
        bus.stopCapture()
        let text = try #require(readFile(path))
        let lines = text.split(separator: "\n").map(String.init)
        // Format from the issue: "<ns since open> <2-hex address> <2-hex bytes separated by spaces>".
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("#"))
        #expect(lines[1] == "1500 3c 00 ae 8d 14")
        #expect(lines[2] == "1750 3c 40 ff 0a")
        #expect(lines[3].hasPrefix("# 1751 3c failed"))
        let records = try CaptureFormat.parse(text)
        #expect(records == [
            CaptureRecord(nanoseconds: 1500, address: 0x3C, bytes: [0x00, 0xAE, 0x8D, 0x14]),
            CaptureRecord(nanoseconds: 1750, address: 0x3C, bytes: [0x40, 0xFF, 0x0A]),
        ])
        unlink(path)
    }

    @Test func parseErrorsNameTheLine() {
        #expect(throws: CaptureError(file: "c.txt", line: 3, message: "byte 2 `AE` is not two lowercase hex digits")) {
            _ = try CaptureFormat.parse("# comment\n10 3c 00 ae\n20 3c 00 AE\n", file: "c.txt")
        }
        #expect(throws: CaptureError.self) { _ = try CaptureFormat.parse("10 0x3c 00\n") }
        #expect(throws: CaptureError.self) { _ = try CaptureFormat.parse("10 3c\n") }
        #expect(throws: CaptureError.self) { _ = try CaptureFormat.parse("20 3c 00\n10 3c 00\n") }
        #expect(throws: CaptureError.self) { _ = try CaptureFormat.parse("-1 3c 00\n") }
    }
}

@Suite struct ReplayTests {
    /// The hand-written SSD1306 capture both the replay library and its command line are tested on.
    let capture = handWrittenSSD1306Capture

    @Test func replayLibraryCountsBytesAndRate() throws {
        let records = try CaptureFormat.parse(capture)
        let r = Replay.run(records, model: try #require(PanelModel.find(.ssd1306, width: 128, height: 32)))
        #expect(r.transactions == 5)
        #expect(r.bytes == 12 + 7 + 513 + 8 + 3)
        #expect(r.durationNanoseconds == 4_000_000)
        #expect(r.transactionsPerSecond == 1250)
        #expect(r.problems.isEmpty)
    }

    @Test func replayOfADriverCaptureMatchesTheFrame() throws {
        // Capture a driver session on the mock bus, then replay it: the same image comes back.
        let model = try #require(PanelModel.find(.sh1106, width: 128, height: 64))
        let bus = MockI2CBus(panel: model, transport: .smbusBlock)
        let path = temporaryPath("session.txt")
        defer { unlink(path) }
        try bus.startCapture(to: path)
        var d = PanelDriver(bus: bus, panel: model)
        var f = Bitmap(width: 128, height: 64)
        fillRect(&f, x: 0, y: 0, w: 128, h: 1)
        fillRect(&f, x: 20, y: 20, w: 30, h: 11)
        _ = try d.flush(f)
        f[127, 63] = true
        _ = try d.flush(f)
        bus.stopCapture()
        let r = try Replay.run(file: path, model: model)
        #expect(r.image == f)
        #expect(r.problems.isEmpty)
        unlink(path)
    }
}
