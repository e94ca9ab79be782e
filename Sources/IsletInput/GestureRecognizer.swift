/// What a person did with a button, after debouncing.
public enum Gesture: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A press. Fires on the first edge of the press, unless the button also has a long press
    /// (then at release, when the press stayed shorter than the long-press time).
    case press
    /// Held for the long-press time; fires while still held.
    case longPress = "long_press"
    /// Let go (after a press or a long press).
    case release

    public var description: String { rawValue }
}

/// One recognized gesture of a named button, at a kernel monotonic instant.
public struct GestureEvent: Hashable, Sendable, CustomStringConvertible {
    public var button: String
    public var gesture: Gesture
    public var timestampNanoseconds: UInt64
    public init(button: String, gesture: Gesture, timestampNanoseconds: UInt64) {
        self.button = button
        self.gesture = gesture
        self.timestampNanoseconds = timestampNanoseconds
    }
    public var description: String { "\(button) \(gesture) @\(timestampNanoseconds)ns" }
}

/// Turns timestamped edges into gestures: pure, no clock reads, time arrives with the edges and
/// through `advance(to:)`.
///
/// Debounce acts on the first edge: a level change is taken at once (the press feels instant)
/// and every edge in the `debounce` window after it is bounce. At the window's end the last
/// level seen wins: if it differs (a tap shorter than the window, or a real change hidden in
/// the bounce), that change is taken then. A long press is due `longPress` after the press was
/// taken; the host wakes for it at `nextDeadline` and calls `advance(to:)`.
public struct GestureRecognizer: Hashable, Sendable {
    public struct Settings: Hashable, Sendable {
        public var debounceNanoseconds: UInt64
        public var longPressNanoseconds: UInt64
        /// Buttons whose `press` waits for the release, because a long press of the same button
        /// means something else (so a long press never also fires the short press's action).
        public var pressOnRelease: Set<String>

        public static let defaultDebounceMilliseconds: UInt64 = 30
        public static let defaultLongPressMilliseconds: UInt64 = 800

        public init(debounceMilliseconds: UInt64 = Settings.defaultDebounceMilliseconds,
                    longPressMilliseconds: UInt64 = Settings.defaultLongPressMilliseconds,
                    pressOnRelease: Set<String> = []) {
            debounceNanoseconds = debounceMilliseconds * 1_000_000
            longPressNanoseconds = longPressMilliseconds * 1_000_000
            self.pressOnRelease = pressOnRelease
        }
    }

    struct ButtonState: Hashable, Sendable {
        /// The debounced level.
        var down = false
        /// The last level an edge reported, bounce included.
        var raw = false
        /// Edges before this instant are bounce of the last accepted change.
        var settleAt: UInt64?
        /// When the last change was taken: an edge stamped less than a window after it is
        /// bounce, even when it is read after the window closed (below).
        var takenAt: UInt64?
        var longPressAt: UInt64?
    }

    public var settings: Settings
    var states: [String: ButtonState] = [:]
    /// The latest instant seen; time never runs backwards inside the recognizer.
    public private(set) var now: UInt64 = 0

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// True while the button is (debounced) held.
    public func isHeld(_ button: String) -> Bool { states[button]?.down ?? false }

    /// The earliest instant at which `advance(to:)` has something to do, if any.
    public var nextDeadline: UInt64? {
        states.values.compactMap(Self.deadline(of:)).min()
    }

    /// Feeds edges in order; returns the gestures they (and any deadline passed on the way) make.
    public mutating func feed(_ edges: [ButtonEdge]) -> [GestureEvent] {
        edges.flatMap { feed($0) }
    }

    public mutating func feed(_ edge: ButtonEdge) -> [GestureEvent] {
        // Deadlines that fell before this edge happened first.
        var out = advance(to: edge.timestampNanoseconds)
        let t = now
        var s = states[edge.button] ?? ButtonState()
        s.raw = edge.pressed
        if let settle = s.settleAt, t < settle {
            // Bounce: remembered, judged when the window closes.
            states[edge.button] = s
            return out
        }
        if let taken = s.takenAt, edge.timestampNanoseconds < taken + settings.debounceNanoseconds {
            // Bounce read late: its kernel timestamp is inside the window, but a slow loop turn
            // read it after the host had advanced past the window's end (seen on an emulated
            // arm64 guest: a resume bounced into a second toggle). Judged again a window after
            // the edge, or at once if that has passed, so the last level still wins.
            s.settleAt = max(t, edge.timestampNanoseconds + settings.debounceNanoseconds)
            states[edge.button] = s
            return out
        }
        s.settleAt = nil
        if edge.pressed != s.down {
            out += take(edge.pressed, button: edge.button, state: &s, at: t)
        }
        states[edge.button] = s
        return out
    }

    /// Processes every deadline up to `instant` in time order.
    public mutating func advance(to instant: UInt64) -> [GestureEvent] {
        var out: [GestureEvent] = []
        // Each step clears or moves a deadline past the one it handled; the bound is a guard.
        for _ in 0..<10_000 {
            guard let (button, at) = states.compactMap({ b, s in Self.deadline(of: s).map { (b, $0) } })
                .filter({ $0.1 <= instant })
                .min(by: { ($0.1, $0.0) < ($1.1, $1.0) }),
                var s = states[button] else { break }
            now = max(now, at)
            if let settle = s.settleAt, settle == at, s.raw != s.down {
                s.settleAt = nil
                out += take(s.raw, button: button, state: &s, at: at)
            } else if let long = s.longPressAt, long == at {
                s.longPressAt = nil
                out.append(GestureEvent(button: button, gesture: .longPress, timestampNanoseconds: at))
            } else {
                s.settleAt = nil
            }
            states[button] = s
        }
        now = max(now, instant)
        return out
    }

    private static func deadline(of s: ButtonState) -> UInt64? {
        let settle = s.raw != s.down ? s.settleAt : nil
        switch (settle, s.longPressAt) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    /// Accepts a debounced change at `t` and says what it means.
    private func take(_ pressed: Bool, button: String, state s: inout ButtonState, at t: UInt64) -> [GestureEvent] {
        s.down = pressed
        s.settleAt = t + settings.debounceNanoseconds
        s.takenAt = t
        let deferred = settings.pressOnRelease.contains(button)
        if pressed {
            s.longPressAt = t + settings.longPressNanoseconds
            return deferred ? [] : [GestureEvent(button: button, gesture: .press, timestampNanoseconds: t)]
        }
        // A pending long press means it never fired: this was a short press.
        let wasShort = s.longPressAt != nil
        s.longPressAt = nil
        var out: [GestureEvent] = []
        if deferred && wasShort { out.append(GestureEvent(button: button, gesture: .press, timestampNanoseconds: t)) }
        out.append(GestureEvent(button: button, gesture: .release, timestampNanoseconds: t))
        return out
    }
}
