/// How a module's glass is wired to its controller's pads: a physical fact about the module,
/// written from the datasheets and the peers' working set-ups, and never derived from the
/// driver's table (`PanelModel`). The emulated panel shows what this glass would show, so a wrong
/// table row gives a wrong picture instead of moving both sides together.
public struct ModuleWiring: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var controller: ControllerKind
    public var width: Int
    public var height: Int
    /// SEG pad (counted from the far end when `segReversed`) of the glass's first segment line:
    /// on an SSD1306 128-column glass 0, on a 64-wide glass centred on the die 32.
    public var segFirst: Int
    /// The glass's segment lines run from the high pads down (upright needs A1h).
    public var segReversed: Bool
    /// COM pad of the glass's first COM line (SH1107 64-line glass: the middle 64 of 128, from 32).
    public var comFirst: Int
    /// The glass's COM lines run from the high pads down (upright needs C8h).
    public var comReversed: Bool
    /// The chip is the SSD1306 variant with the internal current reference (`ADh 30h`).
    public var hasIREF: Bool
    /// The board supplies the panel voltage itself: the SH1106/SH1107 DC-DC may be off.
    public var externalVPP: Bool
    /// The DAh setting the glass's COM wiring needs (12h alternative: rows on both sides of the
    /// die interleaved; 02h sequential); nil on controllers without DAh.
    public var comPinWiring: UInt8?
    public var source: String

    public var description: String { name }

    public init(name: String, controller: ControllerKind, width: Int, height: Int, segFirst: Int, segReversed: Bool,
                comFirst: Int, comReversed: Bool, hasIREF: Bool = false, externalVPP: Bool = false,
                comPinWiring: UInt8? = 0x12, source: String) {
        self.name = name
        self.controller = controller
        self.width = width
        self.height = height
        self.segFirst = segFirst
        self.segReversed = segReversed
        self.comFirst = comFirst
        self.comReversed = comReversed
        self.hasIREF = hasIREF
        self.externalVPP = externalVPP
        self.comPinWiring = controller == .sh1107 ? nil : comPinWiring
        self.source = source
    }

    /// The modules on the market that Islet supports, as wired.
    public static let all: [ModuleWiring] = [
        ModuleWiring(name: "SSD1306 0.96\" 128x64", controller: .ssd1306, width: 128, height: 64,
                    segFirst: 0, segReversed: true, comFirst: 0, comReversed: true,
                    source: "whole glass; luma.oled and u8g2 draw it upright with A1 C8 and columns 0-127"),
        ModuleWiring(name: "SSD1306 0.91\" 128x32", controller: .ssd1306, width: 128, height: 32,
                    segFirst: 0, segReversed: true, comFirst: 0, comReversed: true, comPinWiring: 0x02,
                    source: "whole width, COM0-31 in sequence (DAh 02h); luma.oled and u8g2 columns 0-127"),
        ModuleWiring(name: "SSD1306 0.69\" 96x16", controller: .ssd1306, width: 96, height: 16,
                    segFirst: 0, segReversed: true, comFirst: 0, comReversed: true, comPinWiring: 0x02,
                    source: "u8g2 ssd1306_96x16_er draws at x offset 0 upright and 32 flipped: the glass sits on SEG127-SEG32; luma.oled fix #368"),
        ModuleWiring(name: "SSD1306 0.42\" 72x40", controller: .ssd1306, width: 72, height: 40,
                    segFirst: 28, segReversed: true, comFirst: 0, comReversed: true, hasIREF: true,
                    source: "u8g2 ssd1306_72x40_er: x offset 28 in both orientations (centred on SEG28-99); the chip takes AD 30 (u8g2 issue #1047)"),
        ModuleWiring(name: "SSD1306 0.66\" 64x48", controller: .ssd1306, width: 64, height: 48,
                    segFirst: 32, segReversed: true, comFirst: 0, comReversed: true,
                    source: "centred on SEG32-95: luma.oled and u8g2 (ssd1306_64x48_er) x offset 32"),
        ModuleWiring(name: "SSD1306 0.49\" 64x32", controller: .ssd1306, width: 64, height: 32,
                    segFirst: 32, segReversed: true, comFirst: 0, comReversed: true,
                    source: "centred on SEG32-95: luma.oled and u8g2 (ssd1306_64x32_1f) x offset 32"),
        ModuleWiring(name: "SH1106 1.3\" 128x64", controller: .sh1106, width: 128, height: 64,
                    segFirst: 2, segReversed: true, comFirst: 0, comReversed: true,
                    source: "128 of the 132 SEG pads, SEG2-129 (luma.oled and u8g2 x offset 2)"),
        ModuleWiring(name: "SH1106 1.3\" 128x64 wired at SEG0", controller: .sh1106, width: 128, height: 64,
                    segFirst: 0, segReversed: true, comFirst: 0, comReversed: true,
                    source: "the variant of luma.oled issue #376: glass on SEG0-127"),
        ModuleWiring(name: "SSD1309 2.42\" 128x64", controller: .ssd1309, width: 128, height: 64,
                    segFirst: 0, segReversed: true, comFirst: 0, comReversed: true,
                    source: "whole glass; u8g2 ssd1309_128x64_noname0 x offset 0, A1 C8"),
        ModuleWiring(name: "SH1107 64x128", controller: .sh1107, width: 64, height: 128,
                    segFirst: 0, segReversed: false, comFirst: 32, comReversed: false,
                    source: "64 COM lines in the middle of the 128 (COM32-95): luma.oled, u8g2 and Adafruit drive all 128 (A8 7F) shifted by D3 60 and write RAM columns 0-63"),
        ModuleWiring(name: "SH1107 128x128", controller: .sh1107, width: 128, height: 128,
                    segFirst: 0, segReversed: false, comFirst: 0, comReversed: false,
                    source: "the whole 128x128 (Pimoroni, Seeed: D3 00, A0 C0)"),
    ]

    /// The common module of a controller and size: the one a table row claims to drive.
    public static func common(_ kind: ControllerKind, width: Int, height: Int) -> ModuleWiring? {
        all.first { $0.controller == kind && $0.width == width && $0.height == height }
    }

    /// The module a user's settings describe: the common one with the column offset they set
    /// (the mock bus of the demo and `isletctl replay --col-offset` show their own module).
    public static func described(by model: PanelModel) -> ModuleWiring {
        var m = common(model.controller.kind, width: model.width, height: model.height)
            ?? ModuleWiring(name: "\(model.controller.kind) \(model.width)x\(model.height)", controller: model.controller.kind,
                           width: model.width, height: model.height, segFirst: 0, segReversed: model.segmentRemap,
                           comFirst: 0, comReversed: model.comScanReversed, source: "no module description: the settings alone")
        if let base = PanelModel.find(model.controller.kind, width: model.width, height: model.height),
           base.columnOffset != model.columnOffset {
            m.segFirst = model.columnOffset
            m.name += " at column \(model.columnOffset)"
        }
        return m
    }
}
