import Testing
import IsletSync

@Test func theOneDisplayWhoseClockIsTenSecondsOffIsTheOneThatSaysSo() {
    // Three displays; the bedroom's clock runs 10 s fast. Each hears the other two.
    let wall: [String: Int64] = ["desk": 1_000_000, "hall": 1_000_030, "bed": 1_010_000]
    var judges: [String: PeerClocks] = [:]
    for me in wall.keys {
        var j = PeerClocks(votingAfterMilliseconds: 0)
        for (peer, theirs) in wall where peer != me { j.heard(peer, theirWallMs: theirs, ourWallMs: wall[me] ?? 0, monotonicMs: 5) }
        judges[me] = j
    }
    // Theirs minus ours: desk −10 s, hall −9.97 s; of an even count the upper middle one.
    #expect(judges["bed"]?.verdict(monotonicMs: 10) == .disagrees(offsetMilliseconds: -9_970, peers: ["desk", "hall"]))
    #expect(judges["desk"]?.verdict(monotonicMs: 10) == .agrees(peers: 2))
    #expect(judges["hall"]?.verdict(monotonicMs: 10) == .agrees(peers: 2))
}

@Test func twoDisplaysThatDisagreeCannotTellWhichIsWrongAndBothSaySo() {
    var desk = PeerClocks(votingAfterMilliseconds: 0)
    var bed = PeerClocks(votingAfterMilliseconds: 0)
    desk.heard("bed", theirWallMs: 1_010_000, ourWallMs: 1_000_000, monotonicMs: 0)
    bed.heard("desk", theirWallMs: 1_000_000, ourWallMs: 1_010_000, monotonicMs: 0)
    #expect(desk.verdict(monotonicMs: 1) == .disagrees(offsetMilliseconds: 10_000, peers: ["bed"]))
    #expect(bed.verdict(monotonicMs: 1) == .disagrees(offsetMilliseconds: -10_000, peers: ["desk"]))
}

@Test func theBoundIsInclusiveAnNTPStepBringsItBackAndASilentPeerIsForgotten() {
    var desk = PeerClocks(boundMilliseconds: 2_000, forgetAfterMilliseconds: 90_000, votingAfterMilliseconds: 0)
    #expect(desk.verdict(monotonicMs: 0) == .alone)
    // Exactly 2 s apart is within the bound; 2.001 s is not.
    desk.heard("bed", theirWallMs: 2_000, ourWallMs: 0, monotonicMs: 0)
    #expect(desk.verdict(monotonicMs: 0) == .agrees(peers: 1))
    desk.heard("bed", theirWallMs: 2_001, ourWallMs: 0, monotonicMs: 1_000)
    #expect(desk.verdict(monotonicMs: 1_000) == .disagrees(offsetMilliseconds: 2_001, peers: ["bed"]))
    // NTP stepped one of the clocks: the next message agrees again.
    desk.heard("bed", theirWallMs: 50_010, ourWallMs: 50_000, monotonicMs: 50_000)
    #expect(desk.verdict(monotonicMs: 50_000) == .agrees(peers: 1))
    // Not heard for 90 s: no longer counted (a display removed from the group).
    #expect(desk.verdict(monotonicMs: 139_999) == .agrees(peers: 1))
    #expect(desk.verdict(monotonicMs: 140_000) == .alone)
    #expect(desk.peers(monotonicMs: 140_000).isEmpty)
}

@Test func halfThePeersDisagreeingIsNotAMajority() {
    var desk = PeerClocks(votingAfterMilliseconds: 0)
    desk.heard("bed", theirWallMs: 30_000, ourWallMs: 0, monotonicMs: 0)
    desk.heard("hall", theirWallMs: 0, ourWallMs: 0, monotonicMs: 0)
    #expect(desk.verdict(monotonicMs: 0) == .agrees(peers: 2))
    desk.heard("attic", theirWallMs: 29_000, ourWallMs: 0, monotonicMs: 0)
    #expect(desk.verdict(monotonicMs: 0) == .disagrees(offsetMilliseconds: 30_000, peers: ["attic", "bed"]))
}

