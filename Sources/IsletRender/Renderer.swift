import IsletFrame
@preconcurrency import CFreeType
import IsletCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Draws a scene (zero, one or two activities, a presentation, `now`) into a page-packed frame.
///
/// Created once with its fonts loaded; every glyph is rasterized once and cached, and each
/// label is shaped once per text, so a steady-state tick (same labels, new second) draws
/// from caches without touching the allocator. Thread-safe: the caches sit behind a mutex.
public final class Renderer: Sendable {
    private let state: Mutex<RenderState>

    /// Loads the fonts from `fontDirectory`, else `$ISLET_FONT_DIR`, else Debian's
    /// /usr/share/fonts/X11/misc (Terminus as OTB from fonts-terminus-otb also works).
    public init(fontDirectory: String? = nil) throws(FontError) {
        state = Mutex(try RenderState(directory: FontFiles.directory(override: fontDirectory)))
    }

    deinit { state.withLock { $0.close() } }

    /// Renders the scene into `frame`, whose size is the panel's.
    /// - One activity: `presentation`. Two: both minimal, sharing the pill, the first on the
    ///   left. None, or only dismissed ones: a dark frame. A third and later are not shown.
    public func render(_ activities: [Activity], presentation: Presentation, now: Instant,
                       options: RenderOptions = RenderOptions(), into frame: inout Bitmap) {
        state.withLock { s in s.render(activities, presentation, now, options, &frame) }
    }

    /// Convenience: renders into a new frame of `size`.
    public func render(_ activities: [Activity], presentation: Presentation, now: Instant,
                       size: PanelSize, options: RenderOptions = RenderOptions()) -> Bitmap {
        var b = Bitmap(width: size.width, height: size.height)
        render(activities, presentation: presentation, now: now, options: options, into: &b)
        return b
    }

    /// Where the time digits of a single-activity frame are drawn (frame coordinates, pixel
    /// shift included); nil when the frame shows no time. Lets tests and the gallery
    /// look at the digits alone.
    public func timeRegion(_ activity: Activity, presentation: Presentation, now: Instant,
                           size: PanelSize, options: RenderOptions = RenderOptions()) -> (x: Int, y: Int, width: Int, height: Int)? {
        state.withLock { s in
            var scratch = Bitmap(width: size.width, height: size.height)
            s.lastTimeRect = nil
            s.render([activity], presentation, now, options, &scratch)
            return s.lastTimeRect.map { ($0.x, $0.y, $0.w, $0.h) }
        }
    }

    /// Draws `text` (shaped and reordered) in the label font a layout would pick, for
    /// galleries and previews. Returns the width drawn.
    @discardableResult
    public func drawLabel(_ text: String, x: Int, y: Int, into frame: inout Bitmap) -> Int {
        state.withLock { s in
            let line = s.prepare(.title(text, size: 12))
            s.drawLine(line, x: x, rowTop: y, rowHeight: line.height, into: &frame)
            return line.width
        }
    }
}

struct Rect {
    var x: Int, y: Int, w: Int, h: Int
    var maxX: Int { x + w }
    var maxY: Int { y + h }
}

/// A label ready to draw: visual order, its face and width.
struct PreparedLine {
    var scalars: [UInt32]
    var font: LabelFont
    var width: Int
    var height: Int
    var rtl: Bool
}

enum LabelFont: Hashable {
    case terminus(Int)
    case unifont
}

/// A label narrowed to `width` pixels. A plain struct (not an indirect enum case) so a cache
/// lookup builds no box on the heap.
struct FittedKey: Hashable {
    var key: LabelKey
    var width: Int
}

enum LabelKey: Hashable {
    case word(Localization.Key, language: String, size: Int)
    case cycle(Int, of: Int?, language: String, size: Int)
    case cycleShort(Int, of: Int?, language: String, size: Int)
    case title(String, size: Int)
}

struct RenderState: ~Copyable {
    let library: FT_Library
    var bold: [Face]
    var regular: [Face]
    var unifont: Face
    var labels: [LabelKey: PreparedLine] = [:]
    /// Lines narrowed to a width (smaller face, then shortened with an ellipsis), by key and width.
    var fitted: [FittedKey: PreparedLine] = [:]
    var lastTimeRect: Rect? = nil

