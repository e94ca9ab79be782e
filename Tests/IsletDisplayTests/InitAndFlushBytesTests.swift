import IsletFrame
import Testing
import IsletDisplay

// Expected bytes below are written from the datasheets and the peers, not from the driver's output:
// - Control byte 00h = command stream, 40h = data stream (Co = 0): SSD1306 §8.1.5.2 step 5.
// - Init order: SSD1306 app note "Software Initialization Flow Chart" (Figure 2): A8h mux, D3h 00h,
//   40h, A0h/A1h, C0h/C8h, DAh pins, 81h contrast, A4h, A6h, D5h, 8Dh 14h, AFh; our sequence opens
//   with AEh (§10.1.12) and D5h, adds 20h 00h (horizontal addressing, §10.1.3), sets every register
//   the picture's brightness depends on (D9h pre-charge, DBh VCOMH) instead of trusting what the
//   last program left, stops any scroll (2Eh, §10.2.3) and leaves AFh for after the first frame.
// - SSD1306 charge-pump modules: D9 F1, DB 40, 81 CF as luma.oled and u8g2 send for cheap modules
//   (u8g2's 128x32 driver: 81 8F). SSD1309, SH1106, SH1107: the datasheets' reset values.
// - Module mounting: rotation 0 on these modules is segment remap A1h + COM scan C8h.

@Suite struct InitSequenceTests {
    func initBytes(_ model: PanelModel, _ caps: I2CCapabilities = .plainI2C) throws -> [[UInt8]] {
        let bus = RecordingBus(caps)
        var d = PanelDriver(bus: bus, panel: model)
        try d.initialize()
        return bus.take()
    }

    func model(_ k: ControllerKind, _ w: Int, _ h: Int) throws -> PanelModel {
        try #require(PanelModel.find(k, width: w, height: h))
    }

    @Test func ssd1306_128x32() throws {
        // A8h 1Fh: 32 COM lines (§10.1.11); DAh 02h: sequential COM pins, no remap (§10.1.18, Table 10-3).
        #expect(try initBytes(model(.ssd1306, 128, 32)) == [[
            0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x1F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00,
            0xA1, 0xC8, 0xDA, 0x02, 0x81, 0x8F, 0xD9, 0xF1, 0xDB, 0x40, 0x2E, 0xA4, 0xA6,
        ]])
    }

    @Test func ssd1306_128x64() throws {
        // A8h 3Fh: 64 COM lines; DAh 12h: alternative COM pin configuration (§10.1.18).
        #expect(try initBytes(model(.ssd1306, 128, 64)) == [[
            0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00,
            0xA1, 0xC8, 0xDA, 0x12, 0x81, 0xCF, 0xD9, 0xF1, 0xDB, 0x40, 0x2E, 0xA4, 0xA6,
        ]])
    }

    @Test func ssd1306_72x40_setsTheInternalCurrentReference() throws {
        // u8g2's ssd1306_72x40 init: A8 27 (40 lines), AD 30 (internal IREF, else "very dim"),
        // 81 AF, D9 22, DB 20 (u8x8_d_ssd1306_72x40.c:114-116).
        #expect(try initBytes(model(.ssd1306, 72, 40)) == [[
            0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x27, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0xAD, 0x30, 0x20, 0x00,
            0xA1, 0xC8, 0xDA, 0x12, 0x81, 0xAF, 0xD9, 0x22, 0xDB, 0x20, 0x2E, 0xA4, 0xA6,
        ]])
    }

    @Test func sh1106_128x64() throws {
        // SH1106 command table: no 20h/21h/22h (page addressing only), no scroll; DC-DC is ADh then
        // 8Bh (item 10); reset values D5 50 (item 15), 81 80 (item 7), D9 22 (item 16), DB 35 (item 18).
        #expect(try initBytes(model(.sh1106, 128, 64)) == [[
            0x00, 0xAE, 0xD5, 0x50, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0xAD, 0x8B,
            0xA1, 0xC8, 0xDA, 0x12, 0x81, 0x80, 0xD9, 0x22, 0xDB, 0x35, 0xA4, 0xA6,
        ]])
    }

    @Test func ssd1309_128x64_hasNoChargePump() throws {
        // SSD1309: VCC is external, there is no 8Dh command; reset values D5 70 (A[7:4] = 0111b,
        // p.34), 81 7F, D9 22, DB 34 (~0.78 VCC).
        #expect(try initBytes(model(.ssd1309, 128, 64)) == [[
            0x00, 0xAE, 0xD5, 0x70, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x20, 0x00,
            0xA1, 0xC8, 0xDA, 0x12, 0x81, 0x7F, 0xD9, 0x22, 0xDB, 0x34, 0x2E, 0xA4, 0xA6,
        ]])
    }

    @Test func sh1107_128x128() throws {
        // SH1107 V2.1 command table: start line is DCh + byte (item 17), 20h = page addressing with
        // no parameter (item 3), DC-DC ADh 81h (item 10, POR 81H), A8h 7Fh for 128 lines (item 6),
        // no DAh command. Its modules are not mounted reversed: A0h, C0h.
        #expect(try initBytes(model(.sh1107, 128, 128)) == [[
            0x00, 0xAE, 0xD5, 0x50, 0xA8, 0x7F, 0xD3, 0x00, 0xDC, 0x00, 0xAD, 0x81, 0x20,
            0xA0, 0xC0, 0x81, 0x80, 0xD9, 0x22, 0xDB, 0x35, 0xA4, 0xA6,
        ]])
    }

    @Test func sh1107_64x128_drivesAll128LinesShiftedBy96() throws {
        // luma.oled, u8g2 and Adafruit: A8 7F and D3 60 for the 64x128 glass on COM32-95.
        #expect(try initBytes(model(.sh1107, 64, 128)) == [[
            0x00, 0xAE, 0xD5, 0x50, 0xA8, 0x7F, 0xD3, 0x60, 0xDC, 0x00, 0xAD, 0x81, 0x20,
            0xA0, 0xC0, 0x81, 0x80, 0xD9, 0x22, 0xDB, 0x35, 0xA4, 0xA6,
        ]])
    }

    @Test func rotation180FlipsRemapAndScan() throws {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: try model(.ssd1306, 128, 32), settings: DisplaySettings(rotation: .deg180))
        try d.initialize()
        let t = bus.take()
        // A0h (column 0 → SEG0) and C0h (COM0 first) are the reverse of this module's upright A1h/C8h.
        #expect(t.count == 1 && t[0].contains(0xA0) && t[0].contains(0xC0) && !t[0].contains(0xA1) && !t[0].contains(0xC8))
    }

    @Test func smbusChunksNeverSplitACommand() throws {
        // A 33-byte SMBus limit (command byte + I2C_SMBUS_BLOCK_MAX 32) still holds the whole sequence.
        let t = try initBytes(model(.ssd1306, 128, 64), .smbusBlock)
        #expect(t.allSatisfy { $0.count <= 33 && $0.first == 0x00 })
        #expect(t.flatMap { $0.dropFirst() }.count == 25)
    }
}

