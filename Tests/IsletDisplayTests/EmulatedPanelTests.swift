import IsletTestSupport
import Testing
import IsletDisplay

// Streams here are written by hand from the datasheets; the emulator must show what the glass would.

@Suite struct EmulatedPanelTests {
    let m128x32 = PanelModel.find(.ssd1306, width: 128, height: 32)
    let sh1106 = PanelModel.find(.sh1106, width: 128, height: 64)

    /// The smallest SSD1306 bring-up: pump on, upright remap/scan for these modules, display on.
    func powered(_ model: PanelModel) -> EmulatedPanel {
        var p = EmulatedPanel(model: model)
        p.receive([0x00, 0xA8, model.multiplex, 0xDA, model.comPins ?? 0x12, 0x8D, 0x14, 0xA1, 0xC8, 0xAF])
        return p
    }

    func clearRAM(_ p: inout EmulatedPanel) {
        p.receive([0x00, 0x20, 0x00, 0x21, 0x00, 0x7F, 0x22, 0x00, 0x07])
        p.receive([0x40] + [UInt8](repeating: 0, count: 1024))
    }

    @Test func horizontalWindowFillsColumnsThenPages() throws {
        var p = powered(try #require(m128x32))
        clearRAM(&p)
        // Window columns 4–5, pages 1–2 (§10.1.4, §10.1.5); four bytes go (4,p1) (5,p1) (4,p2) (5,p2).
        p.receive([0x00, 0x21, 0x04, 0x05, 0x22, 0x01, 0x02])
        p.receive([0x40, 0x01, 0x80, 0xFF, 0x00])
        let img = p.image
        #expect(img[4, 8] && !img[4, 9])           // 01h on page 1: row 8 only
        #expect(img[5, 15] && !img[5, 14])         // 80h on page 1: row 15 only
        #expect((16...23).allSatisfy { img[4, $0] }) // FFh on page 2
        #expect(img.litCount == 10)
        #expect(p.problems.isEmpty)
    }

    @Test func verticalModeWalksPagesFirst() throws {
        var p = powered(try #require(m128x32))
        clearRAM(&p)
        // 20h 01h vertical addressing (§10.1.3): bytes go down the pages of one column, then the next.
        p.receive([0x00, 0x20, 0x01, 0x21, 0x00, 0x01, 0x22, 0x00, 0x01])
        p.receive([0x40, 0x01, 0x01, 0x01])
        let img = p.image
        #expect(img[0, 0] && img[0, 8] && img[1, 0] && !img[1, 8])
    }

    @Test func controlByteWithCoSetCarriesOneByte() throws {
        var p = powered(try #require(m128x32))
        clearRAM(&p)
        // Co = 1 (80h): one command byte follows, then another control byte (§8.1.5.2 step 5a).
        p.receive([0x80, 0x21, 0x80, 0x02, 0x80, 0x02, 0x80, 0x22, 0x80, 0x00, 0x80, 0x00, 0xC0, 0x01, 0x40, 0x03])
        #expect(p.problems.isEmpty)
        // C0h: one data byte (01h at column 2); then 40h streams 03h, wrapping back to column 2.
        #expect(p.image[2, 0] && p.image[2, 1])
    }

    @Test func pageModeNibblesOnSH1106WithOffset() throws {
        var p = EmulatedPanel(model: try #require(sh1106))
        p.receive([0x00, 0xAD, 0x8B, 0xA1, 0xC8, 0xAF])
        for page in 0..<8 { p.receive([0x00, 0xB0 | UInt8(page), 0x00, 0x10]); p.receive([0x40] + [UInt8](repeating: 0, count: 132)) }
        // Page 1, column 2 (02h, 10h): the leftmost visible column of a module wired at offset 2.
        p.receive([0x00, 0xB1, 0x02, 0x10])
        p.receive([0x40, 0x80])
        #expect(p.image[0, 15])
        #expect(p.image.litCount == 1)
        #expect(p.problems.isEmpty)
    }

    @Test func sh1106RejectsSSD1306WindowCommands() throws {
        var p = EmulatedPanel(model: try #require(sh1106))
        p.receive([0x00, 0x21, 0x00, 0x7F])
        #expect(p.problems.first?.message.contains("unknown command 21h") == true)
    }

    @Test func sh1106DataPastColumn131IsReported() throws {
        var p = EmulatedPanel(model: try #require(sh1106))
        p.receive([0x00, 0xB0, 0x03, 0x18])   // column 83h = 131, the last one
        p.receive([0x40, 0x00, 0x00])
        #expect(p.problems.count == 1 && p.problems[0].message.contains("past the last RAM column 131"))
    }

    @Test func ssd1309HasNoChargePumpCommand() throws {
        var p = EmulatedPanel(model: try #require(PanelModel.find(.ssd1309, width: 128, height: 64)))
        p.receive([0x00, 0x8D, 0x14])
        #expect(p.problems.contains { $0.message.contains("unknown command 8Dh") })
    }

    @Test func missingParameterIsReported() throws {
        var p = EmulatedPanel(model: try #require(m128x32))
        p.receive([0x00, 0x81])
        #expect(p.problems.count == 1 && p.problems[0].message.contains("missing 1 parameter"))
        p.receive([0x00, 0x21, 0x00])
        p.receive([0x40, 0xFF])
        #expect(p.problems.count == 2)
    }

    @Test func chargePumpOffLeavesTheGlassDark() throws {
        var p = EmulatedPanel(model: try #require(m128x32))
        p.receive([0x00, 0xA5, 0xAF])   // entire display on, but no 8Dh 14h (charge pump app note)
        #expect(p.image.litCount == 0)
        #expect(p.problems.contains { $0.message.contains("charge pump") })
        p.receive([0x00, 0x8D, 0x14])
        #expect(p.image.litCount == 128 * 32)
    }

    @Test func invertDisplayOffAndEntireOn() throws {
        let model = try #require(m128x32)
        var p = powered(model)
        clearRAM(&p)
        p.receive([0x00, 0xA7])                 // §10.1.10 inverse: RAM 0 shows lit
        #expect(p.image.litCount == 128 * 32)
        p.receive([0x00, 0xA6, 0xA5])           // §10.1.9 entire display on
        #expect(p.image.litCount == 128 * 32)
        p.receive([0x00, 0xA4, 0xAE])           // back to RAM, then display off
        #expect(p.image.litCount == 0)
        #expect(!p.displayOn)
    }

    @Test func remapAndScanTurnTheImageHalfway() throws {
        let model = try #require(m128x32)
        var p = powered(model)
        clearRAM(&p)
        // With A0h/C0h on a module mounted for A1h/C8h the image is rotated 180°. On the SSD1306 the
        // remap applies to data written afterwards (§10.1.8), the scan direction at once (§10.1.14).
        p.receive([0x00, 0xA0, 0xC0, 0x21, 0x00, 0x00, 0x22, 0x00, 0x00])
        p.receive([0x40, 0x01])
        #expect(p.image[127, 31])
        #expect(p.image.litCount == 1)
    }

    @Test func smallerMultiplexLeavesRowsDark() throws {
        let model = try #require(PanelModel.find(.ssd1306, width: 128, height: 64))
        var p = powered(model)
        clearRAM(&p)
        p.receive([0x00, 0xA5, 0xA8, 0x1F])    // only 32 COM lines driven (§10.1.11)
        #expect(p.image.litCount == 128 * 32)
    }

    @Test func wrongCOMPinsIsReported() throws {
        var p = EmulatedPanel(model: try #require(m128x32))
        p.receive([0x00, 0xDA, 0x12])
        #expect(p.problems.first?.message.contains("COM pins") == true)
    }

    @Test func sh1107VerticalAndStartLine() throws {
        let model = try #require(PanelModel.find(.sh1107, width: 128, height: 128))
        var p = EmulatedPanel(model: model)
        p.receive([0x00, 0xAF])
        for page in 0..<16 { p.receive([0x00, 0xB0 | UInt8(page), 0x00, 0x10]); p.receive([0x40] + [UInt8](repeating: 0, count: 128)) }
        // 21h: vertical addressing, no parameter (SH1107 item 3): bytes walk down the pages.
        p.receive([0x00, 0x21, 0xB0, 0x05, 0x10])
        p.receive([0x40, 0x01, 0x01])
        #expect(p.image[5, 0] && p.image[5, 8])
        // DCh 01h: RAM column 1 becomes the first COM line (item 17), moving the image by one.
        p.receive([0x00, 0xDC, 0x01])
        #expect(p.image[4, 0] && !p.image[5, 0])
        #expect(p.problems.isEmpty)
    }
}

/// Replay feeds arbitrary files into the emulator: no stream may trap it.
@Suite struct EmulatedPanelRobustnessTests {
    @Test(arguments: PanelModel.all)
    func randomStreamsNeverTrap(_ model: PanelModel) {
        let seed: UInt64 = 0xBAD5_EED0 &+ UInt64(PanelModel.all.firstIndex(of: model) ?? 0)
        var rng = SplitMix(state: seed)
        var panel = EmulatedPanel(model: model)
        for _ in 0..<fuzzIterations(10) * 20 {
            var t: [UInt8] = []
            for _ in 0..<rng.int(40) {
                // Bias towards control bytes and real opcodes so deep states are reached.
                switch rng.int(4) {
                case 0: t.append([0x00, 0x40, 0x80, 0xC0][rng.int(4)])
                case 1: t.append([0x20, 0x21, 0x22, 0xB0, 0x10, 0xA8, 0xDC, 0xD3, 0xA1, 0xC8, 0xAF, 0xA5][rng.int(12)])
                default: t.append(UInt8(truncatingIfNeeded: rng.next()))
                }
            }
            panel.receive(t)
        }
        #expect(panel.image.width == model.width, "seed \(seed)")
        #expect(panel.transactions == fuzzIterations(10) * 20)
    }
}