    init(directory: String) throws(FontError) {
        var lib: FT_Library?
        let e = FT_Init_FreeType(&lib)
        guard e == 0, let lib else { throw .freeTypeInit(e) }
        var b: [Face] = [], r: [Face] = []
        do throws(FontError) {
            let u = try Face(library: lib, path: directory + "/unifont.pcf.gz", pixelHeight: 16, package: "xfonts-unifont")
            do throws(FontError) {
                for size in FontFiles.terminusSizes {
                    b.append(try Self.terminus(lib, directory, size, bold: true))
                    r.append(try Self.terminus(lib, directory, size, bold: false))
                }
            } catch {
                u.done()
                throw error
            }
            library = lib
            unifont = u
            bold = b
            regular = r
        } catch {
            for f in b + r { f.done() }
            FT_Done_FreeType(lib)
            throw error
        }
        labels.reserveCapacity(64)
    }

    /// Terminus as PCF (xfonts-terminus), else as OTB (fonts-terminus-otb) in the same
    /// directory or in Debian's OpenType directory.
    private static func terminus(_ lib: FT_Library, _ dir: String, _ size: Int, bold: Bool) throws(FontError) -> Face {
        let pcf = dir + "/ter-u\(size)\(bold ? "b" : "n")_unicode.pcf.gz"
        if access(pcf, R_OK) == 0 {
            return try Face(library: lib, path: pcf, pixelHeight: size, package: "xfonts-terminus")
        }
        let otbName = bold ? "/terminus-bold.otb" : "/terminus-normal.otb"
        for d in [dir, FontFiles.otbDirectory] where access(d + otbName, R_OK) == 0 {
            return try Face(library: lib, path: d + otbName, pixelHeight: size, package: "fonts-terminus-otb")
        }
        throw .missing(path: pcf, debianPackage: "xfonts-terminus")
    }

    mutating func close() {
        for f in bold { f.done() }
        for f in regular { f.done() }
        unifont.done()
        bold = []
        regular = []
        FT_Done_FreeType(library)
    }

    // MARK: scene

    mutating func render(_ activities: [Activity], _ presentation: Presentation, _ now: Instant,
                         _ options: RenderOptions, _ frame: inout Bitmap) {
        frame.clear()
        lastTimeRect = nil
        // The first two activities not yet dismissed, found without building an array.
        var first = -1, second = -1
        for i in activities.indices {
            if let e = activities[i].ending, e.dismissAt <= now { continue }
            if activities[i].content.phase == .idle { continue }
            if first < 0 { first = i } else if second < 0 { second = i; break }
        }
        guard first >= 0 else { return }
        let panel = Rect(x: options.shiftX, y: options.shiftY, w: frame.width, h: frame.height)
        if second >= 0 {
            let half = panel.w / 2
            minimal(activities[first], now, options, Rect(x: panel.x, y: panel.y, w: half, h: panel.h), align: -1, &frame)
            minimal(activities[second], now, options, Rect(x: panel.x + half, y: panel.y, w: panel.w - half, h: panel.h), align: 1, &frame)
            return
        }
        let a = activities[first]
        switch presentation {
        case .minimal: minimal(a, now, options, panel, align: 0, &frame)
        case .compact: compact(a, now, options, panel, &frame)
        case .expanded: expanded(a, now, options, panel, &frame)
        case .lockscreen: lockscreen(a, now, options, panel, &frame)
        }
    }

    // MARK: presentations

    static func icon(for a: Activity) -> Icon {
        switch a.content.display {
        case .paused: .pause
        case .cycleEnd: .cycleEnd
        case .complete: .complete
        case .running, .idle: a.attributes.kind.isStopwatch ? .stopwatch : .meditation
        }
    }

    /// Elapsed share of the cycle as (done, total) whole seconds, for countdowns that run or
    /// are paused; full at cycle end. Based on the shown second, so it moves with the digits.
    static func progress(_ a: Activity, _ now: Instant) -> (done: Int, total: Int)? {
        guard case .countdown(let cycle, _) = a.attributes.kind else { return nil }
        let total = Int((cycle.wholeMilliseconds + 999) / 1000)
        guard total > 0 else { return nil }
        switch a.content.display {
        case .running, .paused:
            let shown = min(total, ShownTime.seconds(of: a, at: now))
            return (total - shown, total)
        case .cycleEnd: return (total, total)
        case .complete, .idle: return nil
        }
    }