@Suite struct SmallFlushTests {
    func panel128x32() throws -> PanelModel { try #require(PanelModel.find(.ssd1306, width: 128, height: 32)) }

    @Test func firstFlushWritesTheWholeWindowThenSwitchesOn() throws {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: try panel128x32())
        try d.initialize()
        _ = bus.take()
        var f = Bitmap(width: 128, height: 32)
        f[0, 0] = true
        let stats = try d.flush(f)
        let t = bus.take()
        // 21h 00h 7Fh: columns 0–127 (§10.1.4); 22h 00h 03h: pages 0–3 (§10.1.5); then 512 data bytes,
        // then AFh display on (§10.1.12).
        #expect(t.count == 3)
        #expect(t[0] == [0x00, 0x21, 0x00, 0x7F, 0x22, 0x00, 0x03])
        #expect(t[1].count == 513 && t[1][0] == 0x40 && t[1][1] == 0x01 && t[1].dropFirst(2).allSatisfy { $0 == 0 })
        #expect(t[2] == [0x00, 0xAF])
        #expect(stats.transactions == 3 && stats.bytes == 7 + 513 + 2 && stats.dataBytes == 512)
    }

    @Test func onePixelCostsOneTinyWindow() throws {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: try panel128x32())
        var f = Bitmap(width: 128, height: 32)
        _ = try d.flush(f)
        _ = bus.take()

        // Pixel (10, 9): page 1 (rows 8–15), bit 1 → byte 02h at column 10 (GDDRAM layout, §8.7).
        f[10, 9] = true
        var s = try d.flush(f)
        #expect(bus.take() == [[0x00, 0x21, 0x0A, 0x0A, 0x22, 0x01, 0x01], [0x40, 0x02]])
        #expect(s.bytes == 9 && s.transactions == 2)

        // Next column on the same page: the page window is unchanged and the pointer is back on
        // page 1 (the 1×1 window wrapped, §10.1.3), so only 21h is sent.
        f[11, 9] = true
        s = try d.flush(f)
        #expect(bus.take() == [[0x00, 0x21, 0x0B, 0x0B], [0x40, 0x02]])

        // The same byte again at the same place: window and pointer are right, data only.
        f[11, 8] = true
        s = try d.flush(f)
        #expect(bus.take() == [[0x40, 0x03]])

