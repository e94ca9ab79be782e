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
    /// `kind: "until"`: the content it starts with (its `ends_at`, `progress`, `text`).
    public var until: PushedContent?
    public var icon: ActivityIcon?
    public var relevance: Double?
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
        if let until {
            kind = .until(until)
        } else if stopwatch {
            kind = .stopwatch
        } else {
            let secs = seconds ?? defaults.minutes * 60
            let n = cycles ?? defaults.cycles
            kind = .countdown(cycle: Duration.jsonSeconds(secs) ?? .zero, cycles: n == 0 ? nil : n)
        }
        // A pushed activity is named by its source; the config's session title is the timer's.
        let title = title ?? (seconds == nil && until == nil ? defaults.title : nil)
        return ActivityAttributes(timerID: timer, kind: kind, title: title,
                                  cycleEndInterval: cycleEnd,
                                  staleAfter: staleAfterSeconds.flatMap(Duration.jsonSeconds)
                                      // A person's session default; an `until` activity's source says its own.
                                      ?? (until == nil ? defaults.staleAfterSeconds.flatMap(Duration.jsonSeconds) : nil),
                                  language: language ?? defaults.language, icon: icon,
                                  relevance: relevance ?? (until == nil ? defaults.relevance : nil))
    }
}

/// `brightness`'s fields: at least one; both: that mode at that contrast.
public struct BrightnessRequest: Hashable, Sendable {
    /// 81h, 0…255.
    public var contrast: UInt8?
    /// Night mode on (its contrast and `night_idle`) or off, until the next boundary.
    public var night: Bool?
    public init(contrast: UInt8? = nil, night: Bool? = nil) {
        self.contrast = contrast
        self.night = night
    }
}

/// One parsed request line.
public struct ControlRequest: Hashable, Sendable {
    public var op: ControlOp
    public var timer: String?
    public var start = StartRequest()
    public var dismissal: DismissalRequest = .default
    /// `update`'s new content.
    public var update = ContentUpdate()
    public var button: String?
    public var holdMilliseconds: Int = 0
    /// `test_pattern`: how long the panel shows it; 0 ends it.
    public var patternSeconds: Int = ControlRequest.defaultPatternSeconds
    /// `brightness`: the panel's contrast, night or day, until the next boundary of the night.
    public var brightness = BrightnessRequest()
    /// The settings ops' key, value or backup (SettingsProtocol.swift).
    public var settings = SettingsRequest()
    /// The client's name for this request, echoed in its answer (MQTT clients match answers
    /// by it; a change with a request id is done at most once over MQTT).
    public var requestID: String?

    public static let defaultPatternSeconds = 30
    public static let maximumPatternSeconds = 3600

    public init(op: ControlOp, timer: String? = nil) { self.op = op; self.timer = timer }

    /// The longest request line accepted; a longer one is answered and its connection closed.
    public static let maximumLineBytes = 16 * 1024
    public static let maximumRequestIDLength = 128
    public static let maximumRequestIDBytes = TextRule.maximumBytes(characters: maximumRequestIDLength)

    /// The request id of a line that may not parse as a request, so an error answer still
    /// carries it; nil when the line is not a JSON object with a usable one.
    public static func requestID(in line: [UInt8]) -> String? { read(line).requestID }

