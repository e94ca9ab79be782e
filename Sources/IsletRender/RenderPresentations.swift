import IsletFrame
@preconcurrency import CFreeType
import IsletCore
import IsletIcons

/// The four presentations and their parts (icon, progress bar, info row, cycle line).
extension RenderState {
    // MARK: presentations

    /// The icon the activity shows now: its state's (paused, cycle end, complete), else its own
    /// (the one its start named or sent), else its kind's.
    mutating func icon(for a: Activity) -> IconImage {
        let kinds: Icon = switch a.attributes.kind {
        case .countdown: .meditation
        case .stopwatch: .stopwatch
        case .until: .bell
        }
        switch a.content.display {
        case .paused: return Icon.pause.image
        case .cycleEnd: return Icon.cycleEnd.image
        case .complete: return Icon.complete.image
        case .running, .idle, .tracking: break
        }
        switch a.attributes.icon {
        case nil: return kinds.image
        case .named(let name)?: return (try? Icon(name: name))?.image ?? kinds.image
        case .custom(let base64)?: return customIcon(base64) ?? kinds.image
        }
    }

    /// A custom icon, decoded the first time it is drawn and kept (the daemon checked it when the
    /// start was taken; one that does not decode shows the kind's icon). A steady tick finds it in
    /// the cache without allocating.
    mutating func customIcon(_ base64: String) -> IconImage? {
        if let hit = customIcons[base64] { return hit }
        // One that does not decode (a peer's record is not checked like a request) is kept as
        // nil too: it is not decoded again on every frame.
        let image = try? CustomIcon.decode(base64: base64)
        // Bounded: at most as many as activities can exist, and a forgotten one is cheap to decode again.
        if customIcons.count >= Self.maximumCustomIcons { customIcons.removeAll(keepingCapacity: true) }
        customIcons[base64] = .some(image)
        return image
    }

    static let maximumCustomIcons = 32

    /// The drawn size for an icon in a region `w`×`h`: large from `largeFrom` (height, width)
    /// up, small where a 16 px icon would fill a short panel edge to edge, else medium.
    static func iconSize(w: Int, h: Int, largeFrom: (h: Int, w: Int)) -> IconSize {
        if h >= largeFrom.h && w >= largeFrom.w { return .large }
        return h < 24 ? .small : .medium
    }

    /// Elapsed share of the cycle as (done, total) whole seconds, for countdowns that run or
    /// are paused; full at cycle end. Based on the shown second, so it moves with the digits.
    static func progress(_ a: Activity, _ now: Instant) -> (done: Int, total: Int)? {
        if case .tracking = a.content.display {
            // The source's share, in thousandths (a bar is at most a few hundred pixels wide).
            return a.content.pushed?.progress.map { (Int(($0 * 1000).rounded()), 1000) }
        }
        guard case .countdown(let cycle, _) = a.attributes.kind else { return nil }
        let total = Int((cycle.wholeMilliseconds + 999) / 1000)
        guard total > 0 else { return nil }
        switch a.content.display {
        case .running, .paused:
            let shown = min(total, ShownTime.seconds(of: a, at: now))
            return (total - shown, total)
        case .cycleEnd: return (total, total)
        case .complete, .idle, .tracking: return nil
        }
    }

    /// align: -1 leading (left), 0 centred, 1 trailing (right).
    mutating func minimal(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, align: Int, _ f: inout Bitmap) {
        let size = Self.iconSize(w: r.w, h: r.h, largeFrom: (40, 40))
        let s = size.pixels
        let margin = r.w >= 96 ? 2 : 1
        let x = align < 0 ? r.x + margin : align > 0 ? r.maxX - margin - s : r.x + (r.w - s) / 2
        let bar = o.showsProgress && !o.isDimmed && r.h - s >= 6 ? Self.progress(a, now) : nil
        let y = r.y + (r.h - s - (bar == nil ? 0 : 4)) / 2
        drawIcon(icon(for: a), size: size, x: x, y: y, dotted: a.content.isStale, &f)
        if let p = bar { drawBar(x: x, y: y + s + 3, width: s, done: p.done, total: p.total, &f) }
    }

