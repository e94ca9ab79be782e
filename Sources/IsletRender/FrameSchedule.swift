import IsletCore
import IsletFrame

/// When the picture can next change: the loop sleeps until then and no longer. Pure: time and
/// the drawing are passed in.
///
/// A compact, expanded or lock-screen scene shows the time, so every change of the shown second
/// counts. Minimal icons show no digits: there a new second matters only if it moves a pixel
/// (a countdown's progress bar, one pixel in tens of seconds), so the frames at the coming
/// second boundaries are drawn and the first that differs is found by bisection (the bar only
/// grows between two state events). Activities the scene does not show wake the loop only for
/// their state events (cycle end, completion, dismissal…), which change what is shown.
public enum FrameSchedule {
    public static func nextChange(activities: [Activity], policy: PresentationPolicy, now: Instant,
                                  draw: (Scene) -> Bitmap) -> Instant? {
        var events: Instant? = policy.nextDeadline(after: now)
        func consider(_ t: Instant?, into best: inout Instant?) { if let t { best = best.map { min($0, t) } ?? t } }
        for a in activities { consider(TimerMachine.nextEvent(of: a)?.at, into: &events) }
        guard let scene = policy.scene(of: activities, now: now) else { return events }
        var seconds: Instant?
        for a in scene.activities {
            if let d = ShownTime.nextDeadline(of: a, after: now) {
                if case .event = d.reason { consider(d.at, into: &events) } else { consider(d.at, into: &seconds) }
            }
        }
        guard let first = seconds, events.map({ first < $0 }) ?? true else { return events }
        guard scene.presentation == .minimal else { return first }
        // Second boundaries first, first + 1 s, … before the next event (or within 8 h).
        let limit = events ?? now + .seconds(8 * 3600)
        let count = Int((limit - first).wholeMilliseconds / 1000) + 1
        let before = draw(scene)
        func differs(_ k: Int) -> Bool {
            var s = scene
            s.now = first + .seconds(Int64(k))
            return draw(s) != before
        }
        guard count > 0, differs(count - 1) else { return events }
        var lo = 0, hi = count - 1   // the answer is in lo...hi; hi differs
        while lo < hi {
            let mid = (lo + hi) / 2
            if differs(mid) { hi = mid } else { lo = mid + 1 }
        }
        return first + .seconds(Int64(lo))
    }
}
