import Testing
import IsletCore

@Test func formatsUTCWithMilliseconds() {
    // 2026-11-29T21:53:07.250Z: 20 786 days after the epoch (hand-computed: 56 years incl. 14 leap days + 332 days).
    let t = Instant(milliseconds: ((20_786 * 24 + 21) * 60 + 53) * 60_000 + 7_250)
    #expect(ISO8601.format(t) == "2026-11-29T21:53:07.250Z")
    #expect(ISO8601.format(.epoch) == "1970-01-01T00:00:00.000Z")
}

@Test func parsesWhatItFormatsAndRejectsNonsense() {
    for ms: Int64 in [0, 1, 999, 86_399_999, 951_782_400_000, 1_796_000_000_123, -1] {
        let t = Instant(milliseconds: ms)
        #expect(ISO8601.parse(ISO8601.format(t)) == t)
    }
    #expect(ISO8601.parse("2000-02-29T00:00:00Z") == Instant(milliseconds: 951_782_400_000))
    #expect(ISO8601.parse("2026-02-30T00:00:00Z") == nil)
    #expect(ISO8601.parse("2026-11-29 21:53:07Z") == nil)
    #expect(ISO8601.parse("2026-11-29T21:53:07.5Z") == ISO8601.parse("2026-11-29T21:53:07.500Z"))
}

/// RFC 3339 section 5.6: date-time = full-date "T" full-time; "T" and "Z" may be lower case
/// (the section's note); time-offset = "Z" / ("+" / "-") HH ":" MM; time-secfrac = "." 1*DIGIT.
@Test func readsEveryFormRFC3339Allows() {
    // 2026-12-06T14:05:00Z: day 20,793 after the epoch (2026-11-29 is 20,786, a week before).
    let end = Instant(milliseconds: 20_793 * 86_400_000 + (14 * 60 + 5) * 60_000)
    let same = ["2026-12-06T14:05:00Z", "2026-12-06t14:05:00z", "2026-12-06T14:05:00z", "2026-12-06t14:05:00Z",
                "2026-12-06T15:05:00+01:00",   // Home Assistant's templates write the local offset
                "2026-12-06T09:35:00-04:30", "2026-12-06T14:05:00+00:00", "2026-12-06T14:05:00-00:00",
                "2026-12-07T13:04:00+22:59", "2026-12-06T14:05:00.000Z", "2026-12-06T15:05:00.0+01:00"]
    for text in same { #expect(ISO8601.parse(text) == end, "\(text)") }
    // The offset can move the date, the month and the year.
    #expect(ISO8601.parse("2027-01-01T00:30:00+01:00") == ISO8601.parse("2026-12-31T23:30:00Z"))
    #expect(ISO8601.parse("2024-02-28T23:00:00-01:00") == ISO8601.parse("2024-02-29T00:00:00Z"))
    // The RFC's own examples (section 5.8); UTC is the local time minus its offset.
    #expect(ISO8601.parse("1985-04-12T23:20:50.52Z").map(ISO8601.format) == "1985-04-12T23:20:50.520Z")
    #expect(ISO8601.parse("1996-12-19T16:39:57-08:00").map(ISO8601.format) == "1996-12-20T00:39:57.000Z")
    #expect(ISO8601.parse("1937-01-01T12:00:27.87+00:20").map(ISO8601.format) == "1937-01-01T11:40:27.870Z")
    // Any number of fraction digits; one finer than a millisecond rounds up to the next.
    #expect(ISO8601.parse("2026-12-06T14:05:00.1234567891234Z") == end + .milliseconds(124))
    #expect(ISO8601.parse("2026-12-06T14:05:00.000000001Z") == end + .milliseconds(1))
    #expect(ISO8601.parse("2026-12-06T14:05:00.9990000Z") == end + .milliseconds(999))
    #expect(ISO8601.parse("2026-12-06T14:05:00.9999Z") == end + .seconds(1))
    #expect(ISO8601.parse("2026-12-06T14:05:00.5+01:00") == end - .seconds(3600) + .milliseconds(500))
}

@Test func refusesWhatRFC3339DoesNotAllow() {
    let refused = [
        "2026-12-06T14:05Z",              // no seconds
        "2026-12-06 14:05:00Z",           // a space for T (the RFC's note allows it "for readability"; not taken)
        "2026-12-06T14:05:00",            // no offset: local time of an unknown place
        "2026-12-06T14:05:00+0100", "2026-12-06T14:05:00+01", "2026-12-06T14:05:00+1:00", "2026-12-06T14:05:00 +01:00",
        "2026-12-06T14:05:00+24:00", "2026-12-06T14:05:00+01:60", "2026-12-06T14:05:00+01:00Z", "2026-12-06T14:05:00Z+01:00",
        "2026-12-06T14:05:00.Z", "2026-12-06T14:05:00,5Z", "2026-12-06T14:05:00.5.5Z",
        "20261206T140500Z", "2026-12-6T14:05:00Z", "26-12-06T14:05:00Z", "+2026-12-06T14:05:00Z", "12026-12-06T14:05:00Z",
        "2026-12-06T24:00:00Z", "2026-12-06T14:60:00Z",
        "1990-12-31T23:59:60Z", "1990-12-31T15:59:60-08:00",   // leap seconds: the timeline is POSIX time
        "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z",
        "2026-12-06X14:05:00Z", "2026-12-06T14:05:00ZZ", "2026-12-06T14:05:00z ", " 2026-12-06T14:05:00Z",
        "2026-12-06T14:05:00UTC", "2026-12-06T14:05:00GMT", "2026-12-06T14:05:00\u{2212}01:00",  // U+2212, not "-"
        "２０２６-12-06T14:05:00Z", "2026-12-06", "", "T", "2026-12-06T14:05:00-",
    ]
    for text in refused { #expect(ISO8601.parse(text) == nil, "\(text) was taken") }
}
