import IsletRender
import IsletCore

/// The scheduler's one decision: how long poll(2) may sleep. Pure, so it is tested with
/// injected time. Nothing periodic is added here: a paused, idle or dismissed daemon gets -1
/// (sleep until an event) unless a watchdog, pixel shift or panel retry asks otherwise.
public enum WakePlan {
    /// Milliseconds until the earliest deadline (at least 0), or -1 for none.
    /// Timeline deadlines get +1 ms: poll's timeout is truncated, and waking a hair before
    /// a due instant would only cost a second wake-up.
    public static func timeout(activities: [Activity], policy: PresentationPolicy, clockBehindUntil: Instant?,
                               now: Instant, monotonicDeadlines: [Int64?], monotonicNow: Int64) -> Int32 {
        var wait: Int64?
        func consider(_ ms: Int64?) { if let ms { wait = min(wait ?? Int64.max, max(0, ms)) } }
        for a in activities {
            consider(ShownTime.nextDeadline(of: a, after: now).map { ($0.at - now).wholeMilliseconds + 1 })
        }
        consider(policy.nextDeadline(after: now).map { ($0 - now).wholeMilliseconds + 1 })
        consider(clockBehindUntil.map { ($0 - now).wholeMilliseconds + 1 })
        for d in monotonicDeadlines { consider(d.map { $0 - monotonicNow }) }
        guard let w = wait else { return -1 }
        return Int32(clamping: w)
    }
}
