import IsletFrame

/// Something in a command/data stream that a real controller would not take as meant.
public struct PanelProblem: Sendable, Hashable, CustomStringConvertible {
    /// Index of the transaction (0-based, counted by the panel) and of the byte inside it.
    public var transaction: Int
    public var byteIndex: Int
    public var message: String

    public init(transaction: Int, byteIndex: Int, message: String) {
        self.transaction = transaction
        self.byteIndex = byteIndex
        self.message = message
    }

    public var description: String { "transaction \(transaction), byte \(byteIndex): \(message)" }
}

/// RAM addressing modes (SSD1306 §10.1.3; SH1106/SH1107 have page mode, SH1107 also vertical).
public enum AddressingMode: Sendable, Hashable {
    case horizontal, vertical, page
}

/// A software model of one panel: decodes control bytes, commands and data the way the controller
/// does (SSD1306 §8.1.5.2 and §10; SH1106 and SH1107 command descriptions) into its own RAM and
/// computes what the glass shows. Everything a real chip would take differently is a `PanelProblem`.
public struct EmulatedPanel: Sendable, Hashable {
    public let model: PanelModel
    /// The glass and its wiring: what the picture is computed from (never the driver's row).
    public let module: ModuleWiring
    public var controller: Controller { model.controller }

    /// Display RAM as stored, page-major: byte `page * ramColumns + column`.
    public private(set) var ram: [UInt8]
    public private(set) var displayOn = false
    public private(set) var entireDisplayOn = false
    public private(set) var inverted = false
    public private(set) var contrast: UInt8
    public private(set) var segmentRemap = false
    public private(set) var comReversed = false
    public private(set) var multiplex: UInt8
    public private(set) var displayOffset: UInt8 = 0
    public private(set) var startLine: Int = 0
    public private(set) var comPins: UInt8 = 0x12
    public private(set) var chargePumpOn: Bool
    /// Registers the brightness depends on, as they stand (D5h, D9h, DBh, ADh IREF on the variant that has it).
    public private(set) var clockDivide: UInt8
    public private(set) var precharge: UInt8
    public private(set) var vcomh: UInt8
    public private(set) var iref: UInt8?
    public private(set) var mode: AddressingMode = .page
    public private(set) var columnWindow: ClosedRange<Int>
    public private(set) var pageWindow: ClosedRange<Int>
    public private(set) var column = 0
    public private(set) var page = 0
    public private(set) var scrolling = false
    public private(set) var locked = false
    public private(set) var problems: [PanelProblem] = []
    /// Transactions received so far.
    public private(set) var transactions = 0
    public private(set) var bytesReceived = 0

    var pendingOpcode: UInt8 = 0
    var pendingParams: [UInt8] = []
    var pendingNeeded = 0

    /// A panel just powered: registers at their reset values, RAM holding noise (the datasheets leave
    /// it undefined), so a driver that forgets to write a region is caught.
    public init(model: PanelModel, powerOnSeed: UInt64 = 0x5EED) {
        self.init(model: model, module: ModuleWiring.described(by: model), powerOnSeed: powerOnSeed)
    }

    /// A panel of `module`'s glass, addressed as `model` (the controller and RAM come from it).
    public init(model: PanelModel, module: ModuleWiring, powerOnSeed: UInt64 = 0x5EED) {
        self.model = model
        self.module = module
        let c = model.controller
        var state = powerOnSeed | 1
        var noise = [UInt8](repeating: 0, count: c.ramColumns * c.ramPages)
        for i in noise.indices {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            noise[i] = UInt8(truncatingIfNeeded: state)
        }
        ram = noise
        contrast = c.kind == .ssd1306 || c.kind == .ssd1309 ? 0x7F : 0x80
        multiplex = UInt8(c.comAlongColumns ? c.ramColumns - 1 : c.ramRows - 1)
        chargePumpOn = c.kind != .ssd1306
        // Power-on values: SSD1306 §10.1.16/17/19 (80h, 22h, 20h); SSD1309 70h, 22h, 34h;
        // SH1106 items 15, 16, 18 (50h, 22h, 35h); SH1107 the same as the SH1106.
        switch c.kind {
        case .ssd1306: clockDivide = 0x80; precharge = 0x22; vcomh = 0x20
        case .ssd1309: clockDivide = 0x70; precharge = 0x22; vcomh = 0x34
        case .sh1106, .sh1107: clockDivide = 0x50; precharge = 0x22; vcomh = 0x35
        }
        iref = nil
        columnWindow = 0...(c.ramColumns - 1)
        pageWindow = 0...(c.ramPages - 1)
    }

    // MARK: stream decoding

