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
/// expanded for a few seconds, nothing left means the panel goes dark.
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

extension Renderer {
    /// Draws a scene into a frame, clearing it first.
    public func render(_ scene: Scene, options: RenderOptions, into frame: inout Bitmap) {
        frame.clear()
        render(scene.activities, presentation: scene.presentation, now: scene.now, options: options, into: &frame)
    }
}
