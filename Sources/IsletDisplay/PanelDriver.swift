import IsletFrame

/// What one flush (or settings change) cost on the bus.
public struct FlushStats: Sendable, Hashable, CustomStringConvertible {
    /// Write transactions sent.
    public var transactions: Int
    /// Bytes sent after the address bytes: control bytes, commands and data.
    public var bytes: Int
    /// Of `bytes`, the command bytes and the display-data bytes (control bytes are the rest).
    public var commandBytes: Int
    public var dataBytes: Int
    /// True when this flush (re)initialised the panel.
    public var initialized: Bool

    public init(transactions: Int = 0, bytes: Int = 0, commandBytes: Int = 0, dataBytes: Int = 0, initialized: Bool = false) {
        self.transactions = transactions
        self.bytes = bytes
        self.commandBytes = commandBytes
        self.dataBytes = dataBytes
        self.initialized = initialized
    }

    /// Bytes on the wire counting each transaction's address byte.
    public var wireBytes: Int { bytes + transactions }

    public static let zero = FlushStats()

    public static func + (a: FlushStats, b: FlushStats) -> FlushStats {
        FlushStats(transactions: a.transactions + b.transactions, bytes: a.bytes + b.bytes,
                   commandBytes: a.commandBytes + b.commandBytes, dataBytes: a.dataBytes + b.dataBytes,
                   initialized: a.initialized || b.initialized)
    }

    public var description: String {
        "\(bytes) bytes in \(transactions) transactions (\(commandBytes) command, \(dataBytes) data)"
    }
}

/// Clockwise rotation of the frame on the glass. 0 and 180 are done by the controller
/// (segment remap and COM scan direction), 90 and 270 by the driver.
public enum Rotation: Int, Sendable, Hashable, CaseIterable {
    case deg0 = 0, deg90 = 90, deg180 = 180, deg270 = 270

    public init?(degrees: Int) { self.init(rawValue: ((degrees % 360) + 360) % 360) }
}

public struct DisplaySettings: Sendable, Hashable {
    public var rotation: Rotation
    /// 81h value; nil leaves the module's own (the table's `contrast`).
    public var contrast: UInt8?
    public var inverted: Bool
    public var displayOn: Bool

    public init(rotation: Rotation = .deg0, contrast: UInt8? = nil, inverted: Bool = false, displayOn: Bool = true) {
        self.rotation = rotation
        self.contrast = contrast
        self.inverted = inverted
        self.displayOn = displayOn
    }
}

public enum DisplayError: Error, Sendable, Hashable, CustomStringConvertible {
    case bus(I2CError)
    case frameSize(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    case unsupportedPanel(String)

    public var description: String {
        switch self {
        case .bus(let e): return e.description
        case let .frameSize(ew, eh, w, h):
            return "frame is \(w)x\(h) but the panel in this rotation takes \(ew)x\(eh): render at the panel's size"
        case .unsupportedPanel(let why): return why
        }
    }
}

/// Drives one panel on one bus: initialises it from the controller table, keeps a shadow of the
/// panel RAM, and sends each frame as the cheapest command/data sequence that makes the RAM equal it.
public struct PanelDriver: Sendable {
    public let bus: any I2CBus
    public let address: UInt8
    public let panel: PanelModel
    public private(set) var settings: DisplaySettings

    /// What the panel RAM holds for the visible window, in panel orientation; nil when unknown.
    var shadow: [UInt8]?
    /// Registers and addressing state are known (the init sequence went through).
    var initialized = false
    var panelOn = false
    var sentContrast: UInt8 = 0
    var sentInverted = false
    var hardwareFlipped = false
    /// Current column/page window (SSD130x) and the RAM pointer; nil when unknown.
    var window: Window?
    var pointer: Pointer?

    struct Window: Hashable { var c0, c1, p0, p1: Int }
    struct Pointer: Hashable { var column, page: Int }

    public init(bus: any I2CBus, address: UInt8 = 0x3C, panel: PanelModel, settings: DisplaySettings = DisplaySettings()) {
        self.bus = bus
        self.address = address
        self.panel = panel
        self.settings = settings
    }

    /// The frame size `flush` takes in the current rotation.
    public var frameWidth: Int { settings.rotation == .deg90 || settings.rotation == .deg270 ? panel.height : panel.width }
    public var frameHeight: Int { settings.rotation == .deg90 || settings.rotation == .deg270 ? panel.width : panel.height }

    /// Whether the panel's display is on, as far as the driver switched it (false after a bus error).
    public var isDisplayOn: Bool { panelOn }

