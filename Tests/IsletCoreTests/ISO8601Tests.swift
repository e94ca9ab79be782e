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
    #expect(ISO8601.parse("2026-11-29T21:53:07.1234567891Z") == nil)
    #expect(ISO8601.parse("2026-11-29T21:53:07.5Z") == ISO8601.parse("2026-11-29T21:53:07.500Z"))
}
