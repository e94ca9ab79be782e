import FoundationEssentials
import IsletCore

/// An error on the control socket: a stable snake_case code and a message for people.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String
    public init(_ code: String, _ message: String) { self.code = code; self.message = message }
    public var description: String { "\(code): \(message)" }

    public static func from(_ r: Rejection) -> ProtocolError { ProtocolError(r.code.rawValue, r.message) }
}

/// The operations a client may ask for.
public enum ControlOp: String, Sendable, CaseIterable {
    case start, pause, resume, toggle, reset, end, expand, status, watch, press
    case testPattern = "test_pattern"
}

/// `end`'s dismissal as sent: the instant for `after` is computed when the request is applied.
public enum DismissalRequest: Hashable, Sendable {
    case immediate
    case `default`
    case afterSeconds(Double)

    public func policy(now: Instant) -> DismissalPolicy {
        switch self {
        case .immediate: .immediate
        case .default: .default
        case .afterSeconds(let s): .after(now + (Duration.jsonSeconds(s) ?? .zero))
        }
    }
}

/// `start`'s fields; absent ones fall back to the config's session or the core's defaults.
public struct StartRequest: Hashable, Sendable {
    public var stopwatch = false
    public var seconds: Double?
    public var cycles: Int?
    public var language: String?
    public var title: String?
    public var cycleEndSeconds: Double?
    public var staleAfterSeconds: Double?

    public init() {}

    /// The attributes to start, on top of the configured default session.
    public func attributes(timer: String?, defaults: SessionDefaults) -> ActivityAttributes {
        let cycleEnd = Duration.jsonSeconds(cycleEndSeconds ?? defaults.cycleEndSeconds) ?? .seconds(3)
        let kind: ActivityKind
        if stopwatch {
            kind = .stopwatch
        } else {
            let secs = seconds ?? defaults.minutes * 60
            let n = cycles ?? defaults.cycles
            kind = .countdown(cycle: Duration.jsonSeconds(secs) ?? .zero, cycles: n == 0 ? nil : n)
        }
        return ActivityAttributes(timerID: timer, kind: kind, title: title ?? (seconds == nil ? defaults.title : nil),
                                  cycleEndInterval: cycleEnd,
                                  staleAfter: staleAfterSeconds.flatMap(Duration.jsonSeconds),
                                  language: language ?? defaults.language)
    }
}

/// One parsed request line.
public struct ControlRequest: Hashable, Sendable {
    public var op: ControlOp
    public var timer: String?
    public var start = StartRequest()
    public var dismissal: DismissalRequest = .default
    public var button: String?
    public var holdMilliseconds: Int = 0
    /// `test_pattern`: how long the panel shows it; 0 ends it.
    public var patternSeconds: Int = ControlRequest.defaultPatternSeconds

    public static let defaultPatternSeconds = 30
    public static let maximumPatternSeconds = 3600

    public init(op: ControlOp, timer: String? = nil) { self.op = op; self.timer = timer }

    /// The longest request line accepted; a longer one is answered and its connection closed.
    public static let maximumLineBytes = 16 * 1024

    /// Which fields each op accepts besides `op` and `timer`.
    static func fields(of op: ControlOp) -> Set<String> {
        switch op {
        case .start: ["kind", "seconds", "cycles", "language", "title", "cycle_end_seconds", "stale_after_seconds"]
        case .end: ["dismissal"]
        case .press: ["button", "hold_ms"]
        case .testPattern: ["seconds"]
        case .pause, .resume, .toggle, .reset, .expand, .status, .watch: []
        }
    }

