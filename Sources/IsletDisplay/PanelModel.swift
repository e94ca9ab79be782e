/// The values of a table row that carry a source of their own.
public enum PanelField: String, Sendable, Hashable, CaseIterable {
    case columnOffset, multiplex, comPins, displayOffset, segmentRemap, comScan
    case clockDivide, precharge, vcomh, contrast, extraInit
}

/// One kind of module: a controller wired to a glass of some size, and every register value the
/// picture and its brightness depend on. Nothing is left at its power-on value: without a reset
/// line a register keeps whatever the last program wrote.
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
    /// Rotation 0 needs segment remap (A1h) on this module; rotation 180 sends the other one.
    public var segmentRemap: Bool
    /// Rotation 0 needs the reversed COM scan (C8h) on this module.
    public var comScanReversed: Bool
    /// D5h: clock divide ratio and oscillator frequency.
    public var clockDivide: UInt8
    /// D9h: pre-charge period.
    public var precharge: UInt8
    /// DBh: VCOMH deselect level.
    public var vcomh: UInt8
    /// 81h: the module's contrast unless the user sets one.
    public var contrast: UInt8
    /// Commands this module needs beyond the common sequence (sent after the power set-up).
    public var extraInit: [[UInt8]]
    /// Where each value comes from (peer file and line, datasheet page).
    public var sources: [PanelField: String]

    public var pageCount: Int { (height + 7) / 8 }
    /// COM lines the glass needs: rows, or columns on the SH1107 whose COM lines run along RAM columns.
    public var comExtent: Int { controller.comAlongColumns ? width : height }
    public var description: String { "\(controller.kind) \(width)x\(height)" + (columnOffset == 0 ? "" : " col-offset \(columnOffset)") }

    public init(controller: Controller, width: Int, height: Int, columnOffset: Int, multiplex: UInt8,
                comPins: UInt8?, displayOffset: UInt8 = 0, segmentRemap: Bool = true, comScanReversed: Bool = true,
                clockDivide: UInt8 = 0x80, precharge: UInt8 = 0xF1, vcomh: UInt8 = 0x40, contrast: UInt8 = 0xCF,
                extraInit: [[UInt8]] = [], sources: [PanelField: String]) {
        self.controller = controller
        self.width = width
        self.height = height
        self.columnOffset = columnOffset
        self.multiplex = multiplex
        self.comPins = comPins
        self.displayOffset = displayOffset
        self.segmentRemap = segmentRemap
        self.comScanReversed = comScanReversed
        self.clockDivide = clockDivide
        self.precharge = precharge
        self.vcomh = vcomh
        self.contrast = contrast
        self.extraInit = extraInit
        self.sources = sources
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

    /// The table row for a controller and size, nil when there is none.
    public static func find(_ kind: ControllerKind, width: Int, height: Int) -> PanelModel? {
        all.first { $0.controller.kind == kind && $0.width == width && $0.height == height }
    }
}

/// What a person may change to match a module whose wiring differs from the common one
/// (`[display]` column_offset, display_offset, multiplex; contrast is a display setting).
public struct PanelAdjustments: Sendable, Hashable {
    public var columnOffset: Int?
    public var displayOffset: Int?
    /// COM lines the module uses (the A8h parameter plus one).
    public var multiplexLines: Int?

    public init(columnOffset: Int? = nil, displayOffset: Int? = nil, multiplexLines: Int? = nil) {
        self.columnOffset = columnOffset
        self.displayOffset = displayOffset
        self.multiplexLines = multiplexLines
    }

    /// Which adjustment a problem is about, for the config file's line numbers.
    public enum Key: String, Sendable { case columnOffset = "column_offset", displayOffset = "display_offset", multiplex }

    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var key: Key
        public var message: String
        public var description: String { message }
    }

    /// The row with these adjustments, checked against the controller's limits.
    public func applied(to base: PanelModel) -> Result<PanelModel, Problem> {
        var m = base
        let c = base.controller
        if let v = columnOffset {
            if c.comAlongColumns {
                return .failure(Problem(key: .columnOffset, message:
                    "the \(c.kind) has no column offset (its RAM columns are COM lines): set display_offset instead"))
            }
            let most = c.ramColumns - base.width
            guard (0...most).contains(v) else {
                return .failure(Problem(key: .columnOffset, message:
                    "column_offset \(v) is out of range: a \(base.width)-wide panel on the \(c.kind)'s \(c.ramColumns) RAM columns takes 0 to \(most)"))
            }
            m.columnOffset = v
        }
        if let v = displayOffset {
            guard c.displayOffsetRange.contains(v) else {
                return .failure(Problem(key: .displayOffset, message:
                    "display_offset \(v) is out of range: the \(c.kind) takes 0 to \(c.displayOffsetRange.upperBound)"))
            }
            m.displayOffset = UInt8(v)
        }
        if let v = multiplexLines {
            let r = c.multiplexLines
            guard r.contains(v) else {
                return .failure(Problem(key: .multiplex, message:
                    "multiplex \(v) is out of range: the \(c.kind) drives \(r.lowerBound) to \(r.upperBound) COM lines"))
            }
            guard v >= base.comExtent else {
                return .failure(Problem(key: .multiplex, message:
                    "multiplex \(v) drives fewer COM lines than the \(base.width)x\(base.height) glass has (\(base.comExtent)): part of the panel would stay dark"))
            }
            m.multiplex = UInt8(v - 1)
        }
        return .success(m)
    }
}
