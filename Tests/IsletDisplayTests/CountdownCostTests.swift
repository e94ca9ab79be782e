import IsletRender
import IsletFrame
import Testing
import IsletDisplay

/// A compact 128×32 countdown drawn with seven-segment rectangles (the renderer is elsewhere; only
/// the shape of the change matters here: one or two digits of a time).
enum SevenSegment {
    static let segments: [Character: String] = [
        "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg",
        "5": "acdfg", "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg",
    ]

    static func draw(_ text: String, into f: inout Bitmap, x: Int, y: Int) {
        var cx = x
        for ch in text {
            if ch == ":" {
                fillRect(&f, x: cx + 1, y: y + 6, w: 3, h: 3)
                fillRect(&f, x: cx + 1, y: y + 15, w: 3, h: 3)
                cx += 6
                continue
            }
            let on = segments[ch] ?? ""
            let w = 12, h = 24, t = 3
            if on.contains("a") { fillRect(&f, x: cx, y: y, w: w, h: t) }
            if on.contains("b") { fillRect(&f, x: cx + w - t, y: y, w: t, h: h / 2) }
            if on.contains("c") { fillRect(&f, x: cx + w - t, y: y + h / 2, w: t, h: h / 2) }
            if on.contains("d") { fillRect(&f, x: cx, y: y + h - t, w: w, h: t) }
            if on.contains("e") { fillRect(&f, x: cx, y: y + h / 2, w: t, h: h / 2) }
            if on.contains("f") { fillRect(&f, x: cx, y: y, w: t, h: h / 2) }
            if on.contains("g") { fillRect(&f, x: cx, y: y + h / 2 - 1, w: w, h: t) }
            cx += w + 4
        }
    }

    /// A compact frame: a "pill" outline with the remaining time in it.
    static func frame(_ time: String) -> Bitmap {
        var f = Bitmap(width: 128, height: 32)
        fillRect(&f, x: 4, y: 0, w: 120, h: 1)
        fillRect(&f, x: 4, y: 31, w: 120, h: 1)
        fillRect(&f, x: 0, y: 4, w: 1, h: 24)
        fillRect(&f, x: 127, y: 4, w: 1, h: 24)
        fillRect(&f, x: 10, y: 12, w: 8, h: 8)   // the activity glyph
        draw(time, into: &f, x: 40, y: 4)
        return f
    }
}

@Suite struct CountdownCostTests {
    @Test(arguments: I2CTransport.allCases)
    func oneSecondStepCostsASmallFractionOfAFullFrame(_ transport: I2CTransport) throws {
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 32))
        let bus = MockI2CBus(panel: model, transport: transport)
        var d = PanelDriver(bus: bus, panel: model)
        _ = try d.flush(SevenSegment.frame("12:35"))
        _ = try d.flush(SevenSegment.frame("12:34"))

        // A full frame without the init sequence: every byte of the glass changes.
        var all = SevenSegment.frame("12:34")
        for y in 0..<32 { for x in 0..<128 { all[x, y].toggle() } }
        let full = try d.flush(all)
        _ = try d.flush(SevenSegment.frame("12:34"))

        let step = try d.flush(SevenSegment.frame("12:33"))      // one digit changes
        let carry = try d.flush(SevenSegment.frame("12:29"))     // two digits change
        #expect(bus.image() == SevenSegment.frame("12:29"))
        #expect(bus.problems.isEmpty)
        #expect(full.dataBytes == 512)
        // The issue asks for "a small fraction": under a tenth for one digit, a fifth for two.
        #expect(step.wireBytes * 10 < full.wireBytes, "step \(step) vs full \(full)")
        #expect(carry.wireBytes * 5 < full.wireBytes, "carry \(carry) vs full \(full)")
        print("countdown over \(transport): full frame \(full.wireBytes) wire bytes (\(full)); one-digit step \(step.wireBytes) (\(step)); two-digit step \(carry.wireBytes) (\(carry))")
    }
}

/// The same question with the project's own renderer: the compact 128×32 countdown as the
/// daemon draws it (Terminus digits, icon, progress line), 70 consecutive seconds including
/// the carries 12:30 → 12:29 and 12:00 → 11:59.
@Suite struct RenderedCountdownCostTests {
    static let renderer = Result { () throws(FontError) in try Renderer() }

    @Test(arguments: I2CTransport.allCases)
    func renderedSecondStepsCostASmallFractionOfAFullFrame(_ transport: I2CTransport) throws {
        let renderer = try Self.renderer.get()
        func frame(_ remaining: Int) throws -> Bitmap {
            let request = try RenderCommand.parse(["--size", "128x32", "--duration", "1200", "--remaining", "\(remaining)", "-o", "-"])
            return RenderCommand.render(request, with: renderer)
        }
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 32))
        let bus = MockI2CBus(panel: model, transport: transport)
        var d = PanelDriver(bus: bus, panel: model)
        _ = try d.flush(try frame(755))
        // A full frame without the init sequence: every byte of the glass changes.
        var all = try frame(755)
        for y in 0..<32 { for x in 0..<128 { all[x, y].toggle() } }
        let full = try d.flush(all)
        _ = try d.flush(try frame(755))
        var costs: [Int] = []
        for remaining in stride(from: 754, through: 685, by: -1) {
            let f = try frame(remaining)
            let step = try d.flush(f)
            #expect(step.wireBytes > 0, "the shown second changed at \(remaining) s, so bytes must go out")
            costs.append(step.wireBytes)
            #expect(bus.image() == f)
        }
        #expect(bus.problems.isEmpty)
        let sorted = costs.sorted()
        let median = sorted[sorted.count / 2]
        // "A small fraction": the typical step under a tenth of a full frame, and even the
        // worst one (12:00 → 11:59, four of the five characters change) under a third.
        #expect(median * 10 < full.wireBytes, "median step \(median) vs full \(full.wireBytes)")
        #expect((sorted.last ?? 0) * 3 < full.wireBytes, "worst step \(sorted.last ?? 0) vs full \(full.wireBytes)")
        print("rendered countdown over \(transport): full \(full.wireBytes) wire bytes; steps min \(sorted.first ?? 0), median \(median), max \(sorted.last ?? 0)")
    }
}
