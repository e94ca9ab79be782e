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
    /// COM lines the chip can drive: A8h takes this range minus one (SSD1306 §10.1.11: 15–63;
    /// SH1106 item 9: 0–63, "any multiplex ratio from 1 to 64"; SH1107 item 6: 0–127).
    public var multiplexLines: ClosedRange<Int> {
        switch kind {
        case .ssd1306, .ssd1309: 16...64
        case .sh1106: 1...64
        case .sh1107: 1...128
        }
    }
    /// D3h takes a COM shift of 0–63 (SSD1306 §10.1.15, SH1106 item 14), 0–127 on the SH1107.
    public var displayOffsetRange: ClosedRange<Int> { comAlongColumns ? 0...127 : 0...63 }

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