    /// Parses one line (without its newline).
    public static func parse(_ line: [UInt8]) throws(ProtocolError) -> ControlRequest {
        let value: JSONValue
        do { value = try StrictJSON.parse(line) }
        catch { throw ProtocolError("invalid_json", "the line is not valid JSON (\(error)); send one JSON object per line") }
        guard case .object(let o) = value else {
            throw ProtocolError("invalid_request", "a request is a JSON object such as {\"op\":\"status\"}, not \(value.typeName)")
        }
        guard let opValue = o["op"] else { throw ProtocolError("missing_field", "the request has no \"op\"") }
        guard case .string(let opName) = opValue else { throw ProtocolError("invalid_field", "\"op\" must be a string") }
        guard let op = ControlOp(rawValue: opName) else {
            throw ProtocolError("unknown_op", "unknown op \"\(opName)\"; accepted: \(ControlOp.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var r = ControlRequest(op: op)
        // A press is a finger on a button: it acts on the timer its binding names, or the most
        // recently started one, like the physical button; a timer field would be ignored.
        let allowed = fields(of: op).union(op == .press || op == .testPattern ? ["op"] : ["op", "timer"])
        for key in o.keys.sorted() where !allowed.contains(key) {
            throw ProtocolError("unknown_field", "\"\(op.rawValue)\" does not take \"\(key)\"; accepted: \(allowed.sorted().joined(separator: ", "))")
        }

        func string(_ k: String) throws(ProtocolError) -> String? {
            switch o[k] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let v?: throw ProtocolError("invalid_field", "\"\(k)\" must be a string, not \(v.typeName)")
            }
        }
        func number(_ k: String) throws(ProtocolError) -> Double? {
            switch o[k] {
            case nil, .null?: return nil
            case .number(let d)? where d.isFinite: return d
            case .number(let d)?: throw ProtocolError("invalid_field", "\"\(k)\" is out of range (got \(d))")
            case let v?: throw ProtocolError("invalid_field", "\"\(k)\" must be a number, not \(v.typeName)")
            }
        }
        /// A number of seconds the core can hold (a huge one would otherwise turn into zero).
        func seconds(_ k: String) throws(ProtocolError) -> Double? {
            guard let d = try number(k) else { return nil }
            guard Duration.jsonSeconds(d) != nil else { throw ProtocolError("invalid_field", "\"\(k)\" is out of range (got \(d))") }
            return d
        }
        func integer(_ k: String) throws(ProtocolError) -> Int? {
            guard let d = try number(k) else { return nil }
            guard d == d.rounded() else { throw ProtocolError("invalid_field", "\"\(k)\" must be a whole number") }
            guard abs(d) < 1e9 else { throw ProtocolError("invalid_field", "\"\(k)\" is out of range (got \(StrictJSON.plain(d)))") }
            return Int(d)
        }

        r.timer = try string("timer")
        switch op {
        case .start:
            switch try string("kind") {
            case nil, "countdown"?: r.start.stopwatch = false
            case "stopwatch"?: r.start.stopwatch = true
            case let k?: throw ProtocolError("invalid_field", "\"kind\" must be countdown or stopwatch (got \"\(k)\")")
            }
            r.start.seconds = try seconds("seconds")
            r.start.cycles = try integer("cycles")
            if let c = r.start.cycles, c < 0 { throw ProtocolError("invalid_field", "\"cycles\" must be 0 (open-ended) or more") }
            r.start.language = try string("language")
            r.start.title = try string("title")
            r.start.cycleEndSeconds = try seconds("cycle_end_seconds")
            r.start.staleAfterSeconds = try seconds("stale_after_seconds")
            if r.start.stopwatch, r.start.seconds != nil || r.start.cycles != nil {
                throw ProtocolError("invalid_field", "a stopwatch takes no \"seconds\" or \"cycles\"")
            }
        case .end:
            switch o["dismissal"] {
            case nil, .null?, .string("default")?: r.dismissal = .default
            case .string("immediate")?: r.dismissal = .immediate
            case .object(let d)?:
                guard d.count == 1, case .number(let s)? = d["after_seconds"], s >= 0, Duration.jsonSeconds(s) != nil else {
                    throw ProtocolError("invalid_field", "\"dismissal\" object must be {\"after_seconds\": N} with N >= 0")
                }
                r.dismissal = .afterSeconds(s)
            case let v?:
                throw ProtocolError("invalid_field", "\"dismissal\" must be \"immediate\", \"default\" or {\"after_seconds\": N} (got \(v.typeName))")
            }
        case .press:
            guard let b = try string("button"), !b.isEmpty else { throw ProtocolError("missing_field", "\"press\" needs \"button\"") }
            r.button = b
            let hold = try integer("hold_ms") ?? 0
            guard (0...60_000).contains(hold) else { throw ProtocolError("invalid_field", "\"hold_ms\" must be 0 to 60000") }
            r.holdMilliseconds = hold
        case .testPattern:
            let s = try integer("seconds") ?? defaultPatternSeconds
            guard (0...maximumPatternSeconds).contains(s) else {
                throw ProtocolError("invalid_field", "\"seconds\" is out of range: 0 (end the pattern) to \(maximumPatternSeconds)")
            }
            r.patternSeconds = s
        case .pause, .resume, .toggle, .reset, .expand, .status, .watch:
            break
        }
        return r
    }

    /// The request as a JSON line (what isletctl sends).
    public func encodedLine() -> [UInt8] {
        var o: [String: JSONValue] = ["op": .string(op.rawValue)]
        if let timer { o["timer"] = .string(timer) }
        switch op {
        case .start:
            o["kind"] = .string(start.stopwatch ? "stopwatch" : "countdown")
            if let v = start.seconds { o["seconds"] = .number(v) }
            if let v = start.cycles { o["cycles"] = .number(Double(v)) }
            if let v = start.language { o["language"] = .string(v) }
            if let v = start.title { o["title"] = .string(v) }
            if let v = start.cycleEndSeconds { o["cycle_end_seconds"] = .number(v) }
            if let v = start.staleAfterSeconds { o["stale_after_seconds"] = .number(v) }
        case .end:
            switch dismissal {
            case .immediate: o["dismissal"] = .string("immediate")
            case .default: o["dismissal"] = .string("default")
            case .afterSeconds(let s): o["dismissal"] = .object(["after_seconds": .number(s)])
            }
        case .press:
            if let button { o["button"] = .string(button) }
            if holdMilliseconds > 0 { o["hold_ms"] = .number(Double(holdMilliseconds)) }
        case .testPattern:
            o["seconds"] = .number(Double(patternSeconds))
        case .pause, .resume, .toggle, .reset, .expand, .status, .watch:
            break
        }
        return JSONLines.encode(JSONValue.object(o))
    }
}

/// One activity as a response carries it: the core's Codable activity (attributes, content
/// state, instants) plus the time computed at the moment of the answer.
/// One activity as the protocol carries it: the activity itself plus what it shows at `now`
/// (phase, remaining or elapsed seconds, the shown text), which a decoder recomputes.
@dynamicMemberLookup
public struct ActivityReport: Codable, Sendable {
    public var activity: Activity
    public var now: Instant