    /// True when the driver knows what the panel holds (no bus error since the last full write).
    public var isSynchronized: Bool { initialized && shadow != nil }

    /// Forgets everything known about the panel: the next flush re-initialises it and sends a full frame.
    public mutating func invalidate() {
        initialized = false
        shadow = nil
        window = nil
        pointer = nil
        panelOn = false
    }

    // MARK: init sequence

    /// The controller's init sequence for the current settings, as command bytes, written from the
    /// datasheets (SSD1306 app note Figure 2 order; SH1106/SH1107 power-on sequences). It leaves the
    /// display off: the first flush writes the RAM and then switches the display on, so the noise a
    /// freshly powered RAM holds is never shown.
    public func initSequence() -> [[UInt8]] {
        let c = panel.controller
        typealias O = Opcode
        var cmds: [[UInt8]] = [
            [O.displayOff],
            [O.clockDivide, panel.clockDivide],
            [O.multiplex, panel.multiplex],
            [O.displayOffset, panel.displayOffset],
            c.startLineIsTwoBytes ? [O.startLineTwoByte, 0x00] : [O.startLine],
        ]
        if !c.chargePump.isEmpty { cmds.append(c.chargePump) }
        cmds += panel.extraInit
        switch c.kind {
        case .ssd1306, .ssd1309: cmds.append([O.addressingMode, 0x00])  // horizontal addressing (§10.1.3)
        case .sh1107: cmds.append([O.addressingMode])                   // page addressing, no parameter on the SH1107
        case .sh1106: break                                 // page addressing only
        }
        cmds += orientationCommands(flipped: settings.rotation == .deg180)
        if c.hasCOMPins, let pins = panel.comPins { cmds.append([O.comPins, pins]) }
        cmds.append([O.contrast, contrast])
        cmds.append([O.precharge, panel.precharge])
        cmds.append([O.vcomh, panel.vcomh])
        // A scroll another program left running corrupts RAM writes (SSD1306 §10.2.3/§10.2.4: RAM
        // access is prohibited while scrolling); the Sino Wealth parts have no scroll.
        if c.hasAddressWindows { cmds.append([O.deactivateScroll]) }
        cmds.append([O.entireDisplay])
        cmds.append([settings.inverted ? O.inverseDisplay : O.normalDisplay])
        return cmds
    }

    /// The contrast in force: the user's, else the module's.
    var contrast: UInt8 { settings.contrast ?? panel.contrast }

    /// Segment remap and COM scan for an orientation: the module's upright pair, or both reversed.
    func orientationCommands(flipped: Bool) -> [[UInt8]] {
        [[panel.segmentRemap != flipped ? Opcode.segmentRemap + 1 : Opcode.segmentRemap],
         [panel.comScanReversed != flipped ? Opcode.comScanReversed : Opcode.comScanNormal]]
    }

    /// Sends the init sequence. The shadow becomes unknown-but-initialised: the next flush sends a full frame.
    @discardableResult
    public mutating func initialize() throws(DisplayError) -> FlushStats {
        guard panel.isConsistent else {
            throw .unsupportedPanel("panel \(panel) does not fit the \(panel.controller.kind) RAM (\(panel.controller.ramColumns) columns, \(panel.controller.ramPages) pages)")
        }
        invalidate()
        var wire = Wire(limit: bus.capabilities.maxTransactionBytes)
        wire.commands(initSequence())
        var stats = try send(wire)
        stats.initialized = true
        initialized = true
        panelOn = false
        sentContrast = contrast
        sentInverted = settings.inverted
        hardwareFlipped = settings.rotation == .deg180
        return stats
    }

    // MARK: settings

    /// Applies new settings, sending only the commands that change something. A change between the
    /// hardware orientations (0/90/270 and 180) rewrites the whole frame on the next flush.
    @discardableResult
    public mutating func apply(_ new: DisplaySettings) throws(DisplayError) -> FlushStats {
        settings = new
        guard initialized else { return .zero }
        var wire = Wire(limit: bus.capabilities.maxTransactionBytes)
        let flip = new.rotation == .deg180
        if flip != hardwareFlipped {
            wire.commands(orientationCommands(flipped: flip))
            shadow = nil
            window = nil
            pointer = nil
        }
        if contrast != sentContrast { wire.command([Opcode.contrast, contrast]) }
        if new.inverted != sentInverted { wire.command([new.inverted ? Opcode.inverseDisplay : Opcode.normalDisplay]) }
        // Switching on waits for the next flush when the RAM is not known to hold a frame.
        if !new.displayOn && panelOn { wire.command([Opcode.displayOff]) }
        if new.displayOn && !panelOn && shadow != nil { wire.command([Opcode.displayOn]) }
        let stats = try send(wire)
        hardwareFlipped = flip
        sentContrast = contrast
        sentInverted = new.inverted
        if !new.displayOn { panelOn = false } else if shadow != nil { panelOn = true }
        return stats
    }

