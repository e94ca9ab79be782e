/// Whether this device's wall clock agrees with its group's. Time crosses devices as wall-clock
/// instants, so a display whose clock is off by seconds would show a wrong remaining time: it
/// shows the activity stale instead, and says why. Pure: the samples and the monotonic time
/// they were heard at are passed in.
///
/// A sample is a peer's wall clock as it sent a message, against ours as it arrived (on a
/// home network the delivery takes milliseconds, far inside the bound). This device is the one
/// that is off when more than half of the voting peers disagree with it by more than the bound.
/// With two devices neither can tell which clock is wrong: both show stale.
///
/// A name is anyone's to invent, so a name alone does not vote (docs/SYNC.md "Threat model"):
/// - seats are bounded (`maximumPeers`) and first come: a newcomer finds no seat while the
///   peers that hold them are still heard, so a flood of names cannot push the real peers out;
/// - a peer votes only once it has been heard again at least `votingAfterMilliseconds` after
///   it was first heard, so a burst of invented names changes no verdict.
public struct PeerClocks: Sendable {
    public var boundMilliseconds: Int64
    /// A peer not heard for this long is no longer counted (it left the group, or is off).
    public var forgetAfterMilliseconds: Int64
    /// A peer votes once it has been heard for this long (two beacons, one interval apart).
    public var votingAfterMilliseconds: Int64
    /// Peers followed at most.
    public static let maximumPeers = 16

    private struct Sample: Sendable {
        var offsetMilliseconds: Int64
        var heardAtMonotonicMs: Int64
        var firstHeardMonotonicMs: Int64
    }
    private var samples: [String: Sample] = [:]

    public init(boundMilliseconds: Int64 = 2_000, forgetAfterMilliseconds: Int64 = 90_000, votingAfterMilliseconds: Int64 = 20_000) {
        self.boundMilliseconds = boundMilliseconds
        self.forgetAfterMilliseconds = forgetAfterMilliseconds
        self.votingAfterMilliseconds = votingAfterMilliseconds
    }

    /// A message from `peer` sent at its wall time `theirs`, received at our wall time `ours`.
    /// Returns whether the peer is new (it took a seat); a newcomer that finds every seat held
    /// is not followed (false).
    @discardableResult
    public mutating func heard(_ peer: String, theirWallMs theirs: Int64, ourWallMs ours: Int64, monotonicMs: Int64) -> Bool {
        let (d, overflow) = theirs.subtractingReportingOverflow(ours)
        // Saturated short of Int64.min, so its magnitude is representable.
        let offset = overflow ? (theirs < ours ? -Int64.max : Int64.max) : max(d, -Int64.max)
        if var s = samples[peer], !isForgotten(s, at: monotonicMs) {
            s.offsetMilliseconds = offset
            s.heardAtMonotonicMs = monotonicMs
            samples[peer] = s
            return false
        }
        if samples.count >= Self.maximumPeers {
            for (name, s) in samples where isForgotten(s, at: monotonicMs) { samples[name] = nil }
            guard samples.count < Self.maximumPeers else { return false }
        }
        samples[peer] = Sample(offsetMilliseconds: offset, heardAtMonotonicMs: monotonicMs, firstHeardMonotonicMs: monotonicMs)
        return true
    }

    /// Whether a beacon from `peer` would be taken now (it holds a seat, or one is free): the
    /// daemon skips parsing the rest, so a flood of names costs a lookup each.
    public func wouldHear(_ peer: String, monotonicMs now: Int64) -> Bool {
        if let s = samples[peer], !isForgotten(s, at: now) { return true }
        return samples.count < Self.maximumPeers || samples.values.contains { isForgotten($0, at: now) }
    }

    private func isForgotten(_ s: Sample, at now: Int64) -> Bool {
        now - s.heardAtMonotonicMs >= forgetAfterMilliseconds
    }

    private func votes(_ s: Sample) -> Bool {
        s.heardAtMonotonicMs - s.firstHeardMonotonicMs >= votingAfterMilliseconds
    }

    public enum Verdict: Hashable, Sendable {
        /// No voting peer heard lately: nothing to compare with.
        case alone
        case agrees(peers: Int)
        /// Most peers disagree: by `offsetMilliseconds` (theirs minus ours, the median of the
        /// disagreeing peers), naming them.
        case disagrees(offsetMilliseconds: Int64, peers: [String])
    }

    public func verdict(monotonicMs now: Int64) -> Verdict {
        let recent = samples.filter { !isForgotten($0.value, at: now) && votes($0.value) }
        guard !recent.isEmpty else { return .alone }
        let off = recent.filter { abs($0.value.offsetMilliseconds) > boundMilliseconds }
        guard off.count * 2 > recent.count else { return .agrees(peers: recent.count) }
        let offsets = off.values.map(\.offsetMilliseconds).sorted()
        return .disagrees(offsetMilliseconds: offsets[offsets.count / 2], peers: off.keys.sorted())
    }

    /// The peers heard lately, by name (at most `maximumPeers`).
    public func peers(monotonicMs now: Int64) -> [String] {
        samples.filter { !isForgotten($0.value, at: now) }.keys.sorted()
    }
}
