/// A time zone as a TZif file holds it (RFC 8536: /usr/share/zoneinfo/<Zone>, /etc/localtime):
/// its transitions, the offset each one brings, and the footer's rule for instants past the
/// table. Parsed from bytes that may be hostile: every count is checked against what is there.
/// Leap-second records (the `right/` zones) are skipped: such a zone reads up to 27 s off.
public struct LocalZone: Hashable, Sendable {
    /// Transition instants, seconds since the epoch, strictly ascending.
    let transitions: [Int64]
    /// The offset (seconds east of UTC) in force from each transition on.
    let offsetAfter: [Int32]
    /// The offset before the first transition (time type 0).
    let initialOffset: Int32
    /// The footer's rule, for instants after the last transition (v2 and later).
    public let rule: ZoneRule?

    public static let utc = LocalZone(rule: ZoneRule(standardOffset: 0))

    /// The largest file taken; the biggest zones of tzdata are under 4 KiB.
    public static let maximumBytes = 64 * 1024

    /// A zone made of a TZ string alone (`$TZ` such as `EST5EDT,M3.2.0,M11.1.0`).
    public init(rule: ZoneRule) {
        transitions = []
        offsetAfter = []
        initialOffset = rule.standardOffset
        self.rule = rule
    }

    /// Parses a TZif file: version 1 (32-bit times) or 2 and later (64-bit times and the footer).
    public init(tzif bytes: [UInt8]) throws(ZoneFileError) {
        guard bytes.count <= Self.maximumBytes else { throw ZoneFileError("larger than \(Self.maximumBytes) bytes") }
        var r = Reader(bytes: bytes)
        let first = try r.header()
        guard first.version == 0 || first.version >= UInt8(ascii: "2") else { throw ZoneFileError("unknown version byte \(first.version)") }
        let body: Body
        var footer: ZoneRule?
        if first.version == 0 {
            body = try r.body(first, timeBytes: 4)
        } else {
            // The version 1 body comes first; readers of version 2 skip it (RFC 8536 §4).
            try r.skip(first.length(timeBytes: 4))
            let second = try r.header()
            body = try r.body(second, timeBytes: 8)
            footer = try r.footer()
        }
        transitions = body.times
        offsetAfter = body.indices.map { body.offsets[Int($0)] }
        initialOffset = body.offsets[0]
        rule = footer
    }

    /// The offset from UTC in seconds at `t`.
    public func utcOffset(at t: Instant) -> Int32 { offset(atSecond: ZoneRule.floorDiv(t.milliseconds, 1000)) }

    /// The offset from UTC in seconds at `t` (seconds since the epoch).
    public func offset(atSecond t: Int64) -> Int32 {
        guard let last = transitions.last, t >= transitions[0] else {
            // Before the table (or no table): time type 0, or the footer when there is no table.
            return transitions.isEmpty ? (rule?.offset(atSecond: t) ?? initialOffset) : initialOffset
        }
        if t >= last, let rule { return rule.offset(atSecond: t) }
        // The last transition at or before t.
        var lo = 0, hi = transitions.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if transitions[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return offsetAfter[lo]
    }
}

/// Why a zone file was not taken.
public struct ZoneFileError: Error, CustomStringConvertible, Sendable, Hashable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

private struct Header {
    var version: UInt8
    var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

    /// The body's size after this header (RFC 8536 §3.2); counts are bounded, so no overflow.
    func length(timeBytes: Int) -> Int {
        timecnt * timeBytes + timecnt + typecnt * 6 + charcnt + leapcnt * (timeBytes + 4) + isstdcnt + isutcnt
    }
}

private struct Body {
    var times: [Int64]
    var indices: [UInt8]
    var offsets: [Int32]
}

private struct Reader {
    let bytes: [UInt8]
    var at = 0

    mutating func need(_ n: Int) throws(ZoneFileError) {
        guard n >= 0, bytes.count - at >= n else { throw ZoneFileError("truncated at byte \(at) (\(n) more needed)") }
    }