    /// align: -1 leading (left), 0 centred, 1 trailing (right).
    mutating func minimal(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, align: Int, _ f: inout Bitmap) {
        let scale = r.h >= 40 && r.w >= 40 ? 2 : 1
        let s = Icon.size * scale
        let margin = r.w >= 96 ? 2 : 1
        let x = align < 0 ? r.x + margin : align > 0 ? r.maxX - margin - s : r.x + (r.w - s) / 2
        let bar = o.showsProgress && !o.isDimmed && r.h - s >= 6 ? Self.progress(a, now) : nil
        let y = r.y + (r.h - s - (bar == nil ? 0 : 4)) / 2
        drawIcon(Self.icon(for: a), x: x, y: y, scale: scale, dotted: a.content.isStale, &f)
        if let p = bar { drawBar(x: x, y: y + s + 3, width: s, done: p.done, total: p.total, &f) }
    }

    mutating func compact(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, _ f: inout Bitmap) {
        let scale = r.h >= 48 && r.w >= 96 ? 2 : 1
        let s = Icon.size * scale
        let margin = r.w >= 96 ? 2 : 1
        let bar = o.showsProgress && !o.isDimmed && r.h >= 32 ? Self.progress(a, now) : nil
        // A countdown keeps the bar's rows in every state, so its digits keep one size.
        let reserves = o.showsProgress && !o.isDimmed && r.h >= 32 && !a.attributes.kind.isStopwatch
        let usable = r.h - (reserves ? 3 : 0)
        // The time comes first: when even the smallest face cannot sit beside the icon (a cycle
        // of 10 h or more, h:mm:ss with two hour digits, on a 64 px wide panel), the icon gives
        // way and the digits take the width instead of running into it.
        let besideIcon = r.maxX - margin - (r.x + margin + s + 3)
        let showsIcon = besideIcon >= Self.terminusCellWidths[0] * Self.timeChars(a, now)
        if showsIcon {
            drawIcon(Self.icon(for: a), x: r.x + margin, y: r.y + (usable - s) / 2, scale: scale, dotted: a.content.isStale, &f)
        }
        let timeLeft = showsIcon ? r.x + margin + s + 3 : r.x + margin
        let timeRect = Rect(x: timeLeft, y: r.y, w: r.maxX - margin - timeLeft, h: usable)
        let drawn = drawTime(a, now, o, timeRect, align: 1, &f)
        if let p = bar {
            // Just under the digits, spanning the time's column.
            drawBar(x: timeLeft, y: min(drawn.maxY + 1, r.maxY - 2), width: timeRect.w, done: p.done, total: p.total, &f)
        }
    }

    mutating func expanded(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, _ f: inout Bitmap) {
        // On a pill-sized panel the extra regions stay empty: the expanded view is the compact one.
        guard r.h >= 48 else { return compact(a, now, o, r, &f) }
        let row = 16
        compact(a, now, o, Rect(x: r.x, y: r.y, w: r.w, h: r.h - row), &f)
        infoRow(a, Rect(x: r.x, y: r.maxY - row, w: r.w, h: row), namesKind: true, &f)
    }

    mutating func lockscreen(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, _ f: inout Bitmap) {
        guard r.h >= 64, r.w >= 64 else { return compact(a, now, o, r, &f) }
        let row = 16
        let tall = r.h >= 96
        let iconSize = tall ? 2 * Icon.size : 0
        let fixed = iconSize + row + (tall ? 2 * row : row)
        let timeMax = min(32, r.h - fixed)
        let chars = Self.timeChars(a, now)
        let face = Self.timeFaceIndex(chars: chars, maxWidth: r.w - 4, maxHeight: timeMax)
        let timeH = FontFiles.terminusSizes[face]
        let items = tall ? 5 : 3
        let gap = max(0, (r.h - fixed - timeH) / (items + 1))
        var y = r.y + gap
        if tall {
            drawIcon(Self.icon(for: a), x: r.x + (r.w - iconSize) / 2, y: y, scale: 2, dotted: a.content.isStale, &f)
            y += iconSize + gap
        }
        let titleKey: LabelKey = a.attributes.title.map { .title($0, size: r.w >= 128 ? 16 : 12) }
            ?? .word(a.attributes.kind.isStopwatch ? .stopwatch : .meditation, language: a.attributes.language, size: r.w >= 128 ? 16 : 12)
        let title = prepareFitted(titleKey, width: r.w - 4)
        drawLine(title, x: startX(title, Rect(x: r.x + 2, y: y, w: r.w - 4, h: row)), rowTop: y, rowHeight: row, into: &f)
        y += row + gap
        drawTime(a, now, o, Rect(x: r.x, y: y, w: r.w, h: timeH), align: 0, &f)
        y += timeH + gap
        if tall {
            let rowRect = Rect(x: r.x + 2, y: y, w: r.w - 4, h: row)
            if let c = cycleLine(a, width: rowRect.w) {
                drawLine(c, x: startX(c, rowRect), rowTop: y, rowHeight: row, into: &f)
            }
            y += row + gap
            let st = prepare(.word(Self.stateKey(a), language: a.attributes.language, size: 12))
            if st.width <= rowRect.w {
                drawLine(st, x: startX(st, Rect(x: rowRect.x, y: y, w: rowRect.w, h: row)), rowTop: y, rowHeight: row, into: &f)
            }
        } else {
            infoRow(a, Rect(x: r.x, y: y, w: r.w, h: row), namesKind: false, &f)
        }
    }