    mutating func compact(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, _ f: inout Bitmap) {
        let margin = r.w >= 96 ? 2 : 1
        let bar = o.showsProgress && !o.isDimmed && r.h >= 32 ? Self.progress(a, now) : nil
        // A countdown keeps the bar's rows in every state, so its digits keep one size.
        let reserves = o.showsProgress && !o.isDimmed && r.h >= 32 && !a.attributes.kind.isStopwatch
        let usable = r.h - (reserves ? 3 : 0)
        // The time comes first: when even the smallest face cannot sit beside the icon (a cycle
        // of 10 h or more, h:mm:ss with two hour digits, on a 64 px wide panel), the icon gives
        // way and the digits take the width instead of running into it.
        // Before it goes, the icon steps down to its small drawing if that leaves the digits room.
        let preferred = Self.iconSize(w: r.w, h: r.h, largeFrom: (48, 96))
        let needed = Self.terminusCellWidths[0] * Self.timeChars(a, now)
        func fits(_ size: IconSize) -> Bool { r.maxX - margin - (r.x + margin + size.pixels + 3) >= needed }
        let size: IconSize? = fits(preferred) ? preferred
            : preferred > .medium && fits(.medium) ? .medium : fits(.small) ? .small : nil
        let showsIcon = size != nil
        let s = size?.pixels ?? 0
        if let size {
            drawIcon(icon(for: a), size: size, x: r.x + margin, y: r.y + (usable - s) / 2, dotted: a.content.isStale, &f)
        }
        let timeLeft = showsIcon ? r.x + margin + s + 3 : r.x + margin
        let timeRect = Rect(x: timeLeft, y: r.y, w: r.maxX - margin - timeLeft, h: usable)
        let drawn = drawFigure(a, Self.figure(a), now, o, timeRect, align: 1, &f)
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
        if a.attributes.kind.isUntil {
            untilRow(a, Rect(x: r.x, y: r.maxY - row, w: r.w, h: row), &f)
        } else {
            infoRow(a, Rect(x: r.x, y: r.maxY - row, w: r.w, h: row), namesKind: true, &f)
        }
    }

    mutating func lockscreen(_ a: Activity, _ now: Instant, _ o: RenderOptions, _ r: Rect, _ f: inout Bitmap) {
        guard r.h >= 64, r.w >= 64 else { return compact(a, now, o, r, &f) }
        let row = 16
        let tall = r.h >= 96
        let iconSize = tall ? IconSize.large.pixels : 0
        let fixed = iconSize + row + (tall ? 2 * row : row)
        let timeMax = min(32, r.h - fixed)
        let chars = Self.timeChars(a, now)
        let face = Self.timeFaceIndex(chars: chars, maxWidth: r.w - 4, maxHeight: timeMax)
        let timeH = FontFiles.terminusSizes[face]
        let items = tall ? 5 : 3
        let gap = max(0, (r.h - fixed - timeH) / (items + 1))
        var y = r.y + gap
        if tall {
            drawIcon(icon(for: a), size: .large, x: r.x + (r.w - iconSize) / 2, y: y, dotted: a.content.isStale, &f)
            y += iconSize + gap
        }
        let titleSize = r.w >= 128 ? 16 : 12
        // No title: a countdown or stopwatch names its kind; an until activity has no such word.
        let titleKey: LabelKey? = a.attributes.title.map { .title($0, size: titleSize) } ?? (a.attributes.kind.isUntil ? nil
            : .word(a.attributes.kind.isStopwatch ? .stopwatch : .meditation, language: a.attributes.language, size: titleSize))
        if let key = titleKey {
            let title = prepareFitted(key, width: r.w - 4)
            drawLine(title, x: startX(title, Rect(x: r.x + 2, y: y, w: r.w - 4, h: row)), rowTop: y, rowHeight: row, into: &f)
        }
        y += row + gap
        drawFigure(a, Self.figure(a), now, o, Rect(x: r.x, y: y, w: r.w, h: timeH), align: 0, &f)
        y += timeH + gap
        if tall {
            let rowRect = Rect(x: r.x + 2, y: y, w: r.w - 4, h: row)
            if a.attributes.kind.isUntil, let text = Self.statusText(a) {
                // Where a countdown shows its cycle: the source's words.
                let c = prepareFitted(.title(text, size: 12), width: rowRect.w)
                drawLine(c, x: startX(c, rowRect), rowTop: y, rowHeight: row, into: &f)
            } else if let c = cycleLine(a, width: rowRect.w) {
                drawLine(c, x: startX(c, rowRect), rowTop: y, rowHeight: row, into: &f)
            }
            y += row + gap
            let st = prepare(.word(Self.stateKey(a), language: a.attributes.language, size: 12))
            if st.width <= rowRect.w {
                drawLine(st, x: startX(st, Rect(x: rowRect.x, y: y, w: rowRect.w, h: row)), rowTop: y, rowHeight: row, into: &f)
            }
        } else if a.attributes.kind.isUntil {
            untilRow(a, Rect(x: r.x, y: y, w: r.w, h: row), &f)
        } else {
            infoRow(a, Rect(x: r.x, y: y, w: r.w, h: row), namesKind: false, &f)
        }
    }

    static func stateKey(_ a: Activity) -> Localization.Key {
        switch a.content.display {
        case .paused: .paused
        case .cycleEnd: .cycleComplete
        case .complete: .complete
        case .running, .idle, .tracking: .running
        }
    }

    /// The cycle label that fits `width`: "Cycle 2 of 3", else the short "2/3"; none for a
    /// stopwatch.
    mutating func cycleLine(_ a: Activity, width: Int) -> PreparedLine? {
        guard case .countdown = a.attributes.kind else { return nil }
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

}