// MARK: names anyone can invent (docs/SYNC.md "Threat model")

@Test func aBurstOfInventedNamesAnHourAheadDoesNotMakeALoneCorrectDisplayJudgeItselfOff() {
    var desk = PeerClocks()
    // Two made-up names, each heard once (a burst), one hour ahead.
    desk.heard("ghost-1", theirWallMs: 3_600_000, ourWallMs: 0, monotonicMs: 0)
    desk.heard("ghost-2", theirWallMs: 3_600_000, ourWallMs: 0, monotonicMs: 5)
    #expect(desk.verdict(monotonicMs: 10_000) == .alone)
    // Heard again within 20 s of the first beacon: still no vote.
    desk.heard("ghost-1", theirWallMs: 3_619_000, ourWallMs: 19_000, monotonicMs: 19_000)
    #expect(desk.verdict(monotonicMs: 19_000) == .alone)
}

@Test func aPeerVotesOnceHeardAgainTwentySecondsAfterItsFirstBeacon() {
    var desk = PeerClocks()
    desk.heard("bed", theirWallMs: 10_000, ourWallMs: 0, monotonicMs: 0)
    #expect(desk.verdict(monotonicMs: 100) == .alone)
    desk.heard("bed", theirWallMs: 30_000, ourWallMs: 20_000 - 10_000, monotonicMs: 20_000)
    #expect(desk.verdict(monotonicMs: 20_000) == .disagrees(offsetMilliseconds: 20_000, peers: ["bed"]))
}

@Test func seatsAreBoundedAndFirstComeSoAFloodOfNamesCannotPushOutTheRealPeers() {
    var desk = PeerClocks()
    let bedIsNew = desk.heard("bed", theirWallMs: 0, ourWallMs: 0, monotonicMs: 0)
    #expect(bedIsNew)
    for i in 0..<10_000 { desk.heard("ghost-\(i)", theirWallMs: 3_600_000, ourWallMs: 0, monotonicMs: 1 + Int64(i)) }
    let peers = desk.peers(monotonicMs: 20_000)
    #expect(peers.count == PeerClocks.maximumPeers)
    #expect(peers.contains("bed"))
    // bed keeps beaconing; the ghosts that took the other seats fall silent and are forgotten.
    desk.heard("bed", theirWallMs: 30_000, ourWallMs: 30_000, monotonicMs: 30_000)
    desk.heard("bed", theirWallMs: 100_000, ourWallMs: 100_000, monotonicMs: 100_000)
    #expect(desk.peers(monotonicMs: 100_000) == ["bed"])
    #expect(desk.verdict(monotonicMs: 100_000) == .agrees(peers: 1))
    // Seats freed: a new real peer is followed again.
    let hallIsNew = desk.heard("hall", theirWallMs: 100_000, ourWallMs: 100_000, monotonicMs: 100_001)
    #expect(hallIsNew)
}

@Test func absurdWallTimesNeitherTrapNorWrap() {
    var desk = PeerClocks(votingAfterMilliseconds: 0)
    desk.heard("a", theirWallMs: .max, ourWallMs: -1, monotonicMs: 0)
    desk.heard("b", theirWallMs: .min, ourWallMs: 1, monotonicMs: 0)
    desk.heard("c", theirWallMs: .min, ourWallMs: 0, monotonicMs: 0)
    guard case .disagrees(let ms, let peers) = desk.verdict(monotonicMs: 0) else { Issue.record("expected disagrees"); return }
    #expect(peers == ["a", "b", "c"])
    #expect(ms == -Int64.max)
}

@Test func aNameWithoutASeatIsNotHeardUntilOneIsFree() {
    var desk = PeerClocks()
    for i in 0..<PeerClocks.maximumPeers { desk.heard("p\(i)", theirWallMs: 0, ourWallMs: 0, monotonicMs: 0) }
    #expect(desk.wouldHear("p3", monotonicMs: 1))
    #expect(!desk.wouldHear("ghost", monotonicMs: 1))
    #expect(desk.wouldHear("ghost", monotonicMs: 90_000), "the seats' holders fell silent for 90 s")
}
