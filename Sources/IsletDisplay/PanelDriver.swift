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
    private var shadow: [UInt8]?
    /// Registers and addressing state are known (the init sequence went through).
    private var initialized = false
    private var panelOn = false
    private var sentContrast: UInt8 = 0
    private var sentInverted = false
    private var hardwareFlipped = false
    /// Current column/page window (SSD130x) and the RAM pointer; nil when unknown.
    private var window: Window?
    private var pointer: Pointer?

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
        var cmds: [[UInt8]] = [
            [0xAE],
            [0xD5, panel.clockDivide],
            [0xA8, panel.multiplex],
            [0xD3, panel.displayOffset],
            c.startLineIsTwoBytes ? [0xDC, 0x00] : [0x40],
        ]
        if !c.chargePump.isEmpty { cmds.append(c.chargePump) }
        cmds += panel.extraInit
        switch c.kind {
        case .ssd1306, .ssd1309: cmds.append([0x20, 0x00])  // horizontal addressing (§10.1.3)
        case .sh1107: cmds.append([0x20])                   // page addressing, no parameter on the SH1107
        case .sh1106: break                                 // page addressing only
        }
        cmds += orientationCommands(flipped: settings.rotation == .deg180)
        if c.hasCOMPins, let pins = panel.comPins { cmds.append([0xDA, pins]) }
        cmds.append([0x81, contrast])
        cmds.append([0xD9, panel.precharge])
        cmds.append([0xDB, panel.vcomh])
        // A scroll another program left running corrupts RAM writes (SSD1306 §10.2.3/§10.2.4: RAM
        // access is prohibited while scrolling); the Sino Wealth parts have no scroll.
        if c.hasAddressWindows { cmds.append([0x2E]) }
        cmds.append([0xA4])
        cmds.append([settings.inverted ? 0xA7 : 0xA6])
        return cmds
    }

    /// The contrast in force: the user's, else the module's.
    private var contrast: UInt8 { settings.contrast ?? panel.contrast }

    /// Segment remap and COM scan for an orientation: the module's upright pair, or both reversed.
    private func orientationCommands(flipped: Bool) -> [[UInt8]] {
        [[panel.segmentRemap != flipped ? 0xA1 : 0xA0], [panel.comScanReversed != flipped ? 0xC8 : 0xC0]]
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
        if contrast != sentContrast { wire.command([0x81, contrast]) }
        if new.inverted != sentInverted { wire.command([new.inverted ? 0xA7 : 0xA6]) }
        // Switching on waits for the next flush when the RAM is not known to hold a frame.
        if !new.displayOn && panelOn { wire.command([0xAE]) }
        if new.displayOn && !panelOn && shadow != nil { wire.command([0xAF]) }
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
                best = [rect, bands, spans].min { $0.wire.cost < $1.wire.cost }
            } else {
                best = planPageSpans(runs, target: target, base: base, limit: limit)
            }
        }
        var wire = best?.wire ?? Wire(limit: limit)
        if settings.displayOn && !panelOn { wire.command([0xAF]) }
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
    private var columnBase: Int {
        let c = panel.controller
        guard settings.rotation == .deg180, !c.comAlongColumns else { return panel.columnOffset }
        // Reversing the segment order mirrors the visible window inside the RAM (see docs/DISPLAY.md).
        return c.ramColumns - panel.columnOffset - panel.width
    }

    /// The frame as the panel RAM must hold it, rotating 90/270 in software.
    private func panelBytes(_ frame: Bitmap) -> [UInt8] {
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

    // MARK: planning (every plan is built as real transactions and priced by counting them)

    /// One column/page window over the bounding box of all changes, written in one data stream.
    private func planRectangle(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int)
        -> (wire: Wire, window: Window?, pointer: Pointer?) {
        var lo = Int.max, hi = Int.min, p0 = Int.max, p1 = Int.min
        for (p, r) in runs.enumerated() where !r.isEmpty {
            p0 = min(p0, p); p1 = max(p1, p)
            lo = min(lo, r[0].lowerBound); hi = max(hi, r[r.count - 1].upperBound)
        }
        var wire = Wire(limit: limit)
        let w = Window(c0: base + lo, c1: base + hi, p0: p0, p1: p1)
        var data: [UInt8] = []
        data.reserveCapacity((hi - lo + 1) * (p1 - p0 + 1))
        for p in p0...p1 { data += target[(p * panel.width + lo)...(p * panel.width + hi)] }
        PanelDriver.position(to: w, from: window, pointer: pointer, wire: &wire)
        wire.data(data)
        return (wire, w, advance(Pointer(column: w.c0, page: w.p0), in: w, by: data.count))
    }

    /// Separate windows per page for each run, merging runs across gaps cheaper than a new window.
    private func planWindowSpans(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int, bands: Bool)
        -> (wire: Wire, window: Window?, pointer: Pointer?) {
        var wire = Wire(limit: limit)
        var win = window, ptr = pointer
        // A new span costs a column window (1 address + 1 control + 21h a b) and a data
        // transaction's address and control byte: merge gaps shorter than that.
        let merged = runs.map { merge($0, gap: 7) }
        var p = 0
        while p < merged.count {
            // With `bands`, consecutive pages changed over the same single column span share one
            // window, the pointer stepping from page to page by itself (§10.1.3 horizontal mode).
            var last = p
            if bands, merged[p].count == 1 {
                while last + 1 < merged.count, merged[last + 1] == merged[p] { last += 1 }
            }
            for span in merged[p] {
                let w = Window(c0: base + span.lowerBound, c1: base + span.upperBound, p0: p, p1: last)
                PanelDriver.position(to: w, from: win, pointer: ptr, wire: &wire)
                var bytes: [UInt8] = []
                for q in p...last {
                    bytes += target[(q * panel.width + span.lowerBound)...(q * panel.width + span.upperBound)]
                }
                wire.data(bytes)
                win = w
                ptr = advance(Pointer(column: w.c0, page: p), in: w, by: bytes.count)
            }
            p = last + 1
        }
        return (wire, win, ptr)
    }

    /// Page addressing (SH1106, SH1107): B0h+page and the column nibbles, skipping what is already set.
    private func planPageSpans(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int)
        -> (wire: Wire, window: Window?, pointer: Pointer?) {
        var wire = Wire(limit: limit)
        var ptr = pointer
        for (p, pageRuns) in runs.enumerated() {
            // A new span costs up to three commands plus two transactions' address and control bytes.
            for span in merge(pageRuns, gap: 6) {
                let col = base + span.lowerBound
                if ptr?.page != p { wire.command([0xB0 | UInt8(p)]) }
                if ptr?.column != col {
                    if ptr.map({ $0.column & 0x0F }) != col & 0x0F { wire.command([UInt8(col & 0x0F)]) }
                    if ptr.map({ $0.column >> 4 }) != col >> 4 { wire.command([0x10 | UInt8(col >> 4)]) }
                }
                let bytes = Array(target[(p * panel.width + span.lowerBound)...(p * panel.width + span.upperBound)])
                wire.data(bytes)
                ptr = Pointer(column: col + bytes.count, page: p)
            }
        }
        return (wire, nil, ptr)
    }

    private func merge(_ runs: [ClosedRange<Int>], gap: Int) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for r in runs {
            if let last = out.last, r.lowerBound - last.upperBound - 1 <= gap {
                out[out.count - 1] = last.lowerBound...r.upperBound
            } else {
                out.append(r)
            }
        }
        return out
    }

    /// Emits the 21h/22h commands needed so the next data byte lands at the window's start with the
    /// window's wrap, skipping those that would not change anything (21h also resets the column
    /// pointer, 22h the page pointer: SSD1306 §10.1.4, §10.1.5).
    private static func position(to w: Window, from current: Window?, pointer: Pointer?, wire: inout Wire) {
        if current?.c0 != w.c0 || current?.c1 != w.c1 || pointer?.column != w.c0 {
            wire.command([0x21, UInt8(w.c0), UInt8(w.c1)])
        }
        if current?.p0 != w.p0 || current?.p1 != w.p1 || pointer?.page != w.p0 {
            wire.command([0x22, UInt8(w.p0), UInt8(w.p1)])
        }
    }

    private func advance(_ p: Pointer, in w: Window, by n: Int) -> Pointer {
        let cols = w.c1 - w.c0 + 1, rows = w.p1 - w.p0 + 1
        let linear = ((p.page - w.p0) * cols + (p.column - w.c0) + n) % (cols * rows)
        return Pointer(column: w.c0 + linear % cols, page: w.p0 + linear / cols)
    }

    private mutating func send(_ wire: Wire) throws(DisplayError) -> FlushStats {
        for t in wire.transactions {
            do {
                try bus.write(address: address, bytes: t)
            } catch {
                invalidate()
                throw .bus(error)
            }
        }
        return wire.stats
    }
}

