/// Whether this device's wall clock agrees with its group's. Time crosses devices as wall-clock
/// instants, so a display whose clock is off by seconds would show a wrong remaining time: it
/// shows the activity stale instead, and says why. Pure: the samples and the monotonic time
/// they were heard at are passed in.
///
/// A sample is a peer's wall clock as it sent a message, against ours as it arrived (on a
/// home network the delivery takes milliseconds, far inside the bound). This device is the one
/// that is off when more than half of the peers heard lately disagree with it by more than the
/// bound. With two devices neither can tell which clock is wrong: both show stale.
public struct PeerClocks: Sendable {
    public var boundMilliseconds: Int64
    /// A peer not heard for this long is no longer counted (it left the group, or is off).
    public var forgetAfterMilliseconds: Int64

    private struct Sample: Sendable { var offsetMilliseconds: Int64; var heardAtMonotonicMs: Int64 }
    private var samples: [String: Sample] = [:]

    public init(boundMilliseconds: Int64 = 2_000, forgetAfterMilliseconds: Int64 = 90_000) {
        self.boundMilliseconds = boundMilliseconds
        self.forgetAfterMilliseconds = forgetAfterMilliseconds
    }

    /// A message from `peer` sent at its wall time `theirs`, received at our wall time `ours`.
    public mutating func heard(_ peer: String, theirWallMs theirs: Int64, ourWallMs ours: Int64, monotonicMs: Int64) {
        samples[peer] = Sample(offsetMilliseconds: theirs &- ours, heardAtMonotonicMs: monotonicMs)
    }

    public enum Verdict: Hashable, Sendable {
        /// No peer heard lately: nothing to compare with.
        case alone
        case agrees(peers: Int)
        /// Most peers disagree: by `offsetMilliseconds` (theirs minus ours, the median of the
        /// disagreeing peers), naming them.
        case disagrees(offsetMilliseconds: Int64, peers: [String])
    }

    public func verdict(monotonicMs now: Int64) -> Verdict {
        let recent = samples.filter { now - $0.value.heardAtMonotonicMs < forgetAfterMilliseconds }
        guard !recent.isEmpty else { return .alone }
        let off = recent.filter { abs($0.value.offsetMilliseconds) > boundMilliseconds }
        guard off.count * 2 > recent.count else { return .agrees(peers: recent.count) }
        let offsets = off.values.map(\.offsetMilliseconds).sorted()
        return .disagrees(offsetMilliseconds: offsets[offsets.count / 2], peers: off.keys.sorted())
    }

    /// The peers heard lately, by name.
    public func peers(monotonicMs now: Int64) -> [String] {
        samples.filter { now - $0.value.heardAtMonotonicMs < forgetAfterMilliseconds }.keys.sorted()
    }
}
