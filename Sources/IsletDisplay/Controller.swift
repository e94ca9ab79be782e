/// The controller chips Islet drives. Differences between them are data in `Controller`,
/// so one driver and one emulator serve all of them.
public enum ControllerKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case ssd1306, sh1106, ssd1309, sh1107
    public var description: String { rawValue }
}

/// What a controller chip offers, written from its datasheet.
public struct Controller: Sendable, Hashable {
    public let kind: ControllerKind
    /// Columns of display RAM (SH1106: 132, others 128).
    public let ramColumns: Int
    /// Pages of display RAM (SH1107: 16, others 8).
    public let ramPages: Int
    /// Has 20h with a parameter and the 21h/22h column/page windows with horizontal and vertical
    /// addressing (SSD1306 §10.1.3–10.1.5, SSD1309 likewise). Without it only page addressing.
    public let hasAddressWindows: Bool
    /// Commands that switch on the panel's high-voltage supply before display on; empty when the
    /// controller has none (SSD1309 needs an external VCC).
    public let chargePump: [UInt8]
    /// Lower bound of the high-column command range's top (10h–1Fh, SH1107: 10h–17h).
    public let maxHighColumnCommand: UInt8
    /// Segment remap applies when data is written (SSD1306 §10.1.8: "only affects subsequent data
    /// input"); on the Sino Wealth parts it applies when the RAM is displayed.
    public let remapAppliesAtWrite: Bool
    /// SH1107: COM lines run along RAM columns and segments along the page bits.
    public let comAlongColumns: Bool
    /// SH1107 sets the start line with DCh plus a byte instead of 40h–7Fh.
    public let startLineIsTwoBytes: Bool
    /// DAh (COM pins hardware configuration) exists.
    public let hasCOMPins: Bool

    public var ramRows: Int { ramPages * 8 }

    public static let ssd1306 = Controller(
        kind: .ssd1306, ramColumns: 128, ramPages: 8, hasAddressWindows: true, chargePump: [0x8D, 0x14],
        maxHighColumnCommand: 0x1F, remapAppliesAtWrite: true, comAlongColumns: false,
        startLineIsTwoBytes: false, hasCOMPins: true)
    public static let ssd1309 = Controller(
        kind: .ssd1309, ramColumns: 128, ramPages: 8, hasAddressWindows: true, chargePump: [],
        maxHighColumnCommand: 0x1F, remapAppliesAtWrite: true, comAlongColumns: false,
        startLineIsTwoBytes: false, hasCOMPins: true)
    public static let sh1106 = Controller(
        kind: .sh1106, ramColumns: 132, ramPages: 8, hasAddressWindows: false, chargePump: [0xAD, 0x8B],
        maxHighColumnCommand: 0x18, remapAppliesAtWrite: false, comAlongColumns: false,
        startLineIsTwoBytes: false, hasCOMPins: true)
    public static let sh1107 = Controller(
        kind: .sh1107, ramColumns: 128, ramPages: 16, hasAddressWindows: false, chargePump: [0xAD, 0x81],
        maxHighColumnCommand: 0x17, remapAppliesAtWrite: false, comAlongColumns: true,
        startLineIsTwoBytes: true, hasCOMPins: false)

    public static func named(_ kind: ControllerKind) -> Controller {
        switch kind {
        case .ssd1306: return .ssd1306
        case .ssd1309: return .ssd1309
        case .sh1106: return .sh1106
        case .sh1107: return .sh1107
        }
    }
}

/// One kind of module: a controller wired to a glass of some size at some column offset.
public struct PanelModel: Sendable, Hashable, CustomStringConvertible {
    public var controller: Controller
    public var width: Int
    public var height: Int
    /// RAM column of the leftmost visible pixel in rotation 0 (the wiring the datasheet cannot tell).
    public var columnOffset: Int
    /// A8h parameter: number of COM lines driven minus one.
    public var multiplex: UInt8
    /// DAh parameter, nil on controllers without it.
    public var comPins: UInt8?
    /// D3h parameter.
    public var displayOffset: UInt8
    /// Modules are mounted so that rotation 0 needs segment remap and COM scan reversed (A1h, C8h).
    public var mountedReversed: Bool
    /// D5h parameter (clock divide ratio and oscillator frequency).
    public var clockDivide: UInt8
    /// Where the offset and wiring figures come from.
    public var source: String

    public var pageCount: Int { (height + 7) / 8 }
    public var description: String { "\(controller.kind) \(width)x\(height)" + (columnOffset == 0 ? "" : " col-offset \(columnOffset)") }