    static func isValidRequestID(_ id: String) -> Bool {
        // Bytes first (`TextRule`): one character may carry thousands of marks.
        !id.isEmpty && id.utf8.count <= maximumRequestIDBytes && id.count <= maximumRequestIDLength
            && !id.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Which fields each op accepts besides `op` and `timer`.
    static func fields(of op: ControlOp) -> Set<String> {
        switch op {
        case .verb(let verb): fields(of: verb.argument)
        case .press: ["button", "hold_ms"]
        case .testPattern: ["seconds"]
        case .brightness: ["contrast", "night"]
        case .status, .watch: []
        case .settings, .settingsSet, .settingsReset, .settingsExport, .settingsImport: SettingsRequest.fields(of: op)
        }
    }

    static func fields(of argument: Verb.Argument) -> Set<String> {
        switch argument {
        case .session: ["kind", "seconds", "cycles", "language", "title", "cycle_end_seconds", "stale_after_seconds",
                        "ends_at", "progress", "text", "icon", "icon_data", "relevance"]
        case .dismissal: ["dismissal"]
        case .content: ["ends_at", "progress", "text", "alert"]
        case .none: []
        }
    }

    /// Parses one line (without its newline).
    public static func parse(_ line: [UInt8]) throws(ProtocolError) -> ControlRequest {
        try read(line).request.get()
    }

    /// One line read once: the request or why not, and the request id the line carries when
    /// it is a JSON object with a usable one (an error's answer still carries it).
    public static func read(_ line: [UInt8]) -> (requestID: String?, request: Result<ControlRequest, ProtocolError>) {
        let value: JSONValue
        do { value = try StrictJSON.parse(line) }
        catch { return (nil, .failure(ProtocolError("invalid_json", "the line is not valid JSON (\(error)); send one JSON object per line"))) }
        var id: String?
        if case .object(let o) = value, case .string(let s)? = o["request_id"], isValidRequestID(s) { id = s }
        do { return (id, .success(try parse(value))) }
        catch { return (id, .failure(error)) }
    }

    private static func parse(_ value: JSONValue) throws(ProtocolError) -> ControlRequest {
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
        let allowed = fields(of: op).union(op == .press || op == .testPattern || op == .brightness || op.isSettings ? ["op", "request_id"] : ["op", "timer", "request_id"])
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
        /// An RFC 3339 instant (`2026-12-06T14:05:00Z`, `2026-12-06T15:05:00+01:00`) or seconds
        /// since the epoch (rounded to the nearest millisecond).
        func instant(_ k: String) throws(ProtocolError) -> Instant? {
            switch o[k] {
            case nil, .null?: return nil
            case .string(let s)?:
                guard let t = ISO8601.parse(s), Instant.validRange.contains(t) else {
                    throw ProtocolError("invalid_field", "\"\(k)\" must be an RFC 3339 instant such as 2026-12-06T14:05:00Z or 2026-12-06T15:05:00+01:00 (got \"\(TextRule.excerpt(s, bytes: 40))\")")
                }
                return t
            case .number(let d)?:
                guard d.isFinite, d >= 0, d < 7_258_118_400 else {
                    throw ProtocolError("invalid_field", "\"\(k)\" in seconds since 1970 must be \(Instant.validRangeRule)")
                }
                return Instant(milliseconds: Int64((d * 1000).rounded()))
            case let v?: throw ProtocolError("invalid_field", "\"\(k)\" must be an ISO-8601 instant or a number of seconds, not \(v.typeName)")
            }
        }
        func integer(_ k: String) throws(ProtocolError) -> Int? {
            guard let d = try number(k) else { return nil }
            guard d == d.rounded() else { throw ProtocolError("invalid_field", "\"\(k)\" must be a whole number") }
            guard abs(d) < 1e9 else { throw ProtocolError("invalid_field", "\"\(k)\" is out of range (got \(StrictJSON.plain(d)))") }
            return Int(d)
        }

        r.timer = try string("timer")
        if let id = try string("request_id") {
            guard isValidRequestID(id) else {
                throw ProtocolError("invalid_field", "\"request_id\" must be 1 to \(maximumRequestIDLength) characters (\(maximumRequestIDBytes) bytes of UTF-8) without control characters")
            }
            r.requestID = id
        }
        switch op {
        case .verb(let verb):
            switch verb.argument {
            case .session:
                let kind = try string("kind") ?? "countdown"
                switch kind {
                case "countdown": r.start.stopwatch = false
                case "stopwatch": r.start.stopwatch = true
                case "until":
                    r.start.until = PushedContent(endsAt: try instant("ends_at"), progress: try number("progress"), text: try string("text"))
                default: throw ProtocolError("invalid_field", "\"kind\" must be countdown, stopwatch or until (got \"\(kind)\")")
                }
                if kind != "until", let k = ["ends_at", "progress", "text"].first(where: { o[$0] != nil }) {
                    throw ProtocolError("invalid_field", "\"\(k)\" belongs to kind until (this start is a \(kind))")
                }
                switch (try string("icon"), try string("icon_data")) {
                case (nil, nil): break
                case (let n?, nil): r.start.icon = .named(n)
                case (nil, let d?): r.start.icon = .custom(base64: d)
                case (.some, .some): throw ProtocolError("invalid_field", "send \"icon\" (a name) or \"icon_data\" (an image), not both")
                }
                if let v = r.start.icon?.violation() { throw ProtocolError("invalid_field", v.message) }
                r.start.relevance = try number("relevance")
                r.start.seconds = try seconds("seconds")
                r.start.cycles = try integer("cycles")
                if let c = r.start.cycles, c < 0 { throw ProtocolError("invalid_field", "\"cycles\" must be 0 (open-ended) or more") }
                r.start.language = try string("language")
                r.start.title = try string("title")
                r.start.cycleEndSeconds = try seconds("cycle_end_seconds")
                r.start.staleAfterSeconds = try seconds("stale_after_seconds")
                if r.start.stopwatch || r.start.until != nil, r.start.seconds != nil || r.start.cycles != nil {
                    throw ProtocolError("invalid_field", "a \(kind) takes no \"seconds\" or \"cycles\"")
                }
            case .content:
                func field<T>(_ k: String, _ read: (String) throws(ProtocolError) -> T?) throws(ProtocolError) -> ContentUpdate.Field<T> {
                    switch o[k] {
                    case nil: return .keep
                    case .null?: return .clear
                    case _?: return try read(k).map(ContentUpdate.Field.set) ?? .clear
                    }
                }
                r.update.endsAt = try field("ends_at", instant)
                r.update.progress = try field("progress", number)
                r.update.text = try field("text", string)
                switch o["alert"] {
                case nil, .null?, .bool(false)?: r.update.alert = false
                case .bool(true)?: r.update.alert = true
                case let v?: throw ProtocolError("invalid_field", "\"alert\" must be true or false, not \(v.typeName)")
                }

            case .dismissal:
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
            case .none:
                break
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
        case .brightness:
            if let c = try integer("contrast") {
                guard (0...255).contains(c) else { throw ProtocolError("invalid_field", "\"contrast\" must be 0 to 255 (81h, the panel's contrast)") }
                r.brightness.contrast = UInt8(c)
            }
            switch o["night"] {
            case nil, .null?: break
            case .bool(let b)?: r.brightness.night = b
            case let v?: throw ProtocolError("invalid_field", "\"night\" must be true or false, not \(v.typeName)")
            }
            guard r.brightness.contrast != nil || r.brightness.night != nil else {
                throw ProtocolError("missing_field", "\"brightness\" needs \"contrast\" (0 to 255) or \"night\" (true or false)")
            }
        case .settings, .settingsSet, .settingsReset, .settingsExport, .settingsImport:
            r.settings = try SettingsRequest.read(op, o)
        case .status, .watch:
            break
        }
        return r
    }
}
