import Testing
import IsletSystem
@testable import IsletParts

/// The token bucket in front of MQTT commands (docs/MQTT.md "Threat model and bounds").
@Suite struct RateLimitTests {
    private func at(_ ms: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(1_000_000_000 + ms * 1_000_000)) }

    @Test func aBurstOfFortyThenTwentyASecond() {
        var limit = RateLimit(perSecond: 20, burst: 40)
        // 10,000 commands within 200 ms: the burst and the 4 refilled in that time.
        var taken = 0
        for i in 0..<10_000 where limit.take(at: at(Int64(i) / 50)) { taken += 1 }
        #expect(taken == 40 + 3)
        // A second later, 20 more; never more than the burst however long it was quiet.
        var later = 0
        for _ in 0..<100 where limit.take(at: at(1_199)) { later += 1 }
        #expect(later == 20)
        var afterAnHour = 0
        for _ in 0..<100 where limit.take(at: at(3_600_000)) { afterAnHour += 1 }
        #expect(afterAnHour == 40)
    }

    @Test func aClockThatStandsOrGoesBackGivesNothingExtra() {
        var limit = RateLimit(perSecond: 20, burst: 2)
        let results = [limit.take(at: at(1_000)), limit.take(at: at(1_000)), limit.take(at: at(500)),
                       limit.take(at: at(1_000)), limit.take(at: at(1_050))]
        #expect(results == [true, true, false, false, true])
    }
}
