import IsletParts
import IsletInput
import IsletSystem
import IsletLinux
import Synchronization
import IsletClock

/// Why a mock press failed.
public enum MockButtonError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The source has no button of this name.
    case unknownButton(String, known: [String])
    /// The wake-up timer could not be armed.
    case timer(GPIOError)

    public var description: String {
        switch self {
        case .unknownButton(let b, let known):
            "no button \"\(b)\"; buttons: " + (known.isEmpty ? "none" : known.joined(separator: ", "))
        case .timer(let e): "cannot schedule the mock press: \(e)"
        }
    }
}

/// Scripted buttons: the demo's keyboard, `isletctl press` and tests press them. Edges are due
/// at their timestamps on the daemon's loop clock (CLOCK_MONOTONIC in production, the clock GPIO
/// edges carry); the descriptor is that clock's deadline timer, armed for the earliest pending
/// edge, so a press with a hold wakes the daemon's loop again at its release, and a test's
/// manual clock moves holds as it moves every other deadline.
public final class MockButtons: ButtonSource {
    public let buttons: [String]
    private let timer: any DeadlineTimer
    private let clock: any LoopClock
    private let pending = Mutex<[ButtonEdge]>([])

    /// `clock` is the daemon's (`Daemon.init`'s `clock:`), so presses and gestures share its time.
    public init(buttons: [String], clock: any LoopClock = SystemLoopClock()) throws(GPIOError) {
        self.buttons = buttons
        self.clock = clock
        do { timer = try clock.makeDeadlineTimer() }
        catch { throw .system(operation: "creating", path: "a deadline timer", errno: error.errno) }
    }

    public var fileDescriptor: Int32 { timer.fd }
    /// One descriptor: the deadline timer, whatever the number of buttons.
    public var descriptors: [Descriptor] { [Descriptor(timer.fd)] }

    private func now() -> UInt64 { clock.monotonic().nanoseconds }

    /// Readable at `ns` (at once if it has passed); nil disarms.
    private func arm(at ns: UInt64?) throws(GPIOError) {
        do { try timer.arm(at: ns.map { MonotonicInstant(nanoseconds: $0) }) }
        catch { throw .system(operation: "arming", path: "a deadline timer", errno: error.errno) }
    }

    /// Presses now and releases `holdMilliseconds` later. A hold of 800 ms or more is a long
    /// press under the default settings. Returns the two edges' instants on the loop's clock
    /// (CLOCK_MONOTONIC in production), as a GPIO line's edges carry them, so a latency can be
    /// measured from the edge that acts.
    @discardableResult
    public func press(button: String, holdMilliseconds: UInt64 = 80) throws(MockButtonError)
        -> (pressNanoseconds: UInt64, releaseNanoseconds: UInt64) {
        guard buttons.contains(button) else { throw .unknownButton(button, known: buttons) }
        let now = self.now(), release = now + holdMilliseconds * 1_000_000
        do {
            try enqueue([
                ButtonEdge(button: button, pressed: true, timestampNanoseconds: now),
                ButtonEdge(button: button, pressed: false, timestampNanoseconds: release),
            ])
        } catch {
            throw .timer(error)
        }
        return (now, release)
    }

    /// The demo's keyboard: a button's first letter presses it briefly, the capital letter holds it
    /// past the long-press time. Returns nil for a key no button starts with (the first button
    /// in `buttons` wins when two share a letter).
    public static func keyPress(for key: Character, buttons: [String],
                                longPressMilliseconds: UInt64 = GestureRecognizer.Settings.defaultLongPressMilliseconds)
        -> (button: String, holdMilliseconds: UInt64)? {
        let lower = Character(key.lowercased())
        guard let button = buttons.first(where: { $0.first == lower }) else { return nil }
        let long = key != lower
        return (button, long ? longPressMilliseconds + 200 : 80)
    }

    /// Queues scripted edges (bounce included); each is delivered once its timestamp is due.
    public func enqueue(_ edges: [ButtonEdge]) throws(GPIOError) {
        let next = pending.withLock { p -> UInt64? in
            p.append(contentsOf: edges)
            p.sort { $0.timestampNanoseconds < $1.timestampNanoseconds }
            return p.first?.timestampNanoseconds
        }
        try arm(at: next)
    }

    /// Edges queued and not yet due.
    public var pendingCount: Int { pending.withLock { $0.count } }

    public func readEdges(from descriptor: Descriptor) throws(GPIOError) -> [ButtonEdge] { try readEdges() }

    public func readEdges() throws(GPIOError) -> [ButtonEdge] {
        timer.clear()
        let now = self.now()
        let (due, next) = pending.withLock { p -> ([ButtonEdge], UInt64?) in
            let split = p.firstIndex { $0.timestampNanoseconds > now } ?? p.count
            let due = Array(p[..<split])
            p.removeFirst(split)
            return (due, p.first?.timestampNanoseconds)
        }
        try arm(at: next)
        return due
    }
}
