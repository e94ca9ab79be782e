/// A point on the host's timeline, in whole milliseconds since 1970-01-01T00:00:00Z.
///
/// The core never reads a clock: the host passes `now` in. The daemon's timeline is the wall
/// clock sampled once at start-up and advanced by the monotonic clock, so a wall-clock step
/// while running never moves a timer, while persisted instants still mean wall time across a
/// reboot. Millisecond resolution keeps arithmetic exact and the JSON form loss-free.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static let epoch = Instant(milliseconds: 0)

    public static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }

    public static func + (a: Instant, d: Duration) -> Instant {
        Instant(milliseconds: a.milliseconds &+ d.wholeMilliseconds)
    }

    public static func - (a: Instant, d: Duration) -> Instant {
        Instant(milliseconds: a.milliseconds &- d.wholeMilliseconds)
    }

    public static func - (a: Instant, b: Instant) -> Duration {
        .milliseconds(a.milliseconds &- b.milliseconds)
    }

    public var description: String { ISO8601.format(self) }
}

extension Duration {
    /// The duration truncated toward zero to whole milliseconds (the core's resolution).
    public var wholeMilliseconds: Int64 {
        let c = components
        return c.seconds &* 1000 &+ c.attoseconds / 1_000_000_000_000_000
    }

    /// Seconds as a number, fractional only where the duration is not whole: the JSON form.
    public var jsonSeconds: Double { Double(wholeMilliseconds) / 1000 }

    /// The inverse of `jsonSeconds`, rounded to the core's millisecond resolution.
    /// Returns nil for values that are not finite or do not fit.
    public static func jsonSeconds(_ s: Double) -> Duration? {
        guard s.isFinite, abs(s) < 1e12 else { return nil }
        // Round half away from zero by hand: IsletCore links nothing, not even libm.
        let scaled = s * 1000
        return .milliseconds(Int64(scaled >= 0 ? scaled + 0.5 : scaled - 0.5))
    }
}

/// ISO-8601 in UTC with milliseconds (`2026-11-29T21:53:07.250Z`), written by hand so the
/// core needs nothing from Foundation's formatters and the text is the same everywhere; read
/// in every form RFC 3339 allows.
public enum ISO8601 {
    public static func format(_ t: Instant) -> String {
        let ms = t.milliseconds
        var days = ms / 86_400_000
        var rem = ms % 86_400_000
        if rem < 0 { rem += 86_400_000; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        let h = rem / 3_600_000, mi = (rem / 60_000) % 60, s = (rem / 1000) % 60, f = rem % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    /// Parses an RFC 3339 (section 5.6) date-time: `YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)`,
    /// `T` and `Z` in either case (the RFC's note), any number of fraction digits, converted to
    /// UTC. Refused: a missing second or offset, a space for `T`, a leap second (`:60`: the
    /// timeline is POSIX time, which has none), a day the month lacks, an offset past 23:59.
    /// A fraction finer than a millisecond rounds up, so an instant a nanosecond past a bound
    /// (the 24 h horizon) stays past it at the core's resolution.
    public static func parse(_ text: String) -> Instant? {
        let u = Array(text.utf8)
        func digit(_ i: Int) -> Int64? {
            guard i < u.count, u[i] >= 48, u[i] <= 57 else { return nil }
            return Int64(u[i] - 48)
        }
        func num(_ at: Int, _ n: Int) -> Int64? {
            var v: Int64 = 0
            for i in at..<(at + n) { guard let d = digit(i) else { return nil }; v = v * 10 + d }
            return v
        }
        func byte(_ i: Int) -> UInt8? { i < u.count ? u[i] : nil }
        guard byte(4) == 45, byte(7) == 45, byte(10) == 84 || byte(10) == 116, byte(13) == 58, byte(16) == 58,
              let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2),
              let h = num(11, 2), let mi = num(14, 2), let s = num(17, 2),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60 else { return nil }
        var i = 19
        var frac: Int64 = 0
        if byte(i) == 46 {
            i += 1
            let first = i
            var finer = false
            while let dg = digit(i) {
                let place = i - first
                if place < 3 { frac = frac * 10 + dg } else if dg != 0 { finer = true }
                i += 1
            }
            guard i > first else { return nil }
            for _ in min(i - first, 3)..<3 { frac *= 10 }
            if finer { frac += 1 }
        }
        var offsetMinutes: Int64 = 0
        switch byte(i) {
        case 90?, 122?:
            i += 1
        case let sign? where sign == 43 || sign == 45:
            guard byte(i + 3) == 58, let oh = num(i + 1, 2), let om = num(i + 4, 2), oh < 24, om < 60 else { return nil }
            offsetMinutes = (oh * 60 + om) * (sign == 43 ? 1 : -1)
            i += 6
        default:
            return nil
        }
        guard i == u.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        guard civil(fromDays: days) == (y, mo, d) else { return nil }  // rejects 2026-02-30
        // Local time minus its offset is UTC: 14:05+01:00 is 13:05Z.
        return Instant(milliseconds: (((days * 24 + h) * 60 + mi) - offsetMinutes) * 60_000 + s * 1000 + frac)
    }

    private static func pad(_ v: Int64, _ w: Int) -> String {
        let s = String(v)
        return s.count >= w ? s : String(repeating: "0", count: w - s.count) + s
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
