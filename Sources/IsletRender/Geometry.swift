import IsletCore

/// A panel's size in pixels. The named sizes are the panels Islet lays out by hand; any other
/// size from 8×8 to 256×256 renders with the same rules.
public struct PanelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public static let w128h32 = PanelSize(width: 128, height: 32)
    public static let w128h64 = PanelSize(width: 128, height: 64)
    public static let w96h16 = PanelSize(width: 96, height: 16)
    public static let w72h40 = PanelSize(width: 72, height: 40)
    public static let w64h48 = PanelSize(width: 64, height: 48)
    public static let w64h32 = PanelSize(width: 64, height: 32)
    public static let w64h128 = PanelSize(width: 64, height: 128)
    public static let w128h128 = PanelSize(width: 128, height: 128)

    /// Every size the layouts are designed and tested for.
    public static let all: [PanelSize] = [.w128h32, .w128h64, .w96h16, .w72h40, .w64h48, .w64h32, .w64h128, .w128h128]

    public static let validRange = 8...256

    /// Parses `WxH` (also `W×H` or `WXH`), e.g. `128x32`; nil when malformed or out of 8…256.
    public init?(parsing text: String) {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "x" || $0 == "X" || $0 == "×" })
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && $0.count <= 4 }),
              let w = Int(parts[0]), let h = Int(parts[1]),
              Self.validRange.contains(w), Self.validRange.contains(h) else { return nil }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }
}

/// How much of the pill one activity gets (Live Activities' presentations).
public enum Presentation: String, Sendable, CaseIterable {
    /// Leading icon and trailing time.
    case compact
    /// The icon alone: another activity competes for the pill.
    case minimal
    /// The long-press view: compact, plus a label row where the panel has room for it.
    case expanded
    /// Title, large time, cycle label and state, for panels 64 px tall and up.
    case lockscreen
}

/// Host-chosen rendering options. The defaults are what `isletctl render` draws; OLED care is
/// off by default.
public struct RenderOptions: Hashable, Sendable {
    /// Pixel shift against burn-in: the whole layout moves by this many pixels. The host picks
    /// the offset from its own clock (see `PixelShift.offset(at:every:amplitude:)`).
    public var shiftX: Int
    public var shiftY: Int
    /// Dimmed display: the time is drawn in the regular (thinner) weight and the progress
    /// line is left out, so fewer pixels burn. The display driver lowers the panel contrast
    /// to `dimLevel` (an SSD1306 contrast value, 0x81 command).
    public var dimLevel: UInt8?
    /// Draws the thin progress line of countdowns where it stays legible.
    public var showsProgress: Bool

    public init(shiftX: Int = 0, shiftY: Int = 0, dimLevel: UInt8? = nil, showsProgress: Bool = true) {
        self.shiftX = shiftX
        self.shiftY = shiftY
        self.dimLevel = dimLevel
        self.showsProgress = showsProgress
    }

    public var isDimmed: Bool { dimLevel != nil }

    /// The pixel shift as one offset, e.g. `options.shift = PixelShift.offset(at:every:amplitude:)`.
    public var shift: (dx: Int, dy: Int) {
        get { (shiftX, shiftY) }
        set { shiftX = newValue.dx; shiftY = newValue.dy }
    }
}

/// The burn-in pixel shift: a slow orbit around the home position, one step per period.
public enum PixelShift {
    /// The offset to use at `now`: (0,0) when `amplitude` is 0 or `period` is not positive;
    /// otherwise one of the 3×3 (or 5×5 for amplitude 2) positions, changing every `period`
    /// (a few minutes is plenty: burn-in takes thousands of hours).
    public static func offset(at now: Instant, every period: Duration, amplitude: Int) -> (dx: Int, dy: Int) {
        let a = max(0, min(amplitude, 2))
        let p = period.wholeMilliseconds
        guard a > 0, p > 0 else { return (0, 0) }
        let side = 2 * a + 1, cells = side * side
        // Row by row, reversing every other row, then back the same way: every step moves
        // one pixel at most, also when the orbit starts over.
        let loop = Int64(2 * cells - 2)
        var step = (now.milliseconds / p) % loop
        if step < 0 { step += loop }
        let i = step < cells ? Int(step) : Int(loop - step)
        let row = i / side
        let col = row % 2 == 0 ? i % side : side - 1 - i % side
        return (col - a, row - a)
    }
}
