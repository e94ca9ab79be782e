import IsletFrame
import Foundation
import IsletDaemon
import IsletRender
import Testing
import IsletClock

/// The alignment pattern through the real daemon and client: `isletctl test-pattern` and
/// `isletd --test-pattern`, read back from the emulated module on the mock bus. What is checked is
/// the pattern's promise to a person (docs/DISPLAY.md): a one-pixel border on all four sides and
/// the largest corner mark at the top left, so a shifted, cut or turned picture fails.
@Suite("test pattern end to end", .offPool, .timeLimit(.minutes(2)))
struct TestPatternEndToEndTests {
    func borderIsWhole(_ b: Bitmap) -> Bool {
        for x in 0..<b.width where !b[x, 0] || !b[x, b.height - 1] { return false }
        for y in 0..<b.height where !b[0, y] || !b[b.width - 1, y] { return false }
        return true
    }

    func lit(_ b: Bitmap, x0: Int, y0: Int, size: Int) -> Int {
        var n = 0
        for y in y0..<(y0 + size) { for x in x0..<(x0 + size) where b[x, y] { n += 1 } }
        return n
    }

    func largestMarkTopLeft(_ b: Bitmap) -> Bool {
        let s = 8
        let tl = lit(b, x0: 1, y0: 1, size: s), tr = lit(b, x0: b.width - 1 - s, y0: 1, size: s)
        let bl = lit(b, x0: 1, y0: b.height - 1 - s, size: s), br = lit(b, x0: b.width - 1 - s, y0: b.height - 1 - s, size: s)
        return tl > max(tr, bl, br)
    }

    func waitForPanel(_ d: some ControlledDaemon, _ ok: (Bitmap?) -> Bool) throws -> Bitmap? {
        var last: Bitmap?
        for _ in 0..<40 {
            last = try d.panel()
            if ok(last) { return last }
            sleepSeconds(0.05)
        }
        return last
    }

    @Test(arguments: [("ssd1306", "128x64"), ("sh1106", "128x64"), ("ssd1306", "128x32"), ("sh1107", "64x128")])
    func isletctlShowsThePatternUntilItsTimeOrOff(_ panel: (String, String)) throws {
        let d = try DaemonUnderTest(args: ["--controller", panel.0, "--size", panel.1])
        #expect(try d.panel() == nil, "idle: dark")
        let r = d.ctl("test-pattern", "--seconds", "30")
        #expect(r.status == 0, "\(r.err)")
        let shown = try #require(try waitForPanel(d) { $0 != nil }, "the pattern lights the panel")
        #expect(borderIsWhole(shown), "\(panel): the border is cut or shifted")
        #expect(largestMarkTopLeft(shown), "\(panel): the picture is turned or mirrored")
        #expect(try d.status().status?.presentation == "test_pattern")
        #expect(d.ctl("test-pattern", "--off").status == 0)
        #expect(try waitForPanel(d) { $0 == nil } == nil, "--off returns to the idle (dark) panel")
    }

    /// Its seconds run on an injected clock (the daemon in this process, isletctl over the socket).
    @Test func theStartUpPatternEndsByItself() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock(), args: ["--test-pattern", "1"])
        defer { d.stop() }
        let shown = try #require(try d.panel(), "--test-pattern shows at start-up")
        #expect(borderIsWhole(shown) && largestMarkTopLeft(shown))
        d.pass(milliseconds: 999)
        #expect(try d.panel() == shown, "shown for all of its second")
        d.pass(milliseconds: 1)
        #expect(try d.panel() == nil, "after its seconds the panel goes back to idle")
        // A timer started meanwhile wins over an expired pattern.
        #expect(d.ctl("start", "--seconds", "60").status == 0)
        let running = try #require(try d.panel())
        #expect(!borderIsWhole(running), "the countdown replaced the pattern")
    }
}