    public mutating func setRotation(_ r: Rotation) throws(DisplayError) -> FlushStats {
        var s = settings; s.rotation = r; return try apply(s)
    }
    public mutating func setContrast(_ v: UInt8) throws(DisplayError) -> FlushStats {
        var s = settings; s.contrast = v; return try apply(s)
    }
    public mutating func setInverted(_ v: Bool) throws(DisplayError) -> FlushStats {
        var s = settings; s.inverted = v; return try apply(s)
    }
    public mutating func setDisplayOn(_ v: Bool) throws(DisplayError) -> FlushStats {
        var s = settings; s.displayOn = v; return try apply(s)
    }

    // MARK: flush

    /// Makes the panel show `frame` (sized `frameWidth`×`frameHeight`), sending only what differs
    /// from the shadow. After a bus error the next call re-initialises and sends everything.
    public mutating func flush(_ frame: Bitmap) throws(DisplayError) -> FlushStats {
        guard frame.width == frameWidth, frame.height == frameHeight else {
            throw .frameSize(expectedWidth: frameWidth, expectedHeight: frameHeight, width: frame.width, height: frame.height)
        }
        var stats = FlushStats.zero
        if !initialized { stats = try initialize() }
        let target = panelBytes(frame)
        let base = columnBase
        let pages = panel.pageCount
        let width = panel.width

        // Changed runs per page, as panel-relative column spans.
        var runs: [[ClosedRange<Int>]] = Array(repeating: [], count: pages)
        var any = false
        for p in 0..<pages {
            var x = 0
            while x < width {
                let i = p * width + x
                if let s = shadow, s[i] == target[i] { x += 1; continue }
                var end = x
                while end + 1 < width {
                    let j = p * width + end + 1
                    if let s = shadow, s[j] == target[j] { break }
                    end += 1
                }
                runs[p].append(x...end)
                any = true
                x = end + 1
            }
        }

        let limit = bus.capabilities.maxTransactionBytes
        var best: (wire: Wire, window: Window?, pointer: Pointer?)? = nil
        if any {
            if panel.controller.hasAddressWindows {
                let rect = planRectangle(runs, target: target, base: base, limit: limit)
                let spans = planWindowSpans(runs, target: target, base: base, limit: limit, bands: false)
                let bands = planWindowSpans(runs, target: target, base: base, limit: limit, bands: true)
                let trimmed = planRectangle(runs, target: target, base: base, limit: limit, trimmed: true)
                let onward = planFromPointer(runs, target: target, base: base, limit: limit)
                best = ([rect, trimmed, bands, spans] + (onward.map { [$0] } ?? [])).min { $0.wire.cost < $1.wire.cost }
            } else {
                best = planPageSpans(runs, target: target, base: base, limit: limit)
            }
        }
        var wire = best?.wire ?? Wire(limit: limit)
        if settings.displayOn && !panelOn { wire.command([Opcode.displayOn]) }
        stats = stats + (try send(wire))
        if let best {
            window = best.window
            pointer = best.pointer
        }
        shadow = target
        if settings.displayOn { panelOn = true }
        return stats
    }

    /// RAM column of the frame's column 0 in the current hardware orientation.
    var columnBase: Int {
        let c = panel.controller
        guard settings.rotation == .deg180, !c.comAlongColumns else { return panel.columnOffset }
        // Reversing the segment order mirrors the visible window inside the RAM (see docs/DISPLAY.md).
        return c.ramColumns - panel.columnOffset - panel.width
    }

    /// The frame as the panel RAM must hold it, rotating 90/270 in software.
    func panelBytes(_ frame: Bitmap) -> [UInt8] {
        switch settings.rotation {
        case .deg0, .deg180:
            return frame.bytes
        case .deg90, .deg270:
            var out = Bitmap(width: panel.width, height: panel.height)
            let fw = frame.width, fh = frame.height
            let cw = settings.rotation == .deg90
            for gy in 0..<panel.height {
                for gx in 0..<panel.width {
                    // Clockwise 90: glass (gx, gy) shows frame (gy, fh-1-gx); 270: frame (fw-1-gy, gx).
                    let on = cw ? frame[gy, fh - 1 - gx] : frame[fw - 1 - gy, gx]
                    if on { out[gx, gy] = true }
                }
            }
            return out.bytes
        }
    }

}
