import IsletFrame
import IsletCore

/// What to draw at one instant: 0, 1 or 2 activities in one presentation.
public struct Scene: Sendable, Hashable {
    public var activities: [Activity]
    public var presentation: Presentation
    public var now: Instant
    public init(activities: [Activity], presentation: Presentation, now: Instant) {
        self.activities = activities
        self.presentation = presentation
        self.now = now
    }
}

/// The presentation policy: one activity compact, two both minimal, an expand request shows
/// expanded for a few seconds, nothing left means the panel goes dark. When activities compete,
/// the most relevant are shown, most relevant first (leading), then the most recently started
/// (ActivityKit's relevance score): a session a person started by hand outranks what the home
/// pushes unless its start says otherwise.
public struct PresentationPolicy: Sendable, Equatable {
    public var expandedUntil: Instant?
    public var expandedTimer: String?
    /// Night mode with `night_idle = dark`: ended activities still lingering are not shown, so a
    /// panel with nothing running or paused is dark (docs/DISPLAY.md "Night").
    public var darkWhenIdle = false
    public init() {}

    public func scene(of activities: [Activity], now: Instant) -> Scene? {
        guard !activities.isEmpty else { return nil }
        if darkWhenIdle, activities.allSatisfy({ $0.ending != nil }) { return nil }
        if activities.count == 1 {
            let only = activities
            if let until = expandedUntil, now < until { return Scene(activities: only, presentation: .expanded, now: now) }
            return Scene(activities: only, presentation: .compact, now: now)
        }
        let ranked = Self.ranked(activities)
        if let until = expandedUntil, now < until,
           let a = activities.last(where: { $0.timerID == expandedTimer }) ?? ranked.first {
            return Scene(activities: [a], presentation: .expanded, now: now)
        }
        return Scene(activities: Array(ranked.prefix(2)), presentation: .minimal, now: now)
    }

    /// The activities in the order the pill gives them room: relevance, then the later start,
    /// then the timer id (so two displays of a group agree even on a tie).
    public static func ranked(_ activities: [Activity]) -> [Activity] {
        activities.sorted { a, b in
            if a.attributes.relevance != b.attributes.relevance { return a.attributes.relevance > b.attributes.relevance }
            if a.startedAt != b.startedAt { return a.startedAt > b.startedAt }
            return a.timerID < b.timerID
        }
    }

    /// When the policy itself changes what is shown (the end of an expand).
    public func nextDeadline(after now: Instant) -> Instant? {
        guard let until = expandedUntil, until > now else { return nil }
        return until
    }
}

extension Renderer {
    /// Draws a scene into a frame, clearing it first.
    public func render(_ scene: Scene, options: RenderOptions, into frame: inout Bitmap) {
        frame.clear()
        render(scene.activities, presentation: scene.presentation, now: scene.now, options: options, into: &frame)
    }
}
