import Testing
import IsletCore
import IsletSync

@Test func revisionsFollowTheWallClockForwardAndNeverGoBackWhenItStepsBack() {
    var clock = HybridClock(device: "desk")
    let a = clock.tick(wallMilliseconds: 10_000)
    #expect(a == Revision(wallMilliseconds: 10_000, counter: 0, device: "desk"))
    // Same millisecond: the counter orders it.
    let b = clock.tick(wallMilliseconds: 10_000)
    #expect(b == Revision(wallMilliseconds: 10_000, counter: 1, device: "desk"))
    // The wall clock stepped back 5 s (an NTP step): the revision stays ahead of the last one.
    let c = clock.tick(wallMilliseconds: 5_000)
    #expect(c == Revision(wallMilliseconds: 10_000, counter: 2, device: "desk"))
    #expect(a < b && b < c)
    // Forward again: the wall part takes over and the counter starts at 0.
    let d = clock.tick(wallMilliseconds: 12_000)
    #expect(d == Revision(wallMilliseconds: 12_000, counter: 0, device: "desk"))
}

@Test func aChangeMadeAfterSeeingAnotherDevicesRevisionIsLaterThanIt() {
    var bed = HybridClock(device: "bed")
    // The desk's clock runs 10 s ahead of the bedroom's.
    let fromDesk = Revision(wallMilliseconds: 20_000, counter: 3, device: "desk")
    bed.observe(fromDesk)
    let next = bed.tick(wallMilliseconds: 10_000)
    #expect(next > fromDesk)
    #expect(next == Revision(wallMilliseconds: 20_000, counter: 4, device: "bed"))
    // An older revision seen later changes nothing.
    bed.observe(Revision(wallMilliseconds: 1_000, counter: 0, device: "hall"))
    #expect(bed.tick(wallMilliseconds: 10_000) == Revision(wallMilliseconds: 20_000, counter: 5, device: "bed"))
}

@Test func equalClockReadingsAreOrderedByTheDeviceIdsBytes() {
    // "B" (0x42) sorts before "a" (0x61) by bytes, whatever a locale's collation says.
    let upper = Revision(wallMilliseconds: 1, counter: 0, device: "B")
    let lower = Revision(wallMilliseconds: 1, counter: 0, device: "a")
    #expect(upper < lower)
    #expect(!(lower < upper))
    // The wall part decides before the counter, the counter before the device.
    #expect(Revision(wallMilliseconds: 1, counter: 9, device: "z") < Revision(wallMilliseconds: 2, counter: 0, device: "a"))
    #expect(Revision(wallMilliseconds: 1, counter: 1, device: "a") > Revision(wallMilliseconds: 1, counter: 0, device: "z"))
    #expect(upper.description == "1.0@B")
}
