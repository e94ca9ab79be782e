/// The command bytes of the four controllers, named once with the datasheet section that defines
/// each (SSD1306 Rev 1.1 §10; SSD1309 Rev 1.1 §10; SH1106 V2.2 and SH1107 V2.1 command tables,
/// by item). A range's name is its first byte; the low bits carry the operand. Which controller
/// has which command, and with how many parameter bytes, is `Controller.commands`.
public enum Opcode {
    /// 00h–0Fh: lower nibble of the column pointer (SSD1306 §10.1.1, SH1106 item 1).
    public static let lowColumn: UInt8 = 0x00
    /// 10h–1Fh: upper nibble of the column pointer (SSD1306 §10.1.2, SH1106 item 2: 10h–18h).
    public static let highColumn: UInt8 = 0x10
    /// 20h + mode: horizontal 0, vertical 1, page 2 (SSD1306 §10.1.3). On the SH1107 20h alone is
    /// page addressing and 21h vertical (SH1107 item 3).
    public static let addressingMode: UInt8 = 0x20
    /// 21h + start + end column (SSD1306 §10.1.4); SH1107: vertical addressing, no parameter.
    public static let columnWindow: UInt8 = 0x21
    /// 22h + start + end page (SSD1306 §10.1.5).
    public static let pageWindow: UInt8 = 0x22
    /// 26h/27h right/left horizontal scroll set-up, six parameters (SSD1306 §10.2.1).
    public static let horizontalScroll: UInt8 = 0x26
    /// 29h/2Ah vertical and horizontal scroll set-up, five parameters (SSD1306 §10.2.2).
    public static let diagonalScroll: UInt8 = 0x29
    /// 2Eh: stop scrolling (SSD1306 §10.2.3).
    public static let deactivateScroll: UInt8 = 0x2E
    /// 2Fh: start scrolling; RAM access is then prohibited (SSD1306 §10.2.4).
    public static let activateScroll: UInt8 = 0x2F
    /// 30h–33h: charge-pump output voltage (SH1106 item 3).
    public static let pumpVoltage: UInt8 = 0x30
    /// 40h–7Fh: display start line (SSD1306 §10.1.6, SH1106 item 4).
    public static let startLine: UInt8 = 0x40
    /// 81h + contrast (SSD1306 §10.1.7, SH1106 item 5).
    public static let contrast: UInt8 = 0x81
    /// 8Dh + 14h (on) / 10h (off): the SSD1306 charge pump (SSD1306 App Note, Table 2-1).
    public static let chargePump: UInt8 = 0x8D
    /// A0h/A1h: segment remap off/on (SSD1306 §10.1.8, SH1106 item 6).
    public static let segmentRemap: UInt8 = 0xA0
    /// A3h + two parameters: vertical scroll area (SSD1306 §10.2.5).
    public static let verticalScrollArea: UInt8 = 0xA3
    /// A4h/A5h: show RAM / entire display on (SSD1306 §10.1.9, SH1106 item 7).
    public static let entireDisplay: UInt8 = 0xA4
    /// A6h/A7h: normal / inverse (SSD1306 §10.1.10, SH1106 item 8).
    public static let normalDisplay: UInt8 = 0xA6
    public static let inverseDisplay: UInt8 = 0xA7
    /// A8h + lines − 1 (SSD1306 §10.1.11, SH1106 item 9, SH1107 item 6).
    public static let multiplex: UInt8 = 0xA8
    /// ADh + mode: DC-DC converter on the SH1106 (8Ah/8Bh, item 10) and SH1107 (80h/81h, item 10);
    /// internal current reference on the SSD1306 variant that has one (30h, u8g2 72x40).
    public static let powerControl: UInt8 = 0xAD
    /// AEh/AFh: display off/on (SSD1306 §10.1.12, SH1106 item 11).
    public static let displayOff: UInt8 = 0xAE
    public static let displayOn: UInt8 = 0xAF
    /// B0h + page: page pointer in page addressing (SSD1306 §10.1.13: B0h–B7h; SH1107: B0h–BFh).
    public static let page: UInt8 = 0xB0
    /// C0h/C8h: COM scan normal/reversed (SSD1306 §10.1.14, SH1106 item 13).
    public static let comScanNormal: UInt8 = 0xC0
    public static let comScanReversed: UInt8 = 0xC8
    /// D3h + COM shift (SSD1306 §10.1.15, SH1106 item 14).
    public static let displayOffset: UInt8 = 0xD3
    /// D5h + divide ratio and oscillator frequency (SSD1306 §10.1.16, SH1106 item 15).
    public static let clockDivide: UInt8 = 0xD5
    /// D9h + pre-charge period (SSD1306 §10.1.17, SH1106 item 16).
    public static let precharge: UInt8 = 0xD9
    /// DAh + COM pins configuration (SSD1306 §10.1.18, SH1106 item 17; none on the SH1107).
    public static let comPins: UInt8 = 0xDA
    /// DBh + VCOMH deselect level (SSD1306 §10.1.19, SH1106 item 18).
    public static let vcomh: UInt8 = 0xDB
    /// DCh + line: the SH1107's display start line (its 40h–7Fh do not exist); the SSD1309's GPIO.
    public static let startLineTwoByte: UInt8 = 0xDC
    /// E0h/EEh: read-modify-write start/end (SH1106 items 19, 20).
    public static let readModifyWrite: UInt8 = 0xE0
    public static let endReadModifyWrite: UInt8 = 0xEE
    /// E3h: no operation (SSD1306 §10.1.20).
    public static let nop: UInt8 = 0xE3
    /// FDh + 16h (lock) / 12h (unlock): the SSD1309 command lock (SSD1309 §10.22).
    public static let commandLock: UInt8 = 0xFD
}

/// The control byte before each command or data run on I²C (SSD1306 §8.1.5.2): Co (bit 7) set
/// means one byte follows and then another control byte; D/C# (bit 6) selects data.
public enum ControlByte {
    public static let commands: UInt8 = 0x00
    public static let data: UInt8 = 0x40
    public static let continuation: UInt8 = 0x80
}

/// One command of a controller: the opcodes it covers and the parameter bytes that follow.
public struct CommandSpec: Sendable, Hashable {
    public var opcodes: ClosedRange<UInt8>
    public var parameters: Int
    /// Only on the SSD1306 variant with the internal current reference (ADh): a fact of the chip
    /// on the module, so the emulator asks the module.
    public var irefVariantOnly: Bool

    public init(_ opcodes: ClosedRange<UInt8>, _ parameters: Int = 0, irefVariantOnly: Bool = false) {
        self.opcodes = opcodes
        self.parameters = parameters
        self.irefVariantOnly = irefVariantOnly
    }

    public init(_ opcode: UInt8, _ parameters: Int = 0, irefVariantOnly: Bool = false) {
        self.init(opcode...opcode, parameters, irefVariantOnly: irefVariantOnly)
    }
}
