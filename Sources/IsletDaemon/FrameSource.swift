import IsletCore
import IsletRender

/// How the pill shows its activities (the daemon's presentation policy picks one).
public enum PresentationKind: String, Sendable, Hashable, CaseIterable {
    case compact, minimal, expanded, lockscreen
}

/// What to draw at one instant: 0, 1 or 2 activities in one presentation.
public struct Scene: Sendable, Hashable {
    public var activities: [Activity]
    public var presentation: PresentationKind
    public var now: Instant
    public init(activities: [Activity], presentation: PresentationKind, now: Instant) {
        self.activities = activities
        self.presentation = presentation
        self.now = now
    }
}

/// The seam to the renderer: the daemon draws through this protocol only.
public protocol FrameRenderer {
    func render(_ scene: Scene, into frame: inout Bitmap)
}

/// A small built-in renderer: a phase icon and the shown time in a 3×5 digit font, scaled.
/// It stands in until the full renderer (fonts, bidi, localized labels) is wired in.
public struct BasicRenderer: FrameRenderer {
    public init() {}

    public func render(_ scene: Scene, into frame: inout Bitmap) {
        frame.clear()
        let w = frame.width, h = frame.height
        switch scene.presentation {
        case .compact, .expanded, .lockscreen:
            guard let a = scene.activities.last else { return }
            let scale = max(1, min((h - 4) / 5, scene.presentation == .compact ? 3 : 5))
            drawIcon(a, x: 2, y: (h - 5 * scale) / 2, size: 5 * scale, into: &frame)
            let text = Self.text(of: a, at: scene.now)
            let tw = Self.width(of: text, scale: scale)
            drawText(text, x: max(5 * scale + 4, w - tw - 2), y: (h - 5 * scale) / 2, scale: scale, into: &frame)
        case .minimal:
            let half = w / 2
            for (i, a) in scene.activities.suffix(2).enumerated() {
                let scale = max(1, min((h - 4) / 5, 2))
                drawIcon(a, x: i * half + 2, y: (h - 5 * scale) / 2, size: 5 * scale, into: &frame)
                drawText(Self.text(of: a, at: scene.now), x: i * half + 5 * scale + 4, y: (h - 5 * scale) / 2,
                         scale: scale, into: &frame)
            }
        }
    }

    static func text(of a: Activity, at now: Instant) -> String {
        switch a.phase {
        case .complete, .idle: ""
        case .cycleEnd: "0:00"
        case .running, .paused: ShownTime.format(ShownTime.seconds(of: a, at: now))
        }
    }

    static func width(of text: String, scale: Int) -> Int { text.count * 4 * scale - scale }

    // 3×5 glyphs, rows top to bottom, bit 2 is the left column.
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 7, 1, 7],
        "4": [5, 5, 7, 1, 1], "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 1, 1],
        "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7], ":": [0, 2, 0, 2, 0],
    ]

    func drawText(_ text: String, x: Int, y: Int, scale: Int, into f: inout Bitmap) {
        var cx = x
        for ch in text {
            if let g = Self.glyphs[ch] {
                for (row, bits) in g.enumerated() {
                    for col in 0..<3 where bits & (4 >> UInt8(col)) != 0 {
                        fill(x: cx + col * scale, y: y + row * scale, w: scale, h: scale, into: &f)
                    }
                }
            }
            cx += 4 * scale
        }
    }

    func fill(x: Int, y: Int, w: Int, h: Int, into f: inout Bitmap) {
        for yy in y..<(y + h) { for xx in x..<(x + w) { f[xx, yy] = true } }
    }

    /// Running: a solid triangle; paused: two bars; cycle end: a hollow square; complete: a check.
    func drawIcon(_ a: Activity, x: Int, y: Int, size s: Int, into f: inout Bitmap) {
        switch a.phase {
        case .running:
            for col in 0..<s {
                let reach = (s - col) / 2
                for row in (s / 2 - reach)...(s / 2 + reach) where row >= 0 && row < s { f[x + col, y + row] = true }
            }
        case .paused:
            let bar = max(1, s / 3)
            fill(x: x, y: y, w: bar, h: s, into: &f)
            fill(x: x + s - bar, y: y, w: bar, h: s, into: &f)
        case .cycleEnd:
            for i in 0..<s { f[x + i, y] = true; f[x + i, y + s - 1] = true; f[x, y + i] = true; f[x + s - 1, y + i] = true }
        case .complete:
            let t = max(1, s / 6)
            for i in 0..<(s / 3) { fill(x: x + i, y: y + s / 2 + i, w: t, h: t, into: &f) }
            for i in 0..<(2 * s / 3) { fill(x: x + s / 3 + i, y: y + s / 2 + s / 3 - i - 1, w: t, h: t, into: &f) }
        case .idle:
            break
        }
    }
}

/// The presentation policy: one activity compact, two both minimal, an expand request shows
/// expanded for a few seconds, nothing left means the panel goes dark.
public struct PresentationPolicy: Sendable {
    public var expandedUntil: Instant?
    public var expandedTimer: String?
    public init() {}

    public func scene(of activities: [Activity], now: Instant) -> Scene? {
        guard !activities.isEmpty else { return nil }
        if let until = expandedUntil, now < until,
           let a = activities.last(where: { $0.timerID == expandedTimer }) ?? activities.last {
            return Scene(activities: [a], presentation: .expanded, now: now)
        }
        if activities.count == 1 { return Scene(activities: activities, presentation: .compact, now: now) }
        return Scene(activities: Array(activities.suffix(2)), presentation: .minimal, now: now)
    }

    /// When the policy itself changes what is shown (the end of an expand).
    public func nextDeadline(after now: Instant) -> Instant? {
        guard let until = expandedUntil, until > now else { return nil }
        return until
    }
}

extension Bitmap {
    /// The frame moved by (dx, dy), pixels moved off an edge dropped: the pixel-shift burn-in care.
    public func shifted(dx: Int, dy: Int) -> Bitmap {
        guard dx != 0 || dy != 0 else { return self }
        var out = Bitmap(width: width, height: height)
        for y in 0..<height { for x in 0..<width where self[x, y] { out[x + dx, y + dy] = true } }
        return out
    }
}
