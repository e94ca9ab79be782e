import IsletFrame
import Testing
import IsletDisplay

@Suite struct MoreDriverTests {
    let model = PanelModel.find(.ssd1306, width: 128, height: 32)

    @Test func firstFrameOverSMBusIsCutInto32ByteBlocks() throws {
        let bus = RecordingBus(.smbusBlock)
        var d = PanelDriver(bus: bus, panel: try #require(model))
        try d.initialize()
        _ = bus.take()
        let s = try d.flush(Bitmap(width: 128, height: 32))
        let t = bus.take()
        // Window command, then 512 data bytes as 16 SMBus I²C-block writes of command 40h + 32 bytes
        // (I2C_SMBUS_BLOCK_MAX), then AFh.
        #expect(t.count == 18)
        #expect(t[0] == [0x00, 0x21, 0x00, 0x7F, 0x22, 0x00, 0x03])
        #expect(t[1..<17].allSatisfy { $0.count == 33 && $0[0] == 0x40 })
        #expect(t[17] == [0x00, 0xAF])
        #expect(s.bytes == 537 && s.transactions == 18)
    }

    @Test func quarterTurnIsClockwise() throws {
        let m = try #require(model)
        let bus = MockI2CBus(panel: m)
        var d = PanelDriver(bus: bus, panel: m, settings: DisplaySettings(rotation: .deg90))
        #expect(d.frameWidth == 32 && d.frameHeight == 128)
        var f = Bitmap(width: 32, height: 128)
        f[0, 0] = true          // the frame's top-left corner…
        _ = try d.flush(f)
        let img = bus.image()
        #expect(img[127, 0])    // …lands at the glass's top-right after a clockwise quarter turn
        #expect(img.litCount == 1)
        _ = try d.setRotation(.deg270)
        _ = try d.flush(f)
        #expect(bus.image()[0, 31])   // counter-clockwise: bottom-left
        #expect(bus.image().litCount == 1)
    }

    @Test func halfTurnInHardwareOnSH1106AtOffsetZero() throws {
        // Offset 0 in rotation 0 means the window sits at columns 4–131 once the segment order is
        // reversed (132 − 0 − 128): the emulator must still show the frame turned by half.
        let m = try #require(PanelModel.find(.sh1106, width: 128, height: 64)).withColumnOffset(0)
        let bus = MockI2CBus(panel: m)
        var d = PanelDriver(bus: bus, panel: m, settings: DisplaySettings(rotation: .deg180))
        var f = Bitmap(width: 128, height: 64)
        f[0, 0] = true
        f[127, 1] = true
        _ = try d.flush(f)
        let img = bus.image()
        #expect(img[127, 63] && img[0, 62] && img.litCount == 2)
        #expect(bus.problems.isEmpty)
    }

    @Test func previewCanReadWhileTheDriverWrites() async throws {
        let m = try #require(model)
        let bus = MockI2CBus(panel: m)
        let reader = Task.detached {
            var lit = 0
            for _ in 0..<200 { lit = max(lit, bus.image().litCount) }
            return lit
        }
        var d = PanelDriver(bus: bus, panel: m)
        var f = Bitmap(width: 128, height: 32)
        for i in 0..<64 {
            f[i, i % 32] = true
            _ = try d.flush(f)
        }
        _ = await reader.value
        #expect(bus.image() == f)
    }

    @Test func displayOffKeepsUpdatingRAM() throws {
        let m = try #require(model)
        let bus = MockI2CBus(panel: m)
        var d = PanelDriver(bus: bus, panel: m)
        var f = Bitmap(width: 128, height: 32)
        _ = try d.flush(f)
        _ = try d.setDisplayOn(false)
        f[3, 3] = true
        _ = try d.flush(f)
        #expect(bus.image().litCount == 0)
        _ = try d.setDisplayOn(true)
        #expect(bus.image() == f)
    }
}