    /// Takes one I²C write (the bytes after the address byte).
    public mutating func receive(_ bytes: [UInt8]) {
        defer { transactions += 1; bytesReceived += bytes.count }
        guard !bytes.isEmpty else {
            report(0, "empty transaction: no control byte")
            return
        }
        var i = 0
        var pastEndReported = false
        while i < bytes.count {
            let control = bytes[i]
            if control & ~(ControlByte.continuation | ControlByte.data) != 0 {
                report(i, "control byte \(hex(control)) has bits other than Co and D/C set")
            }
            let continuation = control & ControlByte.continuation != 0
            let isData = control & ControlByte.data != 0
            i += 1
            if i == bytes.count {
                if continuation { report(i - 1, "control byte \(hex(control)) with Co set ends the transaction") }
                break
            }
            let end = continuation ? i + 1 : bytes.count
            while i < end {
                if isData {
                    if pendingNeeded > 0 {
                        report(i, "data byte while command \(hex(pendingOpcode)) still waits for \(pendingNeeded) parameter byte(s)")
                        clearPending()
                    }
                    write(bytes[i], at: i, pastEndReported: &pastEndReported)
                } else {
                    command(bytes[i], at: i)
                }
                i += 1
            }
        }
        if pendingNeeded > 0 {
            report(bytes.count - 1, "command \(hex(pendingOpcode)) is missing \(pendingNeeded) parameter byte(s) at the end of the transaction")
            clearPending()
        }
    }

    mutating func clearPending() {
        pendingNeeded = 0
        pendingParams = []
    }

    mutating func report(_ byteIndex: Int, _ message: String) {
        // Keep the list bounded: a runaway stream must not eat the memory of a test or a preview.
        if problems.count < 1000 {
            problems.append(PanelProblem(transaction: transactions, byteIndex: byteIndex, message: message))
        }
    }

    /// Forgets recorded problems (a test that provoked them on purpose).
    public mutating func clearProblems() { problems = [] }

    mutating func write(_ value: UInt8, at index: Int, pastEndReported: inout Bool) {
        let c = controller
        if scrolling {
            report(index, "RAM write while scrolling is active (SSD1306 §10.2.4 forbids it)")
        }
        if locked { return }
        switch mode {
        case .page where c.kind != .sh1106:
            // SSD1306 §10.1.3 (and the SH1107): past the end column the column pointer returns to
            // the start column and the page stays.
            if column > columnWindow.upperBound || column >= c.ramColumns {
                column = c.hasAddressWindows ? columnWindow.lowerBound : 0
            }
            store(value, column: column, page: page)
            column += 1
        case .page:
            if column >= c.ramColumns {
                if !pastEndReported {
                    report(index, "data past the last RAM column \(c.ramColumns - 1) of page \(page)")
                    pastEndReported = true
                }
                return
            }
            store(value, column: column, page: page)
            column += 1
        case .horizontal:
            store(value, column: column, page: page)
            column += 1
            if column > columnWindow.upperBound {
                column = columnWindow.lowerBound
                page = page >= pageWindow.upperBound ? pageWindow.lowerBound : page + 1
            }
        case .vertical:
            store(value, column: column, page: page)
            page += 1
            if page > pageWindow.upperBound {
                page = pageWindow.lowerBound
                if c.hasAddressWindows {
                    column = column >= columnWindow.upperBound ? columnWindow.lowerBound : column + 1
                }
            }
        }
    }

    mutating func store(_ value: UInt8, column col: Int, page p: Int) {
        let c = controller
        guard p >= 0, p < c.ramPages, col >= 0, col < c.ramColumns else { return }
        let physical = c.remapAppliesAtWrite && segmentRemap ? c.ramColumns - 1 - col : col
        ram[p * c.ramColumns + physical] = value
    }

    /// Parameter bytes an opcode takes on this controller (its command table, `Controller.commands`),
    /// nil when the controller has no such command.
    func parameterCount(_ op: UInt8) -> Int? {
        guard let spec = controller.command(op), !spec.irefVariantOnly || module.hasIREF else { return nil }
        return spec.parameters
    }

    mutating func command(_ byte: UInt8, at index: Int) {
        if pendingNeeded > 0 {
            pendingParams.append(byte)
            pendingNeeded -= 1
            if pendingNeeded == 0 {
                let op = pendingOpcode
                let params = pendingParams
                pendingParams = []
                execute(op, params, at: index)
            }
            return
        }
        guard let count = parameterCount(byte) else {
            report(index, "unknown command \(hex(byte)) for \(controller.kind)")
            return
        }
        if count == 0 {
            execute(byte, [], at: index)
        } else {
            pendingOpcode = byte
            pendingNeeded = count
            pendingParams = []
        }
    }