/// Builds transactions the way they will go on the bus: consecutive commands share one command
/// transaction (control byte 00h), data goes in data transactions (40h), each cut to the bus limit
/// without splitting a command from its parameters.
struct Wire: Sendable {
    let limit: Int
    private(set) var transactions: [[UInt8]] = []
    private(set) var stats = FlushStats.zero
    private var open: Kind? = nil
    private enum Kind { case command, data }

    init(limit: Int) { self.limit = max(2, limit) }

    /// Bytes on the wire, address bytes included: what plans are compared by.
    var cost: Int { stats.bytes + stats.transactions }

    mutating func commands(_ list: [[UInt8]]) { for c in list { command(c) } }

    mutating func command(_ c: [UInt8]) {
        if open != .command || transactions[transactions.count - 1].count + c.count > limit {
            transactions.append([0x00])
            open = .command
            stats.transactions += 1
            stats.bytes += 1
        }
        transactions[transactions.count - 1] += c
        stats.bytes += c.count
        stats.commandBytes += c.count
    }

    mutating func data(_ d: [UInt8]) {
        var i = 0
        while i < d.count {
            if open != .data || transactions[transactions.count - 1].count >= limit {
                transactions.append([0x40])
                open = .data
                stats.transactions += 1
                stats.bytes += 1
            }
            let room = limit - transactions[transactions.count - 1].count
            let n = min(room, d.count - i)
            transactions[transactions.count - 1] += d[i..<(i + n)]
            stats.bytes += n
            stats.dataBytes += n
            i += n
        }
    }
}
