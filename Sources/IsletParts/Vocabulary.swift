import IsletCore
import IsletSystem

/// A start-up failure with the exit status to leave with.
public struct DaemonStartError: Error, CustomStringConvertible {
    public var message: String
    public var status: Int32
    public init(_ message: String, status: Int32) { self.message = message; self.status = status }
    public var description: String { message }
}

extension Intent {
    /// The intent's name for the log (the attributes are in the state file).
    package var name: String {
        if let verb { return verb.rawValue }
        return self == .markStale ? "mark stale" : "mark fresh"
    }

    /// Whether the intent is a person's change, shared with a sync group (marking stale is
    /// each display's own judgement of its clock: no verb).
    package var isSharedChange: Bool { verb?.isSharedWithGroup ?? false }
}

extension MonotonicInstant {
    /// Whole milliseconds, for the log's rate limits and the client bookkeeping.
    package var milliseconds: Int64 { Int64(nanoseconds / 1_000_000) }
}