    mutating func execute(_ op: UInt8, _ p: [UInt8], at index: Int) {
        let c = controller
        typealias O = Opcode
        // SSD1309 §10.22: a locked chip ignores everything but the unlock command.
        if locked {
            if op == O.commandLock, p.first.map({ $0 & 0x04 == 0 }) == true { locked = false }
            return
        }
        switch op {
        case O.lowColumn...(O.lowColumn | 0x0F):
            column = (column & 0xF0) | Int(op & 0x0F)
            if c.hasAddressWindows && mode != .page {
                report(index, "\(hex(op)) sets the column only in page addressing mode (SSD1306 §10.1.1)")
            }
        case O.highColumn...(O.highColumn | 0x0F):
            column = (column & 0x0F) | (Int(op & 0x0F) << 4)
            if c.hasAddressWindows && mode != .page {
                report(index, "\(hex(op)) sets the column only in page addressing mode (SSD1306 §10.1.2)")
            }
        case O.addressingMode where c.kind == .sh1107, O.columnWindow where c.kind == .sh1107:
            mode = op == O.addressingMode ? .page : .vertical
        case O.addressingMode:
            switch p[0] & 0x03 {
            case 0: mode = .horizontal
            case 1: mode = .vertical
            case 2: mode = .page
            default: report(index, "20h parameter \(hex(p[0])) is invalid (SSD1306 §10.1.3)")
            }
        case O.columnWindow:
            let a = Int(p[0] & 0x7F), b = Int(p[1] & 0x7F)
            if a > b { report(index, "column window \(a)...\(b) is reversed") }
            columnWindow = a...max(a, b)
            column = a
        case O.pageWindow:
            let a = Int(p[0] & 0x07), b = Int(p[1] & 0x07)
            if a > b { report(index, "page window \(a)...\(b) is reversed") }
            pageWindow = a...max(a, b)
            page = a
        case O.clockDivide: clockDivide = p[0]
        case O.precharge: precharge = p[0]
        case O.vcomh: vcomh = p[0]
        case O.powerControl where c.kind == .ssd1306:
            iref = p[0]  // the IREF variant: 30h selects the internal reference (u8g2 72x40)
        case O.horizontalScroll...(O.horizontalScroll + 1), O.diagonalScroll...(O.diagonalScroll + 1),
             O.verticalScrollArea, O.nop, O.readModifyWrite, O.endReadModifyWrite, O.pumpVoltage...(O.pumpVoltage + 3):
            break  // scroll set-up, pump voltage, NOP: nothing the image depends on
        case O.startLineTwoByte where c.kind == .ssd1309:
            break  // SSD1309 GPIO
        case O.deactivateScroll: scrolling = false
        case O.activateScroll: scrolling = true
        case O.startLine...(O.startLine | 0x3F): startLine = Int(op & 0x3F)
        case O.startLineTwoByte: startLine = Int(p[0] & 0x7F)
        case O.contrast: contrast = p[0]
        case O.chargePump: chargePumpOn = p[0] & 0x04 != 0
        case O.powerControl:
            // SH1106: 8Ah/8Bh; SH1107: 80h/81h. Bit 0 switches the converter.
            chargePumpOn = p[0] & 0x01 != 0
        case O.segmentRemap, O.segmentRemap + 1: segmentRemap = op == O.segmentRemap + 1
        case O.entireDisplay, O.entireDisplay + 1: entireDisplayOn = op == O.entireDisplay + 1
        case O.normalDisplay, O.inverseDisplay: inverted = op == O.inverseDisplay
        case O.multiplex:
            let limit = c.comAlongColumns ? 127 : 63
            // SSD1306/SSD1309: 16-64 lines (§10.1.11, 0-14 invalid); SH1106 1-64; SH1107 1-128.
            if p[0] > limit || (c.hasAddressWindows && p[0] < 15) {
                report(index, "multiplex ratio \(hex(p[0])) is out of range")
            }
            multiplex = min(p[0], UInt8(limit))
        case O.displayOff, O.displayOn:
            displayOn = op == O.displayOn
            if displayOn && !chargePumpOn && !module.externalVPP {
                report(index, "display switched on with the \(c.kind == .ssd1306 ? "charge pump" : "DC-DC converter") off: the glass stays dark")
            }
        case O.page...(O.page | 0x0F):
            page = Int(op & 0x0F)
            if c.hasAddressWindows && mode != .page {
                report(index, "\(hex(op)) sets the page only in page addressing mode (SSD1306 §10.1.13)")
            }
        case O.comScanNormal...(O.comScanNormal | 0x0F): comReversed = op & 0x08 != 0
        case O.displayOffset: displayOffset = p[0] & (c.comAlongColumns ? 0x7F : 0x3F)
        case O.comPins:
            comPins = p[0]
            if let expected = module.comPinWiring, p[0] != expected {
                report(index, "COM pins configuration \(hex(p[0])) does not match this panel's wiring \(hex(expected)): rows would interleave")
            }
        case O.commandLock: locked = p[0] & 0x04 != 0
        default:
            report(index, "unhandled command \(hex(op))")
        }
    }

}
