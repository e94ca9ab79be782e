import FoundationEssentials
import IsletCore
import IsletFrame

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
        switch activity.attributes.kind {
        case .stopwatch: try c.encode(exact.jsonSeconds, forKey: .elapsedSeconds)
        case .countdown: try c.encode(exact.jsonSeconds, forKey: .remainingSeconds)
        case .until(let initial):
            let pushed = activity.content.pushed ?? initial
            guard pushed.endsAt != nil || activity.phase != .running else {
                // No end from its source: no time left to tell. What the glass shows instead is
                // the progress (rounded down, as drawn), else nothing.
                try c.encode(pushed.progress.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? "", forKey: .shown)
                return
            }
            try c.encode(exact.jsonSeconds, forKey: .remainingSeconds)
        }
        try c.encode(ShownTime.format(ShownTime.seconds(of: activity, at: now)), forKey: .shown)
    }
}

/// The MQTT bridge's link, as `status` reports it (never a secret).
public struct MQTTStatus: Codable, Sendable, Hashable {
    /// `connected`, `connecting` or `refused`.
    public var state: String
    public var since: Instant
    public var broker: String
    public var clientID: String
    public var topicPrefix: String
    /// `refused`: the broker's reason.
    public var reason: String?
    public var lastError: String?
    /// Connection attempts since the last success.
    public var attempts: Int
    /// Commands not done because they came faster than the rate limit (docs/MQTT.md "Bounds").
    public var commandsDropped: Int
    /// Messages not taken because more were queued than the bound (a flood).
    public var messagesDropped: Int

    package init(state: String, since: Instant, broker: String, clientID: String, topicPrefix: String, reason: String?, lastError: String?, attempts: Int,
                 commandsDropped: Int = 0, messagesDropped: Int = 0) {
        self.commandsDropped = commandsDropped
        self.messagesDropped = messagesDropped
        self.state = state
        self.since = since
        self.broker = broker
        self.clientID = clientID
        self.topicPrefix = topicPrefix
        self.reason = reason
        self.lastError = lastError
        self.attempts = attempts
    }

    enum CodingKeys: String, CodingKey {
        case state, since, broker, clientID = "client_id", topicPrefix = "topic_prefix", reason, lastError = "last_error", attempts
        case commandsDropped = "commands_dropped", messagesDropped = "messages_dropped"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(String.self, forKey: .state)
        since = try c.decodeIfPresent(String.self, forKey: .since).flatMap(ISO8601.parse) ?? Instant(milliseconds: 0)
        broker = try c.decode(String.self, forKey: .broker)
        clientID = try c.decode(String.self, forKey: .clientID)
        topicPrefix = try c.decode(String.self, forKey: .topicPrefix)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
        attempts = try c.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
        commandsDropped = try c.decodeIfPresent(Int.self, forKey: .commandsDropped) ?? 0
        messagesDropped = try c.decodeIfPresent(Int.self, forKey: .messagesDropped) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encode(ISO8601.format(since), forKey: .since)
        try c.encode(broker, forKey: .broker)
        try c.encode(clientID, forKey: .clientID)
        try c.encode(topicPrefix, forKey: .topicPrefix)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(commandsDropped, forKey: .commandsDropped)
        try c.encode(messagesDropped, forKey: .messagesDropped)
    }

    /// One line for people: `mqtt: connected since … to … as …`.
    public var line: String {
        var s = "mqtt: \(state == "refused" ? "refused: \(reason ?? "by the broker")" : state) since \(ISO8601.format(since)) (\(broker) as \(clientID), topics \(topicPrefix)/…"
        if state != "connected", attempts > 0 { s += "; attempt \(attempts)" }
        if let lastError { s += "; last error: \(lastError)" }
        if commandsDropped > 0 { s += "; \(commandsDropped) commands dropped (rate limit)" }
        if messagesDropped > 0 { s += "; \(messagesDropped) messages dropped (flood)" }
        return s + ")"
    }
}