    static func stateKey(_ a: Activity) -> Localization.Key {
        switch a.content.display {
        case .paused: .paused
        case .cycleEnd: .cycleComplete
        case .complete: .complete
        case .running, .idle: .running
        }
    }

    /// The cycle label that fits `width`: "Cycle 2 of 3", else the short "2/3"; none for a
    /// stopwatch.
    mutating func cycleLine(_ a: Activity, width: Int) -> PreparedLine? {
        guard !a.attributes.kind.isStopwatch else { return nil }
        let full = prepare(.cycle(a.content.cycle, of: a.content.totalCycles, language: a.attributes.language, size: 12))
        return full.width <= width ? full : prepare(.cycleShort(a.content.cycle, of: a.content.totalCycles, language: a.attributes.language, size: 12))
    }

    /// One 16-pixel row: the cycle label at the start side and the state at the end side.
    /// When "Cycle 2 of 3" and the state do not fit side by side, the short "2/3" stands in for
    /// the cycle label, so every language shows both (Spanish "En pausa", Arabic, Japanese and
    /// Chinese labels are too wide for the long pair on a 128 px row). Only when even that pair
    /// does not fit: the state when not running, else the cycle label.
    /// `namesKind`: a running stopwatch has no cycle, so the row names it (not under a title).
    mutating func infoRow(_ a: Activity, _ r: Rect, namesKind: Bool, _ f: inout Bitmap) {
        let inner = Rect(x: r.x + 2, y: r.y, w: r.w - 4, h: r.h)
        let running: Bool = if case .running = a.content.display { true } else { false }
        let state: PreparedLine? = running ? nil : prepare(.word(Self.stateKey(a), language: a.attributes.language, size: 12))
        let language = a.attributes.language
        let full: PreparedLine?, short: PreparedLine?
        if a.attributes.kind.isStopwatch {
            full = running && namesKind ? prepare(.word(.stopwatch, language: language, size: 12)) : nil
            short = nil
        } else {
            full = prepare(.cycle(a.content.cycle, of: a.content.totalCycles, language: language, size: 12))
            short = prepare(.cycleShort(a.content.cycle, of: a.content.totalCycles, language: language, size: 12))
        }
        let rtl = Localization.isRightToLeft(language)
        // No arrays of candidates here: a steady-state tick must not allocate.
        func fits(_ l: PreparedLine?, besides extra: Int) -> PreparedLine? {
            guard let l, l.width + extra <= inner.w else { return nil }
            return l
        }
        if let s = state, let c = fits(full, besides: s.width + 8) ?? fits(short, besides: s.width + 8) {
            let (left, right) = rtl ? (s, c) : (c, s)
            drawLine(left, x: inner.x, rowTop: r.y, rowHeight: r.h, into: &f)
            drawLine(right, x: inner.maxX - right.width, rowTop: r.y, rowHeight: r.h, into: &f)
        } else if let one = fits(state, besides: 0) ?? fits(full, besides: 0) ?? fits(short, besides: 0) {
            // Nothing is drawn clipped: when no label fits, the icon tells the state.
            drawLine(one, x: startX(one, inner), rowTop: r.y, rowHeight: r.h, into: &f)
        }
    }

