import Testing
import IsletCore

/// The night window in local time, across real changes of the clocks (tzdata's files are the
/// oracle of the offsets, LocalZoneTests checks them): the instants below are worked out by
/// hand from the wall times and those offsets.
@Suite struct NightScheduleTests {
    static func schedule(_ window: String, _ zone: String) throws -> NightSchedule {
        NightSchedule(window: try #require(NightWindow(parsing: window)), zone: try LocalZoneTests.zone(zone))
    }

    static func utc(_ text: String) throws -> Instant { try LocalZoneTests.utc(text) }

    /// Checks the state just before and at each boundary, and that each boundary is the next
    /// one after the previous.
    static func walk(_ s: NightSchedule, from: String, boundaries: [(String, Bool)]) throws {
        var now = try utc(from)
        for (text, nightAfter) in boundaries {
            let b = try utc(text)
            #expect(s.nextBoundary(after: now) == b, "after \(now)")
            #expect(s.isNight(at: b - .milliseconds(1)) == !nightAfter, "just before \(text)")
            #expect(s.isNight(at: b) == nightAfter, "at \(text)")
            now = b
        }
    }

    @Test func parsingTheWindow() {
        #expect(NightWindow(parsing: "22:30-07:00") == NightWindow(start: 22 * 60 + 30, end: 7 * 60))
        #expect(NightWindow(parsing: "00:00-23:59")?.description == "00:00-23:59")
        for bad in ["22:30-22:30", "24:00-07:00", "22:60-07:00", "7:00-22:00", "22:30 07:00", "22:30-07:00 ", "２2:30-07:00", ""] {
            #expect(NightWindow(parsing: bad) == nil, "\(bad)")
        }
    }

    /// Berlin, 22:30-07:00 over 2026-03-29 (02:00 CET becomes 03:00 CEST): the night is an hour
    /// shorter; it starts at 22:30 CET and ends at 07:00 CEST.
    @Test func berlinSpringForward() throws {
        try Self.walk(Self.schedule("22:30-07:00", "Europe/Berlin"), from: "2026-03-28T12:00:00Z", boundaries: [
            ("2026-03-28T21:30:00Z", true), ("2026-03-29T05:00:00Z", false), ("2026-03-29T20:30:00Z", true),
        ])
    }

    /// A boundary inside the gap (02:30 does not exist on 2026-03-29) falls at 03:00 CEST, the
    /// first instant after it; the day before and after, 02:30 is itself.
    @Test func aBoundaryInTheGapFallsAtItsEnd() throws {
        try Self.walk(Self.schedule("02:30-06:00", "Europe/Berlin"), from: "2026-03-28T00:00:00Z", boundaries: [
            ("2026-03-28T01:30:00Z", true), ("2026-03-28T05:00:00Z", false),
            ("2026-03-29T01:00:00Z", true), ("2026-03-29T04:00:00Z", false),
            ("2026-03-30T00:30:00Z", true),
        ])
    }

    /// A window wholly inside the gap is empty that day: both ends fall at 03:00 CEST.
    @Test func aWindowInsideTheGapIsEmpty() throws {
        let s = try Self.schedule("02:10-02:40", "Europe/Berlin")
        let gapEnd = try Self.utc("2026-03-29T01:00:00Z")
        #expect(s.nextBoundary(after: try Self.utc("2026-03-29T00:00:00Z")) == gapEnd)
        for t in ["2026-03-29T00:59:59Z", "2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z"] {
            #expect(!s.isNight(at: try Self.utc(t)), "\(t)")
        }
        let nextEvening = try Self.utc("2026-03-30T00:10:00Z")
        #expect(s.nextBoundary(after: try Self.utc("2026-03-29T01:00:00Z")) == nextEvening)
    }

    /// Berlin, 2026-10-25 (03:00 CEST becomes 02:00 CET): 02:30 happens twice; the night starts
    /// at the first (00:30 UTC) and the second passes without a boundary.
    @Test func berlinFallBackTakesTheFirstOccurrence() throws {
        let s = try Self.schedule("02:30-06:00", "Europe/Berlin")
        try Self.walk(s, from: "2026-10-24T12:00:00Z", boundaries: [("2026-10-25T00:30:00Z", true), ("2026-10-25T05:00:00Z", false)])
        #expect(s.isNight(at: try Self.utc("2026-10-25T01:30:00Z")))   // 02:30 CET, the second time
        // 22:30-07:00 that night is an hour longer: 22:30 CEST to 07:00 CET.
        try Self.walk(Self.schedule("22:30-07:00", "Europe/Berlin"), from: "2026-10-24T12:00:00Z",
                      boundaries: [("2026-10-24T20:30:00Z", true), ("2026-10-25T06:00:00Z", false)])
    }

    /// New York, 2026-03-08 (02:00 EST becomes 03:00 EDT): 22:00-02:30 ends at 03:00 EDT.
    @Test func newYorkSpringForward() throws {
        try Self.walk(Self.schedule("22:00-02:30", "America/New_York"), from: "2026-03-07T12:00:00Z", boundaries: [
            ("2026-03-08T03:00:00Z", true), ("2026-03-08T07:00:00Z", false), ("2026-03-09T02:00:00Z", true),
            ("2026-03-09T06:30:00Z", false),
        ])
    }

    /// New York, 2026-11-01 (02:00 EDT becomes 01:00 EST): 23:00-01:30 ends at the first 01:30
    /// (EDT); the second 01:30 (EST) is still day.
    @Test func newYorkFallBack() throws {
        let s = try Self.schedule("23:00-01:30", "America/New_York")
        try Self.walk(s, from: "2026-10-31T12:00:00Z", boundaries: [
            ("2026-11-01T03:00:00Z", true), ("2026-11-01T05:30:00Z", false), ("2026-11-02T04:00:00Z", true),
        ])
        #expect(!s.isNight(at: try Self.utc("2026-11-01T06:30:00Z")))   // 01:30 EST
    }

    /// Tokyo has no daylight saving: every night is 22:30 to 07:00 JST (+9).
    @Test func aZoneWithoutDaylightSaving() throws {
        try Self.walk(Self.schedule("22:30-07:00", "Asia/Tokyo"), from: "2026-06-01T00:00:00Z", boundaries: [
            ("2026-06-01T13:30:00Z", true), ("2026-06-01T22:00:00Z", false), ("2026-06-02T13:30:00Z", true),
        ])
    }

    /// A window across midnight in UTC, and one within a day: minutes around both ends.
    @Test func acrossMidnightAndWithinADay() throws {
        let across = NightSchedule(window: try #require(NightWindow(parsing: "23:00-01:00")), zone: .utc)
        for (t, night) in [("2026-05-01T22:59:59Z", false), ("2026-05-01T23:00:00Z", true), ("2026-05-02T00:00:00Z", true),
                           ("2026-05-02T00:59:59Z", true), ("2026-05-02T01:00:00Z", false), ("2026-05-02T12:00:00Z", false)] {
            #expect(across.isNight(at: try Self.utc(t)) == night, "\(t)")
        }
        let acrossEnds = try Self.utc("2026-05-02T01:00:00Z")
        #expect(across.nextBoundary(after: try Self.utc("2026-05-02T00:30:00Z")) == acrossEnds)
        let within = NightSchedule(window: try #require(NightWindow(parsing: "01:00-05:00")), zone: .utc)
        #expect(!within.isNight(at: try Self.utc("2026-05-02T00:59:59Z")))
        #expect(within.isNight(at: try Self.utc("2026-05-02T01:00:00Z")))
        let withinStarts = try Self.utc("2026-05-03T01:00:00Z")
        #expect(within.nextBoundary(after: try Self.utc("2026-05-02T05:00:00Z")) == withinStarts)
    }

    /// Every next boundary is strictly later, and the state flips only there: a walk through a
    /// whole year of Berlin nights finds 365 starts and 365 ends, two of them moved by the clocks.
    @Test func aYearOfBoundaries() throws {
        let s = try Self.schedule("22:30-07:00", "Europe/Berlin")
        var now = try Self.utc("2026-01-01T00:00:00Z")
        let end = try Self.utc("2027-01-01T00:00:00Z")
        var night = s.isNight(at: now), flips = 0
        while true {
            let next = s.nextBoundary(after: now)
            #expect(next > now)
            if next >= end { break }
            #expect(s.isNight(at: next - .milliseconds(1)) == night)
            #expect(s.isNight(at: next) != night)
            night.toggle()
            flips += 1
            now = next
        }
        #expect(flips == 730)
    }
}