    mutating func skip(_ n: Int) throws(ZoneFileError) {
        try need(n)
        at += n
    }

    mutating func u8() throws(ZoneFileError) -> UInt8 {
        try need(1)
        at += 1
        return bytes[at - 1]
    }

    mutating func big(_ width: Int) throws(ZoneFileError) -> UInt64 {
        try need(width)
        var v: UInt64 = 0
        for k in 0..<width { v = v << 8 | UInt64(bytes[at + k]) }
        at += width
        return v
    }

    mutating func header() throws(ZoneFileError) -> Header {
        try need(44)
        guard Array(bytes[at..<at + 4]) == Array("TZif".utf8) else { throw ZoneFileError("not a TZif file (no TZif magic at byte \(at))") }
        at += 4
        let version = try u8()
        at += 15
        var counts: [Int] = []
        for _ in 0..<6 {
            let c = try big(4)
            // A count larger than the file cannot be honest; this also bounds the arithmetic.
            guard c <= UInt64(LocalZone.maximumBytes) else { throw ZoneFileError("a count of \(c) is larger than the file") }
            counts.append(Int(c))
        }
        let h = Header(version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2],
                       timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
        guard h.typecnt >= 1 else { throw ZoneFileError("no local time types") }
        guard h.isutcnt == 0 || h.isutcnt == h.typecnt, h.isstdcnt == 0 || h.isstdcnt == h.typecnt else {
            throw ZoneFileError("the UT/standard indicator counts do not match the type count")
        }
        try need(h.length(timeBytes: version == 0 ? 4 : 8))
        return h
    }

    mutating func body(_ h: Header, timeBytes: Int) throws(ZoneFileError) -> Body {
        var times: [Int64] = []
        times.reserveCapacity(h.timecnt)
        for _ in 0..<h.timecnt {
            let raw = try big(timeBytes)
            let t = timeBytes == 4 ? Int64(Int32(truncatingIfNeeded: raw)) : Int64(bitPattern: raw)
            if let last = times.last, t <= last { throw ZoneFileError("transition times are not ascending") }
            times.append(t)
        }
        var indices: [UInt8] = []
        for _ in 0..<h.timecnt {
            let k = try u8()
            guard Int(k) < h.typecnt else { throw ZoneFileError("a transition names type \(k) of \(h.typecnt)") }
            indices.append(k)
        }
        var offsets: [Int32] = []
        for _ in 0..<h.typecnt {
            let utoff = Int32(truncatingIfNeeded: try big(4))
            // RFC 8536 §3.2: -89999 to 93599 (less than a day either way).
            guard (-89_999...93_599).contains(utoff) else { throw ZoneFileError("a UT offset of \(utoff) s is out of range") }
            let isdst = try u8(), index = try u8()
            guard isdst <= 1, Int(index) < h.charcnt else { throw ZoneFileError("a local time type is malformed") }
            offsets.append(utoff)
        }
        try skip(h.charcnt + h.leapcnt * (timeBytes + 4) + h.isstdcnt + h.isutcnt)
        return Body(times: times, indices: indices, offsets: offsets)
    }

    /// `\n<TZ string>\n`; an empty string means no rule past the table.
    mutating func footer() throws(ZoneFileError) -> ZoneRule? {
        guard try u8() == 0x0A else { throw ZoneFileError("the footer does not start with a newline") }
        guard let end = bytes[at...].firstIndex(of: 0x0A), end - at <= 256 else { throw ZoneFileError("the footer has no closing newline within 256 bytes") }
        let text = bytes[at..<end]
        at = end + 1
        if text.isEmpty { return nil }
        guard let rule = ZoneRule(parsing: text) else { throw ZoneFileError("the footer \"\(String(decoding: text, as: UTF8.self))\" is not a TZ string") }
        return rule
    }
}