    func startX(_ l: PreparedLine, _ r: Rect) -> Int { l.rtl ? r.maxX - l.width : r.x }

    // MARK: time

    /// Characters of the widest time this activity shows: countdowns size for their cycle
    /// length, so the digits do not jump as 10:00 becomes 9:59.
    static func timeChars(_ a: Activity, _ now: Instant) -> Int {
        var s = ShownTime.seconds(of: a, at: now)
        if case .countdown(let cycle, _) = a.attributes.kind {
            s = max(s, Int((cycle.wholeMilliseconds + 999) / 1000))
        }
        if s >= 3600 {
            var h = s / 3600, digits = 0
            while h > 0 { digits += 1; h /= 10 }
            return digits + 6
        }
        return s >= 600 ? 5 : 4
    }

    /// Cell widths of the Terminus sizes in `FontFiles.terminusSizes` (12 px is 6 wide, 14 is 8).
    static let terminusCellWidths = [6, 8, 8, 10, 10, 11, 12, 14, 16]

    /// Index into `terminusSizes` of the largest Terminus that fits; the smallest otherwise.
    /// Terminus cells are size/2 wide (6 for 12 and 14 px is 8: read from the table).
    static func timeFaceIndex(chars: Int, maxWidth: Int, maxHeight: Int) -> Int {
        var pick = 0
        for i in FontFiles.terminusSizes.indices
        where FontFiles.terminusSizes[i] <= maxHeight && terminusCellWidths[i] * chars <= maxWidth {
            pick = i
        }
        return pick
    }

    /// The time, always ASCII digits drawn left to right, whatever the language.
    /// align: 1 trailing, 0 centred.
    @discardableResult
    mutating func drawTime(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, align: Int, _ f: inout Bitmap) -> Rect {
        let seconds = ShownTime.seconds(of: a, at: now)
        let text = ShownTime.format(seconds)
        let fi = Self.timeFaceIndex(chars: Self.timeChars(a, now), maxWidth: r.w, maxHeight: r.h)
        let dim = o.isDimmed
        var width = 0
        for u in text.utf8 {
            width += (dim ? regular[fi].glyph(UInt32(u)) : bold[fi].glyph(UInt32(u)))?.advance ?? 0
        }
        let x0 = align > 0 ? r.maxX - width : r.x + (r.w - width) / 2
        let size = FontFiles.terminusSizes[fi]
        let top = r.y + (r.h - size) / 2
        var x = x0
        for u in text.utf8 {
            if dim {
                guard let g = regular[fi].glyph(UInt32(u)) else { continue }
                blit(g, regular[fi].rows, x: x, baseline: top + regular[fi].ascent, dotted: a.content.isStale, &f)
                x += g.advance
            } else {
                guard let g = bold[fi].glyph(UInt32(u)) else { continue }
                blit(g, bold[fi].rows, x: x, baseline: top + bold[fi].ascent, dotted: a.content.isStale, &f)
                x += g.advance
            }
        }
        let drawn = Rect(x: x0, y: top, w: width, h: size)
        lastTimeRect = drawn
        return drawn
    }

    // MARK: labels

    mutating func prepare(_ key: LabelKey) -> PreparedLine {
        if let hit = labels[key] { return hit }
        if labels.count > 256 { labels.removeAll(keepingCapacity: true) }
        let (text, size, language) = Self.text(of: key)
        let line = shape(text, size: size, language: language)
        labels[key] = line
        return line
    }

    /// The label as it fits `width`: as is when it fits; else (Terminus lines) one face smaller
    /// than 16 px, 12 px; else shortened at its logical end with "…" (for a right-to-left line
    /// that end is on the left). Titles are free text up to 64 characters: they must never run
    /// off the panel, half a letter cut by the edge.
    mutating func prepareFitted(_ key: LabelKey, width: Int) -> PreparedLine {
        let full = prepare(key)
        if full.width <= width { return full }
        let fk = FittedKey(key: key, width: width)
        if let hit = fitted[fk] { return hit }
        if fitted.count > 64 { fitted.removeAll(keepingCapacity: true) }
        let (text, size, language) = Self.text(of: key)
        var line = full
        if size > 12, case .terminus = full.font {
            line = shape(text, size: 12, language: language)
        }
        if line.width > width {
            let smallest = line.font == .unifont ? size : min(size, 12)
            var characters = Array(text)
            line = PreparedLine(scalars: [], font: line.font, width: 0, height: line.height, rtl: line.rtl)
            while !characters.isEmpty {
                characters.removeLast()
                while characters.last == " " { characters.removeLast() }
                let candidate = shape(String(characters) + "…", size: smallest, language: language)
                if candidate.width <= width { line = candidate; break }
            }
        }
        fitted[fk] = line
        return line
    }

