import FoundationEssentials
import IsletCore

// A request going out (isletctl's JSON line) and a request coming in as the core's intent: the
// two directions beside the parser in ControlProtocol.swift.
extension ControlRequest {
    /// The request as a JSON line (what isletctl sends).
    public func encodedLine() -> [UInt8] {
        var o: [String: JSONValue] = ["op": .string(op.rawValue)]
        if let timer { o["timer"] = .string(timer) }
        if let requestID { o["request_id"] = .string(requestID) }
        switch op {
        case .verb(let verb):
            switch verb.argument {
            case .session:
                o["kind"] = .string(start.until != nil ? "until" : start.stopwatch ? "stopwatch" : "countdown")
                if let p = start.until {
                    if let t = p.endsAt { o["ends_at"] = .string(ISO8601.format(t)) }
                    if let v = p.progress { o["progress"] = .number(v) }
                    if let v = p.text { o["text"] = .string(v) }
                }
                switch start.icon {
                case nil: break
                case .named(let n)?: o["icon"] = .string(n)
                case .custom(let b)?: o["icon_data"] = .string(b)
                }
                if let v = start.relevance { o["relevance"] = .number(v) }
                if let v = start.seconds { o["seconds"] = .number(v) }
                if let v = start.cycles { o["cycles"] = .number(Double(v)) }
                if let v = start.language { o["language"] = .string(v) }
                if let v = start.title { o["title"] = .string(v) }
                if let v = start.cycleEndSeconds { o["cycle_end_seconds"] = .number(v) }
                if let v = start.staleAfterSeconds { o["stale_after_seconds"] = .number(v) }
            case .dismissal:
                switch dismissal {
                case .immediate: o["dismissal"] = .string("immediate")
                case .default: o["dismissal"] = .string("default")
                case .afterSeconds(let s): o["dismissal"] = .object(["after_seconds": .number(s)])
                }
            case .content:
                func put<T>(_ k: String, _ f: ContentUpdate.Field<T>, _ json: (T) -> JSONValue) {
                    switch f {
                    case .keep: break
                    case .set(let v): o[k] = json(v)
                    case .clear: o[k] = .null
                    }
                }
                put("ends_at", update.endsAt) { .string(ISO8601.format($0)) }
                put("progress", update.progress) { .number($0) }
                put("text", update.text) { .string($0) }
                if update.alert { o["alert"] = .bool(true) }
            case .none:
                break
            }
        case .press:
            if let button { o["button"] = .string(button) }
            if holdMilliseconds > 0 { o["hold_ms"] = .number(Double(holdMilliseconds)) }
        case .testPattern:
            o["seconds"] = .number(Double(patternSeconds))
        case .brightness:
            if let c = brightness.contrast { o["contrast"] = .number(Double(c)) }
            if let n = brightness.night { o["night"] = .bool(n) }
        case .settings, .settingsSet, .settingsReset, .settingsExport, .settingsImport:
            settings.encode(into: &o)
        case .status, .watch:
            break
        }
        return JSONLines.encode(JSONValue.object(o))
    }
}

extension ControlRequest {
    /// The core's intent for this request of `verb` (its op): `session` is the config's, under
    /// the request's own fields for a start; an end's dismissal is counted from `now`.
    public func intent(of verb: Verb, session: SessionDefaults, now: Instant) -> Intent {
        let attributes: ActivityAttributes
        switch verb.argument {
        case .session:
            attributes = start.attributes(timer: timer, defaults: session)
        case .dismissal, .none, .content:
            // A toggle from idle starts the config's session, for this request's timer.
            var a = session.attributes
            if let timer { a.timerID = timer }
            attributes = a
        }
        return Intent(verb, session: attributes, dismissal: dismissal.policy(now: now), update: update)
    }
}
