import Testing
import IsletCore
import IsletTestSupport

/// The TZif reader and the TZ-string rule against the system's tzdata (Debian's `tzdata`):
/// the expected offsets are the transitions `zdump -v -c 2026,2027` prints for these zones,
/// which follow the EU's and the US's rules (last Sunday of March/October at 01:00 UTC; second
/// Sunday of March and first of November at 02:00 local).
@Suite struct LocalZoneTests {
    static func zone(_ name: String) throws -> LocalZone {
        let bytes = try #require(readBinaryFile("/usr/share/zoneinfo/\(name)"), "tzdata has no \(name)")
        return try LocalZone(tzif: bytes)
    }

    static func utc(_ text: String) throws -> Instant { try #require(ISO8601.parse(text)) }

    @Test(arguments: [
        // Europe/Berlin: CET +1, CEST +2.
        ("Europe/Berlin", "2026-03-29T00:59:59Z", 3600), ("Europe/Berlin", "2026-03-29T01:00:00Z", 7200),
        ("Europe/Berlin", "2026-10-25T00:59:59Z", 7200), ("Europe/Berlin", "2026-10-25T01:00:00Z", 3600),
        // America/New_York: EST −5, EDT −4.
        ("America/New_York", "2026-03-08T06:59:59Z", -18000), ("America/New_York", "2026-03-08T07:00:00Z", -14400),
        ("America/New_York", "2026-11-01T05:59:59Z", -14400), ("America/New_York", "2026-11-01T06:00:00Z", -18000),
        // Asia/Tokyo: JST +9, no daylight saving since 1951.
        ("Asia/Tokyo", "2026-01-15T12:00:00Z", 32400), ("Asia/Tokyo", "2026-07-15T12:00:00Z", 32400),
        // Past the table (fat files end in 2037): the footer's rule.
        ("Europe/Berlin", "2090-07-01T00:00:00Z", 7200), ("Europe/Berlin", "2090-12-01T00:00:00Z", 3600),
        // Before the first transition: local mean time (type 0), Berlin's +0:53:28.
        ("Europe/Berlin", "1850-01-01T00:00:00Z", 3208),
    ] as [(String, String, Int32)])
    func offsetsAroundTheChanges(zone name: String, at text: String, offset: Int32) throws {
        #expect(try Self.zone(name).utcOffset(at: Self.utc(text)) == offset)
    }

    @Test func theFootersAreTheRulesTheyName() throws {
        let berlin = ZoneRule.Daylight(offset: 7200, start: .init(day: .monthWeekDay(month: 3, week: 5, weekday: 0), seconds: 7200),
                                       end: .init(day: .monthWeekDay(month: 10, week: 5, weekday: 0), seconds: 3 * 3600))
        #expect(try Self.zone("Europe/Berlin").rule == ZoneRule(standardOffset: 3600, daylight: berlin))
        #expect(try Self.zone("Asia/Tokyo").rule == ZoneRule(standardOffset: 32400))
        #expect(ZoneRule(parsing: Array("<+0330>-3:30".utf8)) == ZoneRule(standardOffset: 12600))
        #expect(ZoneRule(parsing: Array("<-03>3".utf8)) == ZoneRule(standardOffset: -10800))
    }

    /// The table (until 2037) and the footer are two statements of one rule: they agree at
    /// every hour of 2026, in the north and in the south (Sydney's summer spans the new year).
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Tokyo"])
    func theTableAndTheFooterAgree(zone name: String) throws {
        let zone = try Self.zone(name)
        let rule = try #require(zone.rule)
        let start = try Self.utc("2026-01-01T00:00:00Z").milliseconds / 1000
        var changes = 0
        for hour in Int64(0)..<(366 * 24) {
            let t = start + hour * 3600
            #expect(zone.offset(atSecond: t) == rule.offset(atSecond: t), "\(name) at \(t)")
            if hour > 0, zone.offset(atSecond: t) != zone.offset(atSecond: t - 3600) { changes += 1 }
        }
        #expect(changes == (name == "Asia/Tokyo" ? 0 : 2))
    }

    /// A version 1 file (32-bit times, no footer): the same offsets from the first body alone.
    @Test func aVersionOneBodyReadsTheSame() throws {
        var bytes = try #require(readBinaryFile("/usr/share/zoneinfo/America/New_York"))
        bytes[4] = 0
        let v1 = try LocalZone(tzif: bytes)
        #expect(v1.rule == nil)
        let full = try Self.zone("America/New_York")
        for text in ["2026-03-08T06:59:59Z", "2026-03-08T07:00:00Z", "2026-11-01T06:00:00Z", "1990-06-01T00:00:00Z"] {
            let t = try Self.utc(text)
            #expect(v1.utcOffset(at: t) == full.utcOffset(at: t), "\(text)")
        }
    }

    /// A TZ string as $TZ gives it: the US rule written out, and a southern one.
    @Test func aRuleAloneIsAZone() throws {
        let ny = LocalZone(rule: try #require(ZoneRule(parsing: Array("EST5EDT,M3.2.0,M11.1.0".utf8))))
        #expect(ny.utcOffset(at: try Self.utc("2026-03-08T06:59:59Z")) == -18000)
        #expect(ny.utcOffset(at: try Self.utc("2026-03-08T07:00:00Z")) == -14400)
        #expect(ny.utcOffset(at: try Self.utc("2026-11-01T05:59:59Z")) == -14400)
        #expect(ny.utcOffset(at: try Self.utc("2026-11-01T06:00:00Z")) == -18000)
        // Sydney: AEDT from the first Sunday of October 02:00 to the first of April 03:00.
        let syd = LocalZone(rule: try #require(ZoneRule(parsing: Array("AEST-10AEDT,M10.1.0,M4.1.0/3".utf8))))
        #expect(syd.utcOffset(at: try Self.utc("2026-01-01T00:00:00Z")) == 39600)
        #expect(syd.utcOffset(at: try Self.utc("2026-07-01T00:00:00Z")) == 36000)
        #expect(syd.utcOffset(at: try Self.utc("2026-12-31T23:00:00Z")) == 39600)
        // Julian days: J60 is March 1 whatever the year; 59 (zero-based) is Feb 29 in a leap year.
        let j = LocalZone(rule: try #require(ZoneRule(parsing: Array("AAA0BBB,J60/0,J300/0".utf8))))
        #expect(j.utcOffset(at: try Self.utc("2028-02-29T23:59:59Z")) == 0)
        #expect(j.utcOffset(at: try Self.utc("2028-03-01T00:00:00Z")) == 3600)
    }

    @Test(arguments: ["", "C", "CET", "CET-1CEST,", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
                      "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,J0,J100", "CET-1CEST,M3.5.0/168,M10.5.0", "CET-25",
                      "<+03", "<+0 3>-3", "CET-1CEST,M3.5.0,M10.5.0x", "CET-0001"])
    func badRulesAreRefused(_ text: String) {
        #expect(ZoneRule(parsing: Array(text.utf8)) == nil)
    }

    /// Hostile bytes: every cut of a real file is refused, never a crash; flipped bytes parse or
    /// are refused; a count larger than the file is refused before anything is allocated.
    @Test func truncatedOrCorruptFilesAreRefused() throws {
        let bytes = try #require(readBinaryFile("/usr/share/zoneinfo/Europe/Berlin"))
        for n in 0..<(bytes.count - 1) {
            #expect(throws: ZoneFileError.self) { try LocalZone(tzif: Array(bytes[0..<n])) }
        }
        var rng = SplitMix(state: 8536)
        for _ in 0..<2000 {
            var b = bytes
            for _ in 0...rng.int(4) { b[rng.int(b.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            if let zone = try? LocalZone(tzif: b) { _ = zone.offset(atSecond: Int64(bitPattern: rng.next()) >> 20) }
        }
        var huge = bytes
        huge[32...35] = [0xFF, 0xFF, 0xFF, 0xFF]   // timecnt
        #expect(throws: ZoneFileError.self) { try LocalZone(tzif: huge) }
        #expect(throws: ZoneFileError.self) { try LocalZone(tzif: Array(repeating: 0, count: LocalZone.maximumBytes + 1)) }
    }
}