    package init(activity: Activity, now: Instant) {
        self.activity = activity
        self.now = now
    }

    /// Reads through to the activity (`report.timerID`, `report.phase`).
    public subscript<T>(dynamicMember path: KeyPath<Activity, T>) -> T { activity[keyPath: path] }

    /// The shown extras are derived from the activity; the response's `now` is set by its decoder.
    public init(from decoder: any Decoder) throws {
        activity = try Activity(from: decoder)
        now = Instant(milliseconds: 0)
    }

    enum Extra: String, CodingKey { case timer, phase, remainingSeconds = "remaining_seconds", elapsedSeconds = "elapsed_seconds", shown }

    public func encode(to encoder: any Encoder) throws {
        try activity.encode(to: encoder)
        var c = encoder.container(keyedBy: Extra.self)
        try c.encode(activity.timerID, forKey: .timer)
        try c.encode(activity.phase, forKey: .phase)
        let exact = ShownTime.exact(of: activity, at: now)
        try c.encode(exact.jsonSeconds, forKey: activity.attributes.kind.isStopwatch ? .elapsedSeconds : .remainingSeconds)
        try c.encode(ShownTime.format(ShownTime.seconds(of: activity, at: now)), forKey: .shown)
    }
}

/// The daemon's counters and panel, in `status` answers.
public struct DaemonStatus: Codable, Sendable, Hashable {
    public var pid: Int
    public var version: String
    public var uptimeSeconds: Double
    public var wakeups: Int
    public var frames: Int
    public var busBytes: Int
    public var busErrors: Int
    public var panelPresent: Bool
    public var panelOn: Bool
    public var bus: String
    /// The panel's size, `WxH` (what clients draw their own pictures at).
    public var size: String
    public var presentation: String
    public var clients: Int
    public var storeError: String?
    public var clockBehind: Bool
    /// Times the chime was switched on since start; absent without a chime.
    public var chimePulses: Int?
    /// The emulated panel's visible image (mock bus only): page-packed bytes in hex.
    public var panel: PanelImage?

    package init(pid: Int, version: String, uptimeSeconds: Double, wakeups: Int, frames: Int, busBytes: Int, busErrors: Int, panelPresent: Bool, panelOn: Bool, bus: String, size: String, presentation: String, clients: Int, storeError: String? = nil, clockBehind: Bool, chimePulses: Int? = nil, panel: PanelImage? = nil) {
        self.pid = pid
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.wakeups = wakeups
        self.frames = frames
        self.busBytes = busBytes
        self.busErrors = busErrors
        self.panelPresent = panelPresent
        self.panelOn = panelOn
        self.bus = bus
        self.size = size
        self.presentation = presentation
        self.clients = clients
        self.storeError = storeError
        self.clockBehind = clockBehind
        self.chimePulses = chimePulses
        self.panel = panel
    }

    enum CodingKeys: String, CodingKey {
        case pid, version, uptimeSeconds = "uptime_seconds", wakeups, frames, busBytes = "bus_bytes"
        case busErrors = "bus_errors", panelPresent = "panel_present", panelOn = "panel_on", bus, size, presentation
        case clients, storeError = "store_error", clockBehind = "clock_behind", chimePulses = "chime_pulses", panel
    }
}

public struct PanelImage: Codable, Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// Whether the panel's display is on (a dark panel shows nothing whatever its RAM holds).
    public var on: Bool
    public var pages: String

