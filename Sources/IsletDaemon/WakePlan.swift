import IsletRender
import IsletCore

/// The scheduler's one decision on the timeline: when the next visible change of the
/// activities is due. Pure, so it is tested with injected time. Nothing periodic is added here:
/// a paused, idle or dismissed daemon gets nil (sleep until an event).
public enum WakePlan {
    /// The earliest instant an activity's shown state changes or the policy's presentation
    /// does (an expand ends), or nil for none.
    public static func next(activities: [Activity], policy: PresentationPolicy, now: Instant) -> Instant? {
        var best: Instant?
        func consider(_ t: Instant?) { if let t { best = best.map { min($0, t) } ?? t } }
        for a in activities { consider(ShownTime.nextDeadline(of: a, after: now)?.at) }
        consider(policy.nextDeadline(after: now))
        return best
    }
}
