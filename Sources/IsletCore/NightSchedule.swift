/// `[display] night = 22:30-07:00`: the minutes of the local day the night starts and ends.
/// The window may cross midnight; start and end differ.
public struct NightWindow: Hashable, Sendable, CustomStringConvertible {
    /// Minutes since local midnight, 0…1439.
    public let start: Int
    public let end: Int

    public init?(start: Int, end: Int) {
        guard (0..<1440).contains(start), (0..<1440).contains(end), start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// `HH:MM-HH:MM`, 24-hour clock, two digits each.
    public init?(parsing text: String) {
        let u = Array(text.utf8)
        guard u.count == 11, u[5] == UInt8(ascii: "-") else { return nil }
        func minutes(_ at: Int) -> Int? {
            guard u[at + 2] == UInt8(ascii: ":"),
                  [at, at + 1, at + 3, at + 4].allSatisfy({ (48...57).contains(u[$0]) }) else { return nil }
            let h = Int(u[at] - 48) * 10 + Int(u[at + 1] - 48), m = Int(u[at + 3] - 48) * 10 + Int(u[at + 4] - 48)
            return h < 24 && m < 60 ? h * 60 + m : nil
        }
        guard let s = minutes(0), let e = minutes(6) else { return nil }
        self.init(start: s, end: e)
    }

    public var description: String {
        func hm(_ m: Int) -> String { (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)" }
        return "\(hm(start))-\(hm(end))"
    }
}

/// When it is night, in the host's local time: pure, the instant passed in. Each local day
/// has a start and an end boundary at its wall-clock minutes. On a day the clocks spring
/// forward, a boundary whose wall time does not exist falls at the first instant after the
/// gap; on a day they fall back, a boundary whose wall time happens twice falls at the first
/// occurrence. A window wholly inside a gap is empty that day (both boundaries coincide).
public struct NightSchedule: Hashable, Sendable {
    public let window: NightWindow
    public let zone: LocalZone

    public init(window: NightWindow, zone: LocalZone) {
        self.window = window
        self.zone = zone
    }

    /// Whether `now` is in the night, and the next instant after `now` where that may change.
    public func state(at now: Instant) -> (isNight: Bool, nextBoundary: Instant) {
        let t = ZoneRule.floorDiv(now.milliseconds, 1000)
        let today = ZoneRule.floorDiv(t + Int64(zone.offset(atSecond: t)), 86_400)
        // Yesterday to the day after tomorrow hold the last boundary at or before now and the
        // first after it (every local day has both; offsets are under a day).
        var boundaries: [(at: Int64, local: Int64, isStart: Bool)] = []
        for day in (today - 1)...(today + 2) {
            for (minute, isStart) in [(window.start, true), (window.end, false)] {
                let local = day * 86_400 + Int64(minute) * 60
                boundaries.append((resolve(local: local), local, isStart))
            }
        }
        // Two boundaries at one instant (a window inside a gap): the later in local time wins.
        boundaries.sort { ($0.at, $0.local) < ($1.at, $1.local) }
        let nowMs = now.milliseconds
        let last = boundaries.last { $0.at * 1000 <= nowMs }
        let next = boundaries.first { $0.at * 1000 > nowMs }
        // Both exist by construction; the fallbacks only keep the function total.
        return (last?.isStart ?? false, Instant(milliseconds: (next?.at ?? t + 86_400) * 1000))
    }

    public func isNight(at now: Instant) -> Bool { state(at: now).isNight }
    public func nextBoundary(after now: Instant) -> Instant { state(at: now).nextBoundary }

    /// The first instant whose local wall time is `local` (seconds since the local epoch), or,
    /// when that wall time does not exist, the first instant after the gap.
    func resolve(local: Int64) -> Int64 {
        let before = zone.offset(atSecond: local - 86_400), after = zone.offset(atSecond: local + 86_400)
        let candidates = Set([before, after, zone.offset(atSecond: local)]).map { local - Int64($0) }
        if let first = candidates.filter({ local - $0 == Int64(zone.offset(atSecond: $0)) }).min() { return first }
        // A gap: the change lies between the two readings; find its instant, to the second.
        var lo = local - Int64(max(before, after)), hi = local - Int64(min(before, after))
        let later = zone.offset(atSecond: hi)
        guard zone.offset(atSecond: lo) != later else { return hi }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if zone.offset(atSecond: mid) == later { hi = mid } else { lo = mid }
        }
        return hi
    }
}
