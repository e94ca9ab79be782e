import IsletSystem
import IsletCore
import Synchronization

/// The daemon's timeline: the wall clock read once at start plus the CLOCK_BOOTTIME time since,
/// so a wall-clock step while the daemon runs never moves a running timer, while the instants it
/// persists still mean wall time across a restart or a reboot. Kept in nanoseconds (instants are
/// whole milliseconds), so the timeline meets the wall clock to the nanosecond at start and a
/// deadline mapped back to CLOCK_MONOTONIC is exact. Shared (behind a lock) with the store's
/// writer thread, which stamps each save.
public final class HostClock: Sendable {
    private struct Base {
        /// Timeline nanoseconds minus CLOCK_BOOTTIME nanoseconds.
        var offsetNs: Int64
        /// While set, the timeline does not go below it: after a reboot whose wall clock is behind
        /// the last save, time stands at the save until the clock passes it, so nothing is computed
        /// from a clock known to be wrong (a pause freezes the saved value, a countdown never grows).
        var floor: Instant?
    }
    private let source: any LoopClock
    private let base: Mutex<Base>

    public init(_ source: any LoopClock) {
        self.source = source
        base = Mutex(Base(offsetNs: Self.difference(source.wallNanoseconds(), source.bootNanoseconds())))
    }

    /// Now on the timeline.
    public func now() -> Instant {
        let t = rawNow()
        if let floor = base.withLock({ $0.floor }), t < floor { return floor }
        return t
    }

    /// The timeline without the floor: where it really is, to see when it passes the floor.
    public func rawNow() -> Instant {
        let offset = base.withLock { $0.offsetNs }
        return Self.instant(boot: source.bootNanoseconds(), offset: offset)
    }

    public func setFloor(_ f: Instant?) { base.withLock { $0.floor = f } }

    /// What a save records of the timeline, read under one lock: the instant, CLOCK_BOOTTIME,
    /// and the exact offset between the two (nil while a floor holds the timeline: the offset
    /// then describes a clock known to be wrong, and a restart should start from the save).
    public func stamp() -> TimelineStamp {
        let boot = source.bootNanoseconds()
        return base.withLock { b in
            let raw = Self.instant(boot: boot, offset: b.offsetNs)
            let floored = b.floor.map { raw < $0 } ?? false
            return TimelineStamp(at: floored ? b.floor ?? raw : raw, bootNanoseconds: boot,
                                 offsetNanoseconds: floored ? nil : b.offsetNs)
        }
    }

    /// Continues the timeline of an earlier process of this boot from its last save. With the
    /// saved offset the timeline goes on to the nanosecond (the ticks keep their phase across
    /// a restart); a save without one (an older file, or a floored timeline) continues from its
    /// instant plus the boot clock's time since, to the millisecond. False when the boot clock
    /// is behind the save, which in one boot means the save is not what it claims.
    @discardableResult
    public func continueTimeline(after saved: TimelineStamp) -> Bool { refusal(toContinue: saved) == nil }

    /// `continueTimeline`, saying why not: nil when the timeline continues from the save; else
    /// the reason, and the timeline is left as it was. All arithmetic on the saved values is
    /// checked: a save whose figures overflow, or that would put now outside the instants a
    /// timer can hold, is refused, never trapped on.
    public func refusal(toContinue saved: TimelineStamp) -> String? {
        let boot = source.bootNanoseconds()
        guard boot >= saved.bootNanoseconds else { return "the boot clock (\(boot) ns) is behind the save's boot_ns (\(saved.bootNanoseconds))" }
        let offset: Int64
        if let o = saved.offsetNanoseconds { offset = o } else {
            let ns = saved.at.milliseconds.multipliedReportingOverflow(by: 1_000_000)
            let o = ns.partialValue.subtractingReportingOverflow(saved.bootNanoseconds)
            guard !ns.overflow, !o.overflow else { return "saved_at \(saved.at) minus boot_ns \(saved.bootNanoseconds) overflows" }
            offset = o.partialValue
        }
        let now = boot.addingReportingOverflow(offset)
        guard !now.overflow else { return "timeline_offset_ns \(offset) overflows the timeline" }
        let t = Instant(milliseconds: Self.floorDiv(now.partialValue, 1_000_000))
        guard Instant.validRange.contains(t) else {
            return "timeline_offset_ns \(offset) continues the timeline to \(t), outside \(Instant.validRangeRule)"
        }
        base.withLock { $0.offsetNs = offset }
        return nil
    }

    /// The CLOCK_MONOTONIC instant at which the real timeline (the floor aside) reaches `t`.
    /// A deadline armed there never fires early.
    public func monotonicInstant(of t: Instant) -> MonotonicInstant {
        let offset = base.withLock { $0.offsetNs }
        // Checked: an instant past the nanosecond clock's end is never reached (the clock's end);
        // one before boot has passed (boot itself).
        let ns = t.milliseconds.multipliedReportingOverflow(by: 1_000_000)
        if ns.overflow { return t.milliseconds > 0 ? MonotonicInstant(nanoseconds: .max) : source.monotonic(atBootNanoseconds: 0) }
        let boot = ns.partialValue.subtractingReportingOverflow(offset)
        if boot.overflow { return offset < 0 ? MonotonicInstant(nanoseconds: .max) : source.monotonic(atBootNanoseconds: 0) }
        return source.monotonic(atBootNanoseconds: max(0, boot.partialValue))
    }

    /// Moves the base to the current wall clock. Only done while the timeline is known to be
    /// wrong: the clock was behind the last save at start and has since been corrected.
    public func rebase() {
        let offset = Self.difference(source.wallNanoseconds(), source.bootNanoseconds())
        base.withLock { $0.offsetNs = offset }
    }

    /// Rounds toward minus infinity; never overflows (b > 0).
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }

    /// The timeline's instant at CLOCK_BOOTTIME `boot`, saturating instead of trapping.
    static func instant(boot: Int64, offset: Int64) -> Instant {
        let r = boot.addingReportingOverflow(offset)
        let ns = r.overflow ? (offset > 0 ? Int64.max : Int64.min) : r.partialValue
        return Instant(milliseconds: floorDiv(ns, 1_000_000))
    }

    static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let r = a.subtractingReportingOverflow(b)
        return r.overflow ? (b < 0 ? Int64.max : Int64.min) : r.partialValue
    }
}

/// The timeline as a save records it (HostClock.stamp).
public struct TimelineStamp: Sendable, Equatable {
    /// The timeline's instant (the floor while one holds).
    public var at: Instant
    /// CLOCK_BOOTTIME at the stamp.
    public var bootNanoseconds: Int64
    /// Timeline minus CLOCK_BOOTTIME, in nanoseconds; nil when the save cannot vouch for it.
    public var offsetNanoseconds: Int64?

    public init(at: Instant, bootNanoseconds: Int64, offsetNanoseconds: Int64?) {
        self.at = at
        self.bootNanoseconds = bootNanoseconds
        self.offsetNanoseconds = offsetNanoseconds
    }
}
