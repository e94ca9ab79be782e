/// The controller chips Islet drives. Differences between them are data in `Controller`,
/// so one driver and one emulator serve all of them.
public enum ControllerKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case ssd1306, sh1106, ssd1309, sh1107
    public var description: String { rawValue }
}

/// What a controller chip offers, written from its datasheet: its RAM, its commands (the one
/// description of them: the driver sends from it and the emulator decodes with it) and how it
/// maps RAM to the glass. How a module's glass is wired is `ModuleWiring`, not this.
public struct Controller: Sendable, Hashable {
    public let kind: ControllerKind
    /// Columns of display RAM (SH1106: 132, others 128).
    public let ramColumns: Int
    /// Pages of display RAM (SH1107: 16, others 8).
    public let ramPages: Int
    /// Commands that switch on the panel's high-voltage supply before display on; empty when the
    /// controller has none (SSD1309 needs an external VCC).
    public let chargePump: [UInt8]
    /// Segment remap applies when data is written (SSD1306 §10.1.8: "only affects subsequent data
    /// input"); on the Sino Wealth parts it applies when the RAM is displayed.
    public let remapAppliesAtWrite: Bool
    /// SH1107: COM lines run along RAM columns and segments along the page bits.
    public let comAlongColumns: Bool
    /// SH1107 sets the start line with DCh plus a byte instead of 40h–7Fh.
    public let startLineIsTwoBytes: Bool
    /// Every command the chip takes, with its parameter count (from the command tables: SSD1306
    /// §9 Table 9-1, SSD1309 Tables 9-1..9-5, SH1106 and SH1107 command tables).
    public let commands: [CommandSpec]

    /// The command an opcode belongs to, nil when the chip has none.
    public func command(_ opcode: UInt8) -> CommandSpec? { commands.first { $0.opcodes.contains(opcode) } }

    /// Has 20h with a parameter and the 21h/22h column/page windows with horizontal and vertical
    /// addressing (SSD1306 §10.1.3–10.1.5, SSD1309 likewise). Without it only page addressing.
    public var hasAddressWindows: Bool { command(Opcode.columnWindow)?.parameters == 2 }
    /// DAh (COM pins hardware configuration) exists.
    public var hasCOMPins: Bool { command(Opcode.comPins) != nil }
    /// Top of the high-column command range (10h–1Fh, SH1106: 10h–18h, SH1107: 10h–17h).
    public var maxHighColumnCommand: UInt8 { command(Opcode.highColumn)?.opcodes.upperBound ?? Opcode.highColumn }

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

    /// What the SSD1306 and SSD1309 share: SSD1306 §10.1 and §10.2 (SSD1309 §10 is the same set).
    private static let solomonCommands: [CommandSpec] = [
        CommandSpec(Opcode.lowColumn...0x0F), CommandSpec(Opcode.highColumn...0x1F),
        CommandSpec(Opcode.addressingMode, 1), CommandSpec(Opcode.columnWindow, 2), CommandSpec(Opcode.pageWindow, 2),
        CommandSpec(Opcode.horizontalScroll...0x27, 6), CommandSpec(Opcode.diagonalScroll...0x2A, 5),
        CommandSpec(Opcode.deactivateScroll), CommandSpec(Opcode.activateScroll), CommandSpec(Opcode.verticalScrollArea, 2),
        CommandSpec(Opcode.startLine...0x7F), CommandSpec(Opcode.contrast, 1),
        CommandSpec(Opcode.segmentRemap...0xA1), CommandSpec(Opcode.entireDisplay...Opcode.inverseDisplay),
        CommandSpec(Opcode.multiplex, 1), CommandSpec(Opcode.displayOff...Opcode.displayOn), CommandSpec(Opcode.page...0xB7),
        CommandSpec(Opcode.comScanNormal), CommandSpec(Opcode.comScanReversed),
        CommandSpec(Opcode.displayOffset, 1), CommandSpec(Opcode.clockDivide, 1), CommandSpec(Opcode.precharge, 1),
        CommandSpec(Opcode.comPins, 1), CommandSpec(Opcode.vcomh, 1), CommandSpec(Opcode.nop),
    ]

    /// What the Sino Wealth parts share (SH1106 V2.2 and SH1107 V2.1 command tables): page
    /// addressing, no scroll, any COM scan byte C0h–CFh (bit 3 is the direction).
    private static let sinoWealthCommands: [CommandSpec] = [
        CommandSpec(Opcode.lowColumn...0x0F), CommandSpec(Opcode.contrast, 1),
        CommandSpec(Opcode.segmentRemap...0xA1), CommandSpec(Opcode.entireDisplay...Opcode.inverseDisplay),
        CommandSpec(Opcode.multiplex, 1), CommandSpec(Opcode.powerControl, 1), CommandSpec(Opcode.displayOff...Opcode.displayOn),
        CommandSpec(Opcode.comScanNormal...0xCF), CommandSpec(Opcode.displayOffset, 1), CommandSpec(Opcode.clockDivide, 1),
        CommandSpec(Opcode.precharge, 1), CommandSpec(Opcode.vcomh, 1),
        CommandSpec(Opcode.readModifyWrite), CommandSpec(Opcode.endReadModifyWrite), CommandSpec(Opcode.nop),
    ]

    public static let ssd1306 = Controller(
        kind: .ssd1306, ramColumns: 128, ramPages: 8, chargePump: [Opcode.chargePump, 0x14],
        remapAppliesAtWrite: true, comAlongColumns: false, startLineIsTwoBytes: false,
        commands: solomonCommands + [CommandSpec(Opcode.chargePump, 1), CommandSpec(Opcode.powerControl, 1, irefVariantOnly: true)])
    public static let ssd1309 = Controller(
        kind: .ssd1309, ramColumns: 128, ramPages: 8, chargePump: [],
        remapAppliesAtWrite: true, comAlongColumns: false, startLineIsTwoBytes: false,
        // No 8Dh: SSD1309 Tables 9-1..9-5 list none. FDh command lock (§10.22); DCh GPIO.
        commands: solomonCommands + [CommandSpec(Opcode.commandLock, 1), CommandSpec(Opcode.startLineTwoByte, 1)])
    public static let sh1106 = Controller(
        kind: .sh1106, ramColumns: 132, ramPages: 8, chargePump: [Opcode.powerControl, 0x8B],
        remapAppliesAtWrite: false, comAlongColumns: false, startLineIsTwoBytes: false,
        commands: sinoWealthCommands + [CommandSpec(Opcode.highColumn...0x18), CommandSpec(Opcode.pumpVoltage...0x33),
                                        CommandSpec(Opcode.startLine...0x7F), CommandSpec(Opcode.page...0xB7),
                                        CommandSpec(Opcode.comPins, 1)])
    public static let sh1107 = Controller(
        kind: .sh1107, ramColumns: 128, ramPages: 16, chargePump: [Opcode.powerControl, 0x81],
        remapAppliesAtWrite: false, comAlongColumns: true, startLineIsTwoBytes: true,
        // 20h/21h take no parameter here: page or vertical addressing (SH1107 item 3).
        commands: sinoWealthCommands + [CommandSpec(Opcode.highColumn...0x17), CommandSpec(Opcode.addressingMode),
                                        CommandSpec(Opcode.columnWindow), CommandSpec(Opcode.page...0xBF),
                                        CommandSpec(Opcode.startLineTwoByte, 1)])

    public static func named(_ kind: ControllerKind) -> Controller {
        switch kind {
        case .ssd1306: return .ssd1306
        case .ssd1309: return .ssd1309
        case .sh1106: return .sh1106
        case .sh1107: return .sh1107
        }
    }
}

