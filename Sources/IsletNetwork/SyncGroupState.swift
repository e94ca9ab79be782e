import IsletSync
import IsletSystem

// The sync group's state, by concern (SyncGroup holds one of each).

/// Joining the group: this connection's marker, what it heard, and the first frame's hold.
struct Join {
    /// This connection's join marker, until it comes back.
    var token: String?
    /// The newest record heard of each timer in this connection: after the join, ours that
    /// the broker lacks (it restarted empty, or we were cut off) are published.
    var heard: [String: Revision] = [:]
    /// The group's retained state was taken once since the start.
    var joined = false
    /// Until then the panel shows nothing (never an old timer), at most this long.
    let holdUntil: MonotonicInstant
    var note: String?
}

struct Beacons {
    var due: MonotonicInstant?
    var last: MonotonicInstant?
}

struct ClockMarks {
    /// The clock was judged off at the last look.
    var off = false
    /// Timers this part marked stale for the clock (only those it marks fresh again).
    var marked: Set<String> = []
}

struct Outgoing {
    /// Timers whose record is to be published (made here, or to correct an older copy).
    var timers: Set<String> = []
    /// The ledger changed since the book last took a copy to save.
    var ledgerChanged = false
}

/// Corrections (ours answering an older or losing copy): at most one per timer per
/// `correctionIntervalMs`, so replays of an old record cost one publish, not one each.
struct Corrections {
    var last: [String: MonotonicInstant] = [:]
    var due: [String: MonotonicInstant] = [:]
}
