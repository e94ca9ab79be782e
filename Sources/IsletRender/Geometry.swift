import IsletCore

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