    public init(width: Int, height: Int, on: Bool, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.on = on
        self.pages = Hex.encode(bytes)
    }

    public var bytes: [UInt8]? { Hex.decode(pages) }
}

package enum Hex {
    package static func encode(_ b: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(b.count * 2)
        for x in b { out.append(digits[Int(x >> 4)]); out.append(digits[Int(x & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    package static func decode(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let hi = v(u[i]), let lo = v(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

/// A response line: one type for both ends (the daemon encodes it, clients decode it).
public struct ControlResponse: Codable, Sendable {
    public var ok: Bool
    public var event: String?
    public var activities: [ActivityReport]?
    public var presentation: String?
    /// The timers the panel shows, left to right: one when compact or expanded, two when
    /// minimal, none when off. With `presentation` it is the daemon's scene, so a client draws
    /// what the pill shows without deciding a presentation of its own.
    public var shownTimers: [String]?
    public var status: DaemonStatus?
    public var error: ProtocolError?
    /// The daemon's timeline at the answer: clients that tick on their own correct by it.
    public var now: Instant?

    package init(ok: Bool, event: String? = nil, activities: [ActivityReport]? = nil, presentation: String? = nil, shownTimers: [String]? = nil, status: DaemonStatus? = nil, error: ProtocolError? = nil, now: Instant? = nil) {
        self.ok = ok
        self.event = event
        self.activities = activities
        self.presentation = presentation
        self.shownTimers = shownTimers
        self.status = status
        self.error = error
        self.now = now
    }

    enum CodingKeys: String, CodingKey { case ok, event, activities, presentation, shownTimers = "shown_timers", status, error, now }
    enum ErrorKeys: String, CodingKey { case code, message }

    public static func failure(_ e: ProtocolError) -> ControlResponse {
        ControlResponse(ok: false, event: nil, activities: nil, presentation: nil, status: nil, error: e)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ok = try c.decode(Bool.self, forKey: .ok)
        event = try c.decodeIfPresent(String.self, forKey: .event)
        presentation = try c.decodeIfPresent(String.self, forKey: .presentation)
        shownTimers = try c.decodeIfPresent([String].self, forKey: .shownTimers)
        status = try c.decodeIfPresent(DaemonStatus.self, forKey: .status)
        now = try c.decodeIfPresent(String.self, forKey: .now).flatMap(ISO8601.parse)
        let at = now ?? Instant(milliseconds: 0)
        activities = try c.decodeIfPresent([ActivityReport].self, forKey: .activities)?.map { var r = $0; r.now = at; return r }
        if c.contains(.error) {
            let e = try c.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            error = ProtocolError(try e.decode(String.self, forKey: .code), try e.decode(String.self, forKey: .message))
        } else {
            error = nil
        }
    }

    /// The activities without their shown extras.
    public var activityList: [Activity]? { activities?.map(\.activity) }

    /// The activities the panel shows, in the order drawn (`shown_timers`); with `timer`, only
    /// that timer's, and nothing when the panel does not show it.
    public func shownActivities(timer: String? = nil) -> [Activity] {
        guard let ids = shownTimers, let list = activities else { return [] }
        return ids.compactMap { id in
            guard timer == nil || id == timer else { return nil }
            return list.first { $0.activity.timerID == id }?.activity
        }
    }

    /// How far the daemon's timeline is ahead of this process's wall clock, in ms.
    public func skewMilliseconds(receivedAt local: Instant) -> Int64 {
        guard let now else { return 0 }
        return (now - local).wholeMilliseconds
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ok, forKey: .ok)
        try c.encodeIfPresent(event, forKey: .event)
        try c.encodeIfPresent(activities, forKey: .activities)
        try c.encodeIfPresent(presentation, forKey: .presentation)
        try c.encodeIfPresent(shownTimers, forKey: .shownTimers)
        try c.encodeIfPresent(status, forKey: .status)
        try c.encodeIfPresent(now.map(ISO8601.format), forKey: .now)
        if let error {
            var e = c.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            try e.encode(error.code, forKey: .code)
            try e.encode(error.message, forKey: .message)
        }
    }
}

package enum JSONLines {
    /// One value as a line; an encoding failure becomes an internal error line, never a crash.
    package static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let d = try? encoder.encode(value) { return Array(d) + [10] }
        return Array(#"{"error":{"code":"internal","message":"the answer could not be encoded"},"ok":false}"#.utf8) + [10]
    }
}