/// The sync group (docs/SYNC.md), as `status` reports it.
public struct SyncStatus: Codable, Sendable, Hashable {
    public var group: String
    public var device: String
    /// The group's retained state was taken since the start (the first frame waited for it).
    public var joined: Bool
    /// Why the first frame did not wait for the group, when it did not.
    public var joinNote: String?
    /// Peers heard in the last 90 s, by name.
    public var peers: [String]
    /// `alone` (no peer heard), `agrees`, or `off`: this display's wall clock disagrees with most
    /// of its peers by more than the bound, and its activities show stale.
    public var clock: String
    /// With `off`: the peers' clocks minus ours (the median of the disagreeing ones), and who.
    public var clockOffsetSeconds: Double?
    public var clockDisagrees: [String]?
    public var skewBoundSeconds: Double
    /// Records held (live ones and tombstones).
    public var records: Int
    /// The last press of this display replaced by a later one from another (a partition's conflict).
    public var lastConflict: String?

    package init(group: String, device: String, joined: Bool, joinNote: String?, peers: [String], clock: String,
                 clockOffsetSeconds: Double?, clockDisagrees: [String]?, skewBoundSeconds: Double, records: Int, lastConflict: String?) {
        self.group = group
        self.device = device
        self.joined = joined
        self.joinNote = joinNote
        self.peers = peers
        self.clock = clock
        self.clockOffsetSeconds = clockOffsetSeconds
        self.clockDisagrees = clockDisagrees
        self.skewBoundSeconds = skewBoundSeconds
        self.records = records
        self.lastConflict = lastConflict
    }

    enum CodingKeys: String, CodingKey {
        case group, device, joined, joinNote = "join_note", peers, clock, clockOffsetSeconds = "clock_offset_seconds"
        case clockDisagrees = "clock_disagrees", skewBoundSeconds = "skew_bound_seconds", records, lastConflict = "last_conflict"
    }

    /// One line for people: `sync: group … as …, peers …; clock …`.
    public var line: String {
        var s = "sync: group \(group) as \(device), \(joined ? "joined" : "not joined yet")"
        s += peers.isEmpty ? ", no peer heard" : ", peers \(peers.joined(separator: ", "))"
        switch clock {
        case "off":
            // The offset is theirs minus ours: negative when this clock is ahead.
            let o = clockOffsetSeconds ?? 0
            let by = StrictJSON.plain((abs(o) * 10).rounded() / 10)
            s += "; this clock is \(by) s \(o < 0 ? "ahead of" : "behind") \((clockDisagrees ?? []).joined(separator: ", ")) (bound \(StrictJSON.plain(skewBoundSeconds)) s): times are shown stale"
        case "agrees": s += "; the clock agrees with the group"
        default: break
        }
        if let joinNote { s += "; \(joinNote)" }
        if let lastConflict { s += "; last conflict: \(lastConflict)" }
        return s
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
    /// `press` only: when the mock button's press and release edges are due, in microseconds of
    /// CLOCK_MONOTONIC (the clock GPIO edges carry; µs so a JSON double holds them exactly for
    /// centuries of uptime). A latency is measured from the edge that acts, not from the request.
    public var pressMonotonicMicroseconds: UInt64?
    public var releaseMonotonicMicroseconds: UInt64?
    /// The request's `request_id`, when it had one.
    public var requestID: String?
    /// `change` only: what a person should notice from this turn (a completion, an alert).
    public var alerts: [ChangeAlert]?
    /// The settings ops' answer (SettingsProtocol.swift).
    public var settings: SettingsReport?

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

    enum CodingKeys: String, CodingKey {
        case ok, event, activities, presentation, shownTimers = "shown_timers", status, error, now
        case pressMonotonicMicroseconds = "press_monotonic_us", releaseMonotonicMicroseconds = "release_monotonic_us"
        case requestID = "request_id", alerts, settings
    }
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
        pressMonotonicMicroseconds = try c.decodeIfPresent(UInt64.self, forKey: .pressMonotonicMicroseconds)
        releaseMonotonicMicroseconds = try c.decodeIfPresent(UInt64.self, forKey: .releaseMonotonicMicroseconds)
        requestID = try c.decodeIfPresent(String.self, forKey: .requestID)
        alerts = try c.decodeIfPresent([ChangeAlert].self, forKey: .alerts)
        settings = try c.decodeIfPresent(SettingsReport.self, forKey: .settings)
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
        try c.encodeIfPresent(pressMonotonicMicroseconds, forKey: .pressMonotonicMicroseconds)
        try c.encodeIfPresent(releaseMonotonicMicroseconds, forKey: .releaseMonotonicMicroseconds)
        try c.encodeIfPresent(requestID, forKey: .requestID)
        try c.encodeIfPresent(alerts, forKey: .alerts)
        try c.encodeIfPresent(settings, forKey: .settings)
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