        // Nothing changed: nothing is sent.
        s = try d.flush(f)
        #expect(bus.take().isEmpty && s == .zero)
    }

    @Test func fullChangeAfterFullFrameNeedsNoWindowCommands() throws {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: try panel128x32())
        var f = Bitmap(width: 128, height: 32)
        _ = try d.flush(f)
        _ = bus.take()
        f.fill()
        let s = try d.flush(f)
        // The full window is still set and its pointer wrapped back to (0, 0): 512 data bytes only.
        #expect(s.transactions == 1 && s.bytes == 513)
        #expect(bus.take() == [[0x40] + [UInt8](repeating: 0xFF, count: 512)])
    }

    @Test func aChangeThatEndsEarlyOnItsLastPageStopsThereAndTheNextGoesOnFromThePointer() throws {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: try panel128x32())
        var f = Bitmap(width: 128, height: 32)
        _ = try d.flush(f)
        _ = bus.take()
        // Page 0, columns 10–20 all lit (FFh); page 1, columns 10–12 row 8 only (01h, §8.7).
        for x in 10...20 { for y in 0..<8 { f[x, y] = true } }
        for x in 10...12 { f[x, 8] = true }
        var s = try d.flush(f)
        // Window columns 10–20 (21h 0Ah 14h), pages 0–1 (22h 00h 01h); horizontal mode walks page 0
        // then page 1 (§10.1.3), and the stream ends after column 12 of page 1: 11 + 3 data bytes,
        // not the rectangle's 22.
        #expect(bus.take() == [[0x00, 0x21, 0x0A, 0x14, 0x22, 0x00, 0x01], [0x40] + [UInt8](repeating: 0xFF, count: 11) + [0x01, 0x01, 0x01]])
        #expect(s.bytes == 7 + 15 && s.dataBytes == 14)

        // The pointer was left at column 13 of page 1, inside that window: the rest of page 1
        // goes on from there with no command at all.
        for x in 13...20 { f[x, 8] = true }
        s = try d.flush(f)
        #expect(bus.take() == [[0x40] + [UInt8](repeating: 0x01, count: 8)])
        #expect(s.bytes == 9 && s.transactions == 1)
    }

    @Test func sh1106UsesPageAddressingAtColumnOffsetTwo() throws {
        let bus = RecordingBus()
        let model = try #require(PanelModel.find(.sh1106, width: 128, height: 64))
        var d = PanelDriver(bus: bus, panel: model)
        var f = Bitmap(width: 128, height: 64)
        _ = try d.flush(f)
        _ = bus.take()
        // Pixel (0, 0) lives at RAM column 2 (the module's offset), page 0: B0h, then the column.
        // The full frame left the column counter at 2 + 128 = 82h; the low nibble (item 1) already
        // reads 2, so only the high nibble 10h (item 2) is sent. Then data 01h.
        f[0, 0] = true
        _ = try d.flush(f)
        #expect(bus.take() == [[0x00, 0xB0, 0x10], [0x40, 0x01]])
        // Column 5 on page 0 after that write (counter at 3): only the low nibble 05h.
        f[3, 0] = true
        _ = try d.flush(f)
        #expect(bus.take() == [[0x00, 0x05], [0x40, 0x01]])
    }

    @Test func sh1106AtOffsetZeroWritesColumnZero() throws {
        let bus = RecordingBus()
        let model = try #require(PanelModel.find(.sh1106, width: 128, height: 64)).withColumnOffset(0)
        var d = PanelDriver(bus: bus, panel: model)
        var f = Bitmap(width: 128, height: 64)
        _ = try d.flush(f)
        _ = bus.take()
        f[0, 8] = true
        _ = try d.flush(f)
        // Page 1, column 0: B1h; the counter stands at 80h after the full frame, so 10h alone.
        #expect(bus.take() == [[0x00, 0xB1, 0x10], [0x40, 0x01]])
    }

    @Test func settingsSendOnlyWhatChanges() throws {
        let bus = RecordingBus()
        var d = PanelDriver(bus: bus, panel: try panel128x32())
        _ = try d.flush(Bitmap(width: 128, height: 32))
        _ = bus.take()
        _ = try d.setContrast(0x20)
        #expect(bus.take() == [[0x00, 0x81, 0x20]])         // §10.1.7
        _ = try d.setContrast(0x20)
        #expect(bus.take().isEmpty)
        _ = try d.setInverted(true)
        #expect(bus.take() == [[0x00, 0xA7]])               // §10.1.10
        _ = try d.setDisplayOn(false)
        #expect(bus.take() == [[0x00, 0xAE]])               // §10.1.12
        _ = try d.setDisplayOn(true)
        #expect(bus.take() == [[0x00, 0xAF]])
    }

    @Test func wrongFrameSizeIsATypedError() throws {
        var d = PanelDriver(bus: RecordingBus(), panel: try panel128x32(), settings: DisplaySettings(rotation: .deg90))
        #expect(throws: DisplayError.frameSize(expectedWidth: 32, expectedHeight: 128, width: 128, height: 32)) {
            _ = try d.flush(Bitmap(width: 128, height: 32))
        }
    }
}
