import IsletFrame
@preconcurrency import CFreeType
import IsletCore
import IsletIcons

/// The time's digits, the labels (shaped once, cached) and the pixels they are drawn with.
extension RenderState {
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
        return drawASCII(ShownTime.format(seconds), chars: Self.timeChars(a, now), a, o, r, align: align, &f)
    }

    /// A whole number and one suffix byte ("57%") in the time's face: an until activity's progress.
    @discardableResult
    mutating func drawDigits(_ n: Int, suffix: UInt8, _ a: Activity, _ o: RenderOptions, _ r: Rect, align: Int, _ f: inout Bitmap) -> Rect {
        // A small string (at most 15 bytes) lives inline: no allocation on a tick.
        let text = String(n) + String(UnicodeScalar(suffix))
        return drawASCII(text, chars: 4, a, o, r, align: align, &f)
    }

    /// ASCII in the bold (dimmed: regular) Terminus face that fits `chars` cells in `r`.
    private mutating func drawASCII(_ text: String, chars: Int, _ a: Activity, _ o: RenderOptions, _ r: Rect, align: Int, _ f: inout Bitmap) -> Rect {
        let fi = Self.timeFaceIndex(chars: chars, maxWidth: r.w, maxHeight: r.h)
        let dim = o.isDimmed
        warmTimeGlyphs(fi, dim: dim)
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

    /// Renders every glyph a time can show ("0"–"9", ":") the first time a face draws a time,
    /// so a later tick never waits for FreeType (a first glyph from a gzip-compressed PCF can
    /// cost milliseconds: the stream is inflated again up to its offset). Issue 12, tick lateness.
    mutating func warmTimeGlyphs(_ fi: Int, dim: Bool) {
        let bit = UInt32(1) << UInt32(fi * 2 + (dim ? 1 : 0))
        guard warmedTimeFaces & bit == 0 else { return }
        warmedTimeFaces |= bit
        for u in "0123456789:%".utf8 {
            if dim { _ = regular[fi].glyph(UInt32(u)) } else { _ = bold[fi].glyph(UInt32(u)) }
        }
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
            width = withUnifont { u in cps.reduce(0) { $0 + (u.glyph($1)?.advance ?? 8) } } ?? 8 * cps.count
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
            guard var u = unifontFace ?? withUnifont({ $0 }) else { return }
            unifontFace = nil
            for c in l.scalars {
                guard let g = u.glyph(c) else { pen += 8; continue }
                blit(g, u.rows, x: pen, baseline: top + u.ascent, dotted: false, &f)
                pen += g.advance
            }
            unifontFace = u
        }
    }

    // MARK: pixels

    /// Copies a glyph; `dotted` keeps only a checkerboard of its pixels (the stale look).
    func blit(_ g: Glyph, _ rows: [UInt32], x: Int, baseline: Int, dotted: Bool, _ f: inout Bitmap) {
        f.light(rows: rows[g.rowStart..<(g.rowStart + g.height)], x: x + g.left, y: baseline - g.top, dotted: dotted)
    }

    /// Draws `icon` as drawn for `size` (never scaled), its top-left corner at (x, y).
    func drawIcon(_ icon: IconImage, size: IconSize, x: Int, y: Int, dotted: Bool, _ f: inout Bitmap) {
        f.draw(icon, size: size, x: x, y: y, dotted: dotted)
    }

    /// A one-pixel progress line: solid for the elapsed part, a dotted track for the rest.
    func drawBar(x: Int, y: Int, width: Int, done: Int, total: Int, _ f: inout Bitmap) {
        guard width > 0, total > 0 else { return }
        let filled = width * min(done, total) / total
        for i in 0..<width where i < filled || i % 4 == 0 { f[x + i, y] = true }
    }
}
