import IsletFrame
import Testing
import IsletDisplay
import IsletRender

/// The emulated glass comes from `ModuleWiring` (written from the datasheets and peers), so a wrong
/// row of the driver's table shows a wrong picture instead of moving both sides together.
@Suite struct ModuleWiringTests {
    /// A frame where every row and column differs from its neighbours: any shift shows.
    func pattern(_ w: Int, _ h: Int) -> Bitmap {
        var b = Bitmap(width: w, height: h)
        for y in 0..<h { for x in 0..<w where (x * 7 + y * 3 + x / 5) % 4 == 0 || x == y { b[x, y] = true } }
        return b
    }

    func shown(_ model: PanelModel, on module: ModuleWiring) throws -> (Bitmap, [PanelProblem]) {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: model)
        _ = try d.flush(pattern(model.width, model.height))
        var p = EmulatedPanel(model: model, module: module)
        for t in bus.take() { p.receive(t) }
        return (p.image, p.problems)
    }

    @Test(arguments: PanelModel.all)
    func everyRowShowsTheUprightPictureOnItsModule(_ model: PanelModel) throws {
        let module = try #require(ModuleWiring.common(model.controller.kind, width: model.width, height: model.height))
        let (image, problems) = try shown(model, on: module)
        #expect(problems.isEmpty, "\(problems)")
        #expect(image == pattern(model.width, model.height))
    }

    @Test func theRowsBeforeThisChangeAreRejected() throws {
        // Islet's table at 8107ba6: SH1107 64x128 with A8 3F / D3 00; SSD1306 96x16 at column 16.
        var sh = try #require(PanelModel.find(.sh1107, width: 64, height: 128))
        sh.multiplex = 0x3F; sh.displayOffset = 0x00
        var s96 = try #require(PanelModel.find(.ssd1306, width: 96, height: 16))
        s96.columnOffset = 16
        for old in [sh, s96] {
            let module = try #require(ModuleWiring.common(old.controller.kind, width: old.width, height: old.height))
            let (image, _) = try shown(old, on: module)
            #expect(image != pattern(old.width, old.height), "\(old) should show a wrong picture")
        }
    }

    @Test(arguments: PanelModel.all)
    func aOneStepChangeOfAnyGeometryValueIsCaught(_ model: PanelModel) throws {
        let module = try #require(ModuleWiring.common(model.controller.kind, width: model.width, height: model.height))
        var variants: [(String, PanelModel)] = []
        for d in [-1, 1] {
            var m = model; m.columnOffset += d; if m.columnOffset >= 0, m.isConsistent { variants.append(("column offset \(d)", m)) }
            m = model; m.displayOffset = UInt8(truncatingIfNeeded: Int(model.displayOffset) + d) & (model.controller.comAlongColumns ? 0x7F : 0x3F)
            variants.append(("display offset \(d)", m))
            m = model; m.multiplex = UInt8(truncatingIfNeeded: Int(model.multiplex) + d); variants.append(("multiplex \(d)", m))
        }
        var m = model; m.segmentRemap.toggle(); variants.append(("remap", m))
        m = model; m.comScanReversed.toggle(); variants.append(("scan", m))
        if let pins = model.comPins { m = model; m.comPins = pins ^ 0x10; variants.append(("COM pins", m)) }
        for (what, v) in variants {
            // The one change no picture shows: 127 instead of 128 lines on the SH1107 64x128 still
            // drives the glass's COM32-95 (only the duty changes); listed in docs/DISPLAY.md.
            if model.controller.kind == .sh1107, model.width == 64, what == "multiplex -1" { continue }
            let (image, problems) = try shown(v, on: module)
            #expect(image != pattern(model.width, model.height) || !problems.isEmpty, "\(model): \(what) not caught")
            // A wrong DAh is modelled pad by pad, so it must show on the glass, not only in a report.
            if what == "COM pins" { #expect(image != pattern(model.width, model.height), "\(model): wrong COM pins look right") }
        }
    }

    /// SSD1306 Table 10-3 (p. 40–42), read row by row: a 128×64 module is wired for the
    /// alternative configuration (12h: pad COMk carries row 2k, pad COM(32+k) row 2k+1). Sent 02h
    /// (sequential: pad COMk carries row k), glass line 2k shows picture row k and line 2k+1 shows
    /// row 32+k. A 128×32 module is wired for 02h with glass line l on pad COM(31−l) (it needs
    /// C8h to be upright, so C8h maps scan index c to row 31−c); sent 12h, pad p < 16 carries scan
    /// index 2p, so line l ≥ 16 shows row 31−2(31−l) = 2l−31, and lines 0–15 (pads 16–31, which
    /// carry scan index 32 and up, beyond the 32-line multiplex) stay dark.
    @Test func aWrongCOMPinsValueInterleavesAsTheDatasheetTableSays() throws {
        var m64 = try #require(PanelModel.find(.ssd1306, width: 128, height: 64))
        let module64 = try #require(ModuleWiring.common(.ssd1306, width: 128, height: 64))
        #expect(m64.comPins == 0x12)
        m64.comPins = 0x02
        let sent = pattern(128, 64)
        let (glass64, _) = try shown(m64, on: module64)
        for k in 0..<32 {
            for x in 0..<128 {
                #expect(glass64[x, 2 * k] == sent[x, k], "line \(2 * k) column \(x)")
                #expect(glass64[x, 2 * k + 1] == sent[x, 32 + k], "line \(2 * k + 1) column \(x)")
            }
        }
        var m32 = try #require(PanelModel.find(.ssd1306, width: 128, height: 32))
        let module32 = try #require(ModuleWiring.common(.ssd1306, width: 128, height: 32))
        #expect(m32.comPins == 0x02)
        m32.comPins = 0x12
        let sent32 = pattern(128, 32)
        let (glass32, _) = try shown(m32, on: module32)
        for x in 0..<128 {
            for l in 16..<32 { #expect(glass32[x, l] == sent32[x, 2 * l - 31], "line \(l) column \(x)") }
            for l in 0..<16 { #expect(!glass32[x, l], "line \(l) column \(x) should be dark") }
        }
    }

    @Test func brightnessRegistersEndAsTheSourcesSay() throws {
        // (D5, D9, DB, 81, IREF) after init, written from the sources, not read from the table:
        // SSD1306 modules F1/40/CF as luma.oled (u8g2 128x32: 81 8F; 96x16: luma D5 60; 72x40, whose
        // only peer is u8g2 ssd1306_72x40.c:114-116: D9 22, DB 20, 81 AF, and AD 30);
        // SSD1309 reset values 70/22/34/7F; SH1106 and SH1107 reset values 50/22/35/80.
        let expected: [(ControllerKind, Int, Int, UInt8, UInt8, UInt8, UInt8, UInt8?)] = [
            (.ssd1306, 128, 64, 0x80, 0xF1, 0x40, 0xCF, nil), (.ssd1306, 128, 32, 0x80, 0xF1, 0x40, 0x8F, nil),
            (.ssd1306, 96, 16, 0x60, 0xF1, 0x40, 0xCF, nil), (.ssd1306, 72, 40, 0x80, 0x22, 0x20, 0xAF, 0x30),
            (.ssd1306, 64, 48, 0x80, 0xF1, 0x40, 0xCF, nil), (.ssd1306, 64, 32, 0x80, 0xF1, 0x40, 0xCF, nil),
            (.ssd1309, 128, 64, 0x70, 0x22, 0x34, 0x7F, nil), (.sh1106, 128, 64, 0x50, 0x22, 0x35, 0x80, nil),
            (.sh1107, 64, 128, 0x50, 0x22, 0x35, 0x80, nil), (.sh1107, 128, 128, 0x50, 0x22, 0x35, 0x80, nil),
        ]
        for (k, w, h, d5, d9, db, c, iref) in expected {
            let model = try #require(PanelModel.find(k, width: w, height: h))
            let bus = MockI2CBus(panel: model)
            var d = PanelDriver(bus: bus, panel: model)
            try d.initialize()
            let p = try #require(bus.panel(at: 0x3C))
            #expect((p.clockDivide, p.precharge, p.vcomh, p.contrast) == (d5, d9, db, c), "\(k) \(w)x\(h)")
            #expect(p.iref == iref, "\(k) \(w)x\(h)")
        }
    }

    @Test func everyValueOfEveryRowCitesASource() {
        for m in PanelModel.all { for f in PanelField.allCases { #expect(!(m.sources[f] ?? "").isEmpty, "\(m) \(f)") } }
    }

    @Test func onlyTheIREFVariantTakesAD() throws {
        let plain = try #require(PanelModel.find(.ssd1306, width: 128, height: 64))
        var p = EmulatedPanel(model: plain)
        p.receive([0x00, 0xAD, 0x30])
        #expect(p.problems.contains { $0.message.contains("unknown command ADh") })
    }

    @Test func pageModeWritesPastTheEndWrapToTheStartColumn() throws {
        // SSD1306 §10.1.3: in page mode the column pointer returns to the start column, page unchanged.
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 64))
        var p = EmulatedPanel(model: model)
        p.receive([0x00, 0x8D, 0x14, 0xA0, 0xC8, 0x20, 0x02, 0xB0, 0x0F, 0x17, 0xAF])   // page 0, column 127
        p.receive([0x40, 0xFF, 0x01])
        #expect(p.problems.isEmpty)
        #expect(p.ram[127] == 0xFF && p.ram[0] == 0x01)
    }

    @Test func sh1106TakesOneToSixtyFourLinesAndExternalVPPLights() throws {
        let model = try #require(PanelModel.find(.sh1106, width: 128, height: 64))
        var p = EmulatedPanel(model: model)
        p.receive([0x00, 0xA8, 0x00])
        #expect(p.problems.isEmpty)
        var module = try #require(ModuleWiring.common(.sh1106, width: 128, height: 64))
        module.externalVPP = true
        var q = EmulatedPanel(model: model, module: module)
        q.receive([0x00, 0xAD, 0x8A, 0xA5, 0xAF])   // DC-DC off, entire display on
        #expect(q.problems.isEmpty && q.image.litCount == 128 * 64)
    }

    @Test func testPatternMarksEveryEdgeAndCorner() {
        let b = TestPattern.frame(width: 128, height: 64)
        #expect((0..<128).allSatisfy { b[$0, 0] && b[$0, 63] })
        #expect((0..<64).allSatisfy { b[0, $0] && b[127, $0] })
        // The largest corner mark is at the top left: a rotated picture moves it.
        #expect(b[13, 13] && !b[127 - 13, 63 - 13])
        #expect(b != TestPattern.frame(width: 128, height: 32))
    }
}