    public init(controller: Controller, width: Int, height: Int, columnOffset: Int, multiplex: UInt8,
                comPins: UInt8?, displayOffset: UInt8 = 0, mountedReversed: Bool = true,
                clockDivide: UInt8 = 0x80, source: String) {
        self.controller = controller
        self.width = width
        self.height = height
        self.columnOffset = columnOffset
        self.multiplex = multiplex
        self.comPins = comPins
        self.displayOffset = displayOffset
        self.mountedReversed = mountedReversed
        self.clockDivide = clockDivide
        self.source = source
    }

    /// The same module with another column offset (SH1106 panels exist wired at 2 and at 0).
    public func withColumnOffset(_ offset: Int) -> PanelModel {
        var m = self
        m.columnOffset = offset
        return m
    }

    /// True when the window fits the controller's RAM in both hardware orientations. On the SH1107
    /// RAM columns are COM lines: a shifted module is described by `displayOffset`, not a column offset.
    public var isConsistent: Bool {
        width > 0 && height > 0 && columnOffset >= 0 && columnOffset + width <= controller.ramColumns
            && pageCount <= controller.ramPages && (!controller.comAlongColumns || columnOffset == 0)
    }

    /// Every supported module, one row each.
    public static let all: [PanelModel] = [
        PanelModel(controller: .ssd1306, width: 128, height: 64, columnOffset: 0, multiplex: 0x3F, comPins: 0x12,
                   source: "full 128-column glass; SSD1306 datasheet §10.1.11/§10.1.18 (A8h 3Fh, DAh 12h)"),
        PanelModel(controller: .ssd1306, width: 128, height: 32, columnOffset: 0, multiplex: 0x1F, comPins: 0x02,
                   source: "full 128-column glass; sequential COM pins (DAh 02h) as in the SSD1306 app note example"),
        PanelModel(controller: .ssd1306, width: 96, height: 16, columnOffset: 16, multiplex: 0x0F, comPins: 0x02,
                   clockDivide: 0x60,
                   source: "luma.oled ssd1306 table: column start (128-96)/2 = 16, A8h 0Fh, DAh 02h, D5h 60h"),
        PanelModel(controller: .ssd1306, width: 72, height: 40, columnOffset: 28, multiplex: 0x27, comPins: 0x12,
                   source: "u8g2 u8x8_d_ssd1306_72x40 (0.42\" modules): x offset 28, 40 COM lines"),
        PanelModel(controller: .ssd1306, width: 64, height: 48, columnOffset: 32, multiplex: 0x2F, comPins: 0x12,
                   source: "luma.oled and u8g2 ssd1306_64x48: column start (128-64)/2 = 32, A8h 2Fh, DAh 12h"),
        PanelModel(controller: .ssd1306, width: 64, height: 32, columnOffset: 32, multiplex: 0x1F, comPins: 0x12,
                   source: "luma.oled ssd1306 table: column start (128-64)/2 = 32, A8h 1Fh, DAh 12h"),
        PanelModel(controller: .sh1106, width: 128, height: 64, columnOffset: 2, multiplex: 0x3F, comPins: 0x12,
                   source: "SH1106 has 132 RAM columns (datasheet Figure 8); the common 1.3\" modules show columns 2–129 (luma.oled, u8g2); some show 0–127: --col-offset 0"),
        PanelModel(controller: .ssd1309, width: 128, height: 64, columnOffset: 0, multiplex: 0x3F, comPins: 0x12,
                   source: "full 128-column glass; SSD1309 datasheet command table (A8h 3Fh, DAh 12h), no charge pump"),
        PanelModel(controller: .sh1107, width: 64, height: 128, columnOffset: 0, multiplex: 0x3F, comPins: nil,
                   mountedReversed: false, clockDivide: 0x50,
                   source: "SH1107 V2.1: 64 COM lines (A8h 3Fh) over RAM columns 0–63, segments along the 128 page bits; display offset 0 (modules wired to other COMs change displayOffset)"),
        PanelModel(controller: .sh1107, width: 128, height: 128, columnOffset: 0, multiplex: 0x7F, comPins: nil,
                   mountedReversed: false, clockDivide: 0x50,
                   source: "SH1107 V2.1: the whole 128×128 RAM, A8h 7Fh (POR value)"),
    ]

    /// The table row for a controller and size, nil when there is none.
    public static func find(_ kind: ControllerKind, width: Int, height: Int) -> PanelModel? {
        all.first { $0.controller.kind == kind && $0.width == width && $0.height == height }
    }
}