    static func text(of key: LabelKey) -> (text: String, size: Int, language: String?) {
        // Localized labels align with their language; a title with its own text.
        switch key {
        case .word(let k, let l, let s): (Localization.string(k, language: l), s, l)
        case .cycle(let c, let n, let l, let s): (Localization.cycleLabel(cycle: c, of: n, language: l), s, l)
        case .cycleShort(let c, let n, let l, let s): (n.map { "\(c)/\($0)" } ?? "\(c)", s, l)
        case .title(let t, let s): (t, s, nil)
        }
    }

    /// Shapes and measures one line: Terminus when it has every glyph, else Unifont.
    mutating func shape(_ text: String, size: Int, language: String?) -> PreparedLine {
        let v = BidiText.visualLine(text)
        let rtl = language.map(Localization.isRightToLeft) ?? v.isRightToLeft
        let fi = FontFiles.terminusSizes.firstIndex(of: size) ?? 0
        let cps = v.scalars.map(\.value)
        let latin = cps.allSatisfy { regular[fi].has($0) }
        var width = 0
        if latin {
            for c in cps { width += regular[fi].glyph(c)?.advance ?? 0 }
        } else {
            for c in cps { width += unifont.glyph(c)?.advance ?? 8 }
        }
        return PreparedLine(scalars: cps, font: latin ? .terminus(fi) : .unifont, width: width,
                            height: latin ? size : 16, rtl: rtl)
    }

    /// Draws a prepared line vertically centred in its row.
    mutating func drawLine(_ l: PreparedLine, x: Int, rowTop: Int, rowHeight: Int, into f: inout Bitmap) {
        let top = rowTop + (rowHeight - l.height) / 2
        var pen = x
        switch l.font {
        case .terminus(let fi):
            for c in l.scalars {
                guard let g = regular[fi].glyph(c) else { continue }
                blit(g, regular[fi].rows, x: pen, baseline: top + regular[fi].ascent, dotted: false, &f)
                pen += g.advance
            }
        case .unifont:
            for c in l.scalars {
                guard let g = unifont.glyph(c) else { pen += 8; continue }
                blit(g, unifont.rows, x: pen, baseline: top + unifont.ascent, dotted: false, &f)
                pen += g.advance
            }
        }
    }

    // MARK: pixels

    /// Copies a glyph; `dotted` keeps only a checkerboard of its pixels (the stale look).
    func blit(_ g: Glyph, _ rows: [UInt32], x: Int, baseline: Int, dotted: Bool, _ f: inout Bitmap) {
        let left = x + g.left, top = baseline - g.top
        for row in 0..<g.height {
            var m = rows[g.rowStart + row]
            let y = top + row
            while m != 0 {
                let bit = m.trailingZeroBitCount
                m &= m - 1
                let px = left + bit
                if !dotted || (px + y) & 1 == 0 { f[px, y] = true }
            }
        }
    }

    func drawIcon(_ icon: Icon, x: Int, y: Int, scale: Int, dotted: Bool, _ f: inout Bitmap) {
        let rows = icon.rows
        for (ry, mask) in rows.enumerated() {
            var m = mask
            while m != 0 {
                let bit = m.trailingZeroBitCount
                m &= m - 1
                for dy in 0..<scale {
                    for dx in 0..<scale {
                        let px = x + bit * scale + dx, py = y + ry * scale + dy
                        if !dotted || (px + py) & 1 == 0 { f[px, py] = true }
                    }
                }
            }
        }
    }

    /// A one-pixel progress line: solid for the elapsed part, a dotted track for the rest.
    func drawBar(x: Int, y: Int, width: Int, done: Int, total: Int, _ f: inout Bitmap) {
        guard width > 0, total > 0 else { return }
        let filled = width * min(done, total) / total
        for i in 0..<width where i < filled || i % 4 == 0 { f[x + i, y] = true }
    }
}
