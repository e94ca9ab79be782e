/// A POSIX TZ string's rule for local time (`CET-1CEST,M3.5.0,M10.5.0/3`): the TZif footer
/// (RFC 8536 §3.3) for instants past a zone file's table, or `$TZ` when it names no file.
/// Pure: parsed from bytes, asked with an instant in whole seconds since the epoch.
public struct ZoneRule: Hashable, Sendable {
    /// Seconds east of UTC in standard time (POSIX writes the opposite sign: `CET-1` is +3600).
    public var standardOffset: Int32
    /// Daylight saving time, if the zone has it.
    public var daylight: Daylight?

    public struct Daylight: Hashable, Sendable {
        public var offset: Int32
        /// Given in standard local time.
        public var start: Change
        /// Given in daylight local time.
        public var end: Change

        public init(offset: Int32, start: Change, end: Change) {
            self.offset = offset
            self.start = start
            self.end = end
        }
    }

    /// A change: a day of the year and the local time of day (−167 h … 167 h, RFC 8536 §3.3.1).
    public struct Change: Hashable, Sendable {
        public var day: Day
        public var seconds: Int32

        public init(day: Day, seconds: Int32) {
            self.day = day
            self.seconds = seconds
        }
    }

    public enum Day: Hashable, Sendable {
        /// `Jn`: 1…365, February 29 never counted.
        case julian(Int)
        /// `n`: 0…365, February 29 counted in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: month 1…12, week 1…5 (5: the last), weekday 0 (Sunday) … 6.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    public init(standardOffset: Int32, daylight: Daylight? = nil) {
        self.standardOffset = standardOffset
        self.daylight = daylight
    }

    /// Parses a TZ string; nil when it is not one (names of 3 to 32 characters, hours bounded).
    public init?(parsing text: some Collection<UInt8>) {
        guard text.count <= 256 else { return nil }
        var p = Cursor(bytes: Array(text))
        guard p.name(), let std = p.offset(maxHours: 24) else { return nil }
        standardOffset = -std
        guard !p.atEnd else { daylight = nil; return }
        guard p.name() else { return nil }
        var dst = standardOffset + 3600
        if let b = p.peek, b != UInt8(ascii: ","), !p.atEnd {
            guard let o = p.offset(maxHours: 24) else { return nil }
            dst = -o
        }
        let start: Change, end: Change
        if p.atEnd {
            // No rule given: glibc's default, the United States' rule since 2007.
            start = Change(day: .monthWeekDay(month: 3, week: 2, weekday: 0), seconds: 7200)
            end = Change(day: .monthWeekDay(month: 11, week: 1, weekday: 0), seconds: 7200)
        } else {
            guard p.take(UInt8(ascii: ",")), let s = p.change(), p.take(UInt8(ascii: ",")), let e = p.change(), p.atEnd else { return nil }
            start = s
            end = e
        }
        daylight = Daylight(offset: dst, start: start, end: end)
    }

    /// The offset from UTC, in seconds, at `t` (seconds since the epoch).
    public func offset(atSecond t: Int64) -> Int32 {
        guard let d = daylight else { return standardOffset }
        // The year as standard local time has it; the rule's changes are that year's.
        let (year, _, _) = ISO8601.civil(fromDays: Self.floorDiv(t + Int64(standardOffset), 86_400))
        let start = Self.day(d.start.day, year: year) * 86_400 + Int64(d.start.seconds) - Int64(standardOffset)
        let end = Self.day(d.end.day, year: year) * 86_400 + Int64(d.end.seconds) - Int64(d.offset)
        let inDaylight = start < end ? (start <= t && t < end) : !(end <= t && t < start)
        return inDaylight ? d.offset : standardOffset
    }

    /// The day of a rule in `year`, as days since the epoch.
    static func day(_ day: Day, year: Int64) -> Int64 {
        let jan1 = ISO8601.daysFromCivil(year, 1, 1)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        switch day {
        case .julian(let n): return jan1 + Int64(n - 1) + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n): return jan1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = ISO8601.daysFromCivil(year, Int64(month), 1)
            // 1970-01-01 was a Thursday (4).
            let firstWeekday = Int((first % 7 + 7 + 4) % 7)
            var d = first + Int64((weekday - firstWeekday + 7) % 7) + Int64(week - 1) * 7
            let nextMonth = month == 12 ? ISO8601.daysFromCivil(year + 1, 1, 1) : ISO8601.daysFromCivil(year, Int64(month + 1), 1)
            while d >= nextMonth { d -= 7 }   // week 5 means the last such weekday
            return d
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

/// Reads a TZ string left to right; every field is bounded.
private struct Cursor {
    let bytes: [UInt8]
    var i = 0

    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[i] }

    mutating func take(_ b: UInt8) -> Bool {
        guard peek == b else { return false }
        i += 1
        return true
    }

    /// `CET` (3 or more letters) or `<+0330>` (letters, digits, + and -, in angle brackets).
    mutating func name() -> Bool {
        let begin = i
        if take(UInt8(ascii: "<")) {
            while let b = peek, b != UInt8(ascii: ">") {
                guard Self.isLetter(b) || Self.isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") else { return false }
                i += 1
            }
            let length = i - begin - 1
            return take(UInt8(ascii: ">")) && (3...32).contains(length)
        }
        while let b = peek, Self.isLetter(b) { i += 1 }
        return (3...32).contains(i - begin)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours up to `maxHours`.
    mutating func offset(maxHours: Int) -> Int32? {
        var sign: Int32 = 1
        if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
        guard let h = number(maxDigits: 3), h <= maxHours else { return nil }
        var s = h * 3600
        if take(UInt8(ascii: ":")) {
            guard let m = number(maxDigits: 2), m < 60 else { return nil }
            s += m * 60
            if take(UInt8(ascii: ":")) {
                guard let sec = number(maxDigits: 2), sec < 60 else { return nil }
                s += sec
            }
        }
        return sign * Int32(s)
    }

    /// `date[/time]`; the time defaults to 02:00.
    mutating func change() -> ZoneRule.Change? {
        let day: ZoneRule.Day
        if take(UInt8(ascii: "J")) {
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
            day = .julian(n)
        } else if take(UInt8(ascii: "M")) {
            guard let m = number(maxDigits: 2), (1...12).contains(m), take(UInt8(ascii: ".")),
                  let w = number(maxDigits: 1), (1...5).contains(w), take(UInt8(ascii: ".")),
                  let d = number(maxDigits: 1), d <= 6 else { return nil }
            day = .monthWeekDay(month: m, week: w, weekday: d)
        } else {
            guard let n = number(maxDigits: 3), n <= 365 else { return nil }
            day = .zeroBased(n)
        }
        var seconds: Int32 = 7200
        if take(UInt8(ascii: "/")) {
            guard let t = offset(maxHours: 167) else { return nil }
            seconds = t
        }
        return ZoneRule.Change(day: day, seconds: seconds)
    }

    mutating func number(maxDigits: Int) -> Int? {
        var v = 0, n = 0
        while let b = peek, Self.isDigit(b), n < maxDigits {
            v = v * 10 + Int(b - UInt8(ascii: "0"))
            n += 1
            i += 1
        }
        if let b = peek, Self.isDigit(b) { return nil }   // too many digits
        return n == 0 ? nil : v
    }

    static func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
    static func isDigit(_ b: UInt8) -> Bool { (48...57).contains(b) }
}
