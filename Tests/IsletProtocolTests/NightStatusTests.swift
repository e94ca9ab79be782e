import IsletCore
import IsletProtocol
import Testing

@Suite("status.night: the next change on the display's clock")
struct NightStatusTests {
    @Test("next_local is HH:MM of the boundary at the zone's offset, either side of UTC and of 1970")
    func wallClock() throws {
        let t = try #require(ISO8601.parse("2026-12-06T21:30:00.000Z"))
        #expect(NightStatus.wallClock(t, offsetSeconds: 0) == "21:30")
        #expect(NightStatus.wallClock(t, offsetSeconds: 3_600) == "22:30")
        #expect(NightStatus.wallClock(t, offsetSeconds: 5 * 3_600 + 1_800) == "03:00", "past midnight")
        #expect(NightStatus.wallClock(t, offsetSeconds: -10 * 3_600) == "11:30")
        #expect(NightStatus.wallClock(Instant(milliseconds: -60_000), offsetSeconds: 0) == "23:59", "before 1970")
    }

    @Test("next_night and next_local only beside next_boundary, in the JSON under their wire names")
    func fields() throws {
        let t = try #require(ISO8601.parse("2026-12-06T06:00:00.000Z"))
        let s = NightStatus(night: true, contrast: 0, source: "schedule", window: "22:30-07:00", nextBoundary: t,
                            idle: "dark", zone: "Europe/Paris", nextNight: false, nextLocal: "07:00")
        let json = String(decoding: JSONLines.encode(s), as: UTF8.self)
        #expect(json.contains(#""next_night":false"#) && json.contains(#""next_local":"07:00""#), "\(json)")
        #expect(s.line.hasSuffix("(day from 07:00)"))
        let none = NightStatus(night: false, contrast: 127, source: "schedule", window: nil, nextBoundary: nil,
                               idle: "dark", zone: "UTC", nextNight: true, nextLocal: "22:30")
        #expect(none.nextNight == nil && none.nextLocal == nil)
    }
}
