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
/// core needs nothing from Foundation's formatters and the text is the same everywhere.
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

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (1 to 9 fraction digits, truncated to milliseconds).
    public static func parse(_ text: String) -> Instant? {
        let u = Array(text.utf8)
        guard u.count >= 20, u[4] == 45, u[7] == 45, u[10] == 84 || u[10] == 116,
              u[13] == 58, u[16] == 58, u.last == 90 || u.last == 122 else { return nil }
        func num(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r { guard u[i] >= 48, u[i] <= 57 else { return nil }; v = v * 10 + Int64(u[i] - 48) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10),
              let h = num(11..<13), let mi = num(14..<16), let s = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60 else { return nil }
        var frac: Int64 = 0
        if u.count > 20 {
            guard u[19] == 46, u.count - 21 >= 1, u.count - 21 <= 9, let f = num(20..<(u.count - 1)) else { return nil }
            let digits = u.count - 21
            frac = f
            if digits < 3 { for _ in digits..<3 { frac *= 10 } } else { for _ in 3..<digits { frac /= 10 } }
        } else if u.count != 20 { return nil }
        let days = daysFromCivil(y, mo, d)
        guard civil(fromDays: days) == (y, mo, d) else { return nil }  // rejects 2026-02-30
        return Instant(milliseconds: ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + frac)
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
