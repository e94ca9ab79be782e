import IsletFrame
import IsletCore

/// What an `until` activity adds to the presentations (docs/RENDERING.md, "Pushed activities"):
/// its figure is the time left to its source's end, else the source's progress as a
/// percentage, else its status text; the expanded row and the lock screen carry its title and
/// text where a countdown carries its cycle.
extension RenderState {
    /// What the time slot shows.
    enum Figure {
        /// `m:ss` (also a countdown's, a stopwatch's).
        case time
        /// `NN%`: an until activity with progress but no end.
        case percent(Int)
        /// Its status text: an until activity with neither.
        case text(String)
        /// Nothing to show.
        case none
    }

    static func figure(_ a: Activity) -> Figure {
        guard case .tracking = a.content.display, let p = a.content.pushed else { return .time }
        if p.endsAt != nil { return .time }
        if let v = p.progress { return .percent(Int((v * 100).rounded(.down))) }
        if let t = p.text { return .text(t) }
        return .none
    }

    /// The status text of an until activity, for the expanded row and the lock screen.
    static func statusText(_ a: Activity) -> String? { a.content.pushed?.text }

    /// The time slot for an activity whose figure is not a time: the percentage in the time's
    /// face (ASCII, left to right), or the status text as a label. Returns what was drawn.
    @discardableResult
    mutating func drawFigure(_ a: Activity, _ figure: Figure, _ now: Instant, _ o: RenderOptions, _ r: Rect, align: Int, _ f: inout Bitmap) -> Rect {
        switch figure {
        case .time: return drawTime(a, now, o, r, align: align, &f)
        case .percent(let n): return drawDigits(n, suffix: UInt8(ascii: "%"), a, o, r, align: align, &f)
        case .text(let t):
            let line = prepareFitted(.title(t, size: r.h >= 16 ? 16 : 12), width: r.w)
            let x = align > 0 ? r.maxX - line.width : r.x + (r.w - line.width) / 2
            let rowH = min(r.h, line.height + 4)
            let top = r.y + (r.h - rowH) / 2
            drawLine(line, x: x, rowTop: top, rowHeight: rowH, into: &f)
            return Rect(x: x, y: top, w: line.width, h: rowH)
        case .none: return Rect(x: r.x, y: r.y, w: 0, h: 0)
        }
    }

    /// The title and the status text on one 16-pixel row: the title at the start side, the text
    /// at the end side; when both do not fit, the text (what changes) alone, fitted.
    mutating func untilRow(_ a: Activity, _ r: Rect, _ f: inout Bitmap) {
        let inner = Rect(x: r.x + 2, y: r.y, w: r.w - 4, h: r.h)
        let rtl = Localization.isRightToLeft(a.attributes.language)
        let title = a.attributes.title.map { prepare(.title($0, size: 12)) }
        let text = Self.statusText(a).map { prepare(.title($0, size: 12)) }
        if let t = title, let s = text, t.width + s.width + 8 <= inner.w {
            let (left, right) = rtl ? (s, t) : (t, s)
            drawLine(left, x: inner.x, rowTop: r.y, rowHeight: r.h, into: &f)
            drawLine(right, x: inner.maxX - right.width, rowTop: r.y, rowHeight: r.h, into: &f)
        } else if let one = Self.statusText(a) ?? a.attributes.title {
            let line = prepareFitted(.title(one, size: 12), width: inner.w)
            drawLine(line, x: startX(line, inner), rowTop: r.y, rowHeight: r.h, into: &f)
        }
    }
}
