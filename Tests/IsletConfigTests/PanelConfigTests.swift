import IsletSettings
import IsletNetwork
import IsletWeb
import IsletDaemon
import IsletProtocol
import IsletDisplay
import Testing
import IsletConfig

/// [display] column_offset, display_offset, multiplex and contrast: checked against the
/// controller's limits (SSD1306 §10.1.11 mux 16-64, §10.1.15 offset 0-63; SH1106 132 columns,
/// mux 1-64; SH1107 128 lines), with the file and line of the key at fault.
@Suite struct PanelConfigTests {
    func load(_ display: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(parts: PartRegistry.settings).parsing("[display]\nbus = mock\n" + display, file: "isletd.conf").validated(origin: "isletd.conf")
    }

    @Test func adjustmentsReachTheModel() throws {
        let c = try load("controller = sh1106\nsize = 128x64\ncolumn_offset = 0\ncontrast = 200\n")
        let m = try c.panelModel(origin: "x")
        #expect(m.columnOffset == 0 && c.contrast == 200)
        let c2 = try load("controller = ssd1306\nsize = 64x32\nmultiplex = 48\ndisplay_offset = 8\n")
        let m2 = try c2.panelModel(origin: "x")
        #expect(m2.multiplex == 0x2F && m2.displayOffset == 8)
    }

    @Test(arguments: [
        ("controller = sh1106\nsize = 128x64\ncolumn_offset = 5\n", "isletd.conf:5", "0 to 4"),
        ("controller = ssd1306\nsize = 128x64\nmultiplex = 15\n", "isletd.conf:5", "16 to 64"),
        ("controller = ssd1306\nsize = 128x64\nmultiplex = 32\n", "isletd.conf:5", "fewer COM lines"),
        ("controller = ssd1306\nsize = 128x64\ndisplay_offset = 64\n", "isletd.conf:5", "0 to 63"),
        ("controller = sh1107\nsize = 64x128\ncolumn_offset = 1\n", "isletd.conf:5", "display_offset instead"),
        ("contrast = 256\n", "isletd.conf:3", "0 to 255"),
    ])
    func outOfRangeNamesTheLine(_ c: (String, String, String)) {
        do {
            _ = try load(c.0)
            Issue.record("accepted: \(c.0)")
        } catch {
            #expect(error.origin == c.1, "\(error)")
            #expect(error.message.contains(c.2), "\(error)")
        }
    }

    @Test func sh1107TakesDisplayOffsetsUpTo127AndAllLines() throws {
        let m = try load("controller = sh1107\nsize = 64x128\ndisplay_offset = 127\nmultiplex = 128\n").panelModel(origin: "x")
        #expect(m.displayOffset == 127 && m.multiplex == 0x7F)
    }

    /// `transport` forces how writes cross the bus (the system test forces smbus on i2c-stub);
    /// auto is the default and a name the bus layer does not know is an error with its line.
    @Test func transportIsAutoI2COrSMBus() throws {
        #expect(try load("").transport == nil)
        #expect(try load("transport = smbus\n").transport == .smbusBlock)
        #expect(try load("transport = i2c\n").transport == .plainI2C)
        #expect(try load("transport = auto\n").transport == nil)
        do {
            _ = try load("transport = spi\n")
            Issue.record("accepted transport = spi")
        } catch {
            #expect(error.origin == "isletd.conf:3" && error.message.contains("auto, i2c"), "\(error)")
        }
    }

    @Test func testPatternProtocol() throws {
        let r = try ControlRequest.parse(Array(#"{"op":"test_pattern","seconds":10}"#.utf8))
        #expect(r.op == .testPattern && r.patternSeconds == 10)
        #expect(throws: ProtocolError.self) { try ControlRequest.parse(Array(#"{"op":"test_pattern","seconds":3601}"#.utf8)) }
        #expect(throws: ProtocolError.self) { try ControlRequest.parse(Array(#"{"op":"test_pattern","timer":"a"}"#.utf8)) }
        let back = try ControlRequest.parse(r.encodedLine())
        #expect(back == r)
    }
}
