import IsletCore
import IsletSystem
import IsletProtocol

/// isletctl's options for pushed activities: `start --until …` (kind until) and `update`.
enum UntilOptions {
    /// Reads `--until WHEN`: `HH:MM[:SS]` (local time, the next such time), `+MINUTES` (from
    /// now), or an RFC 3339 instant (`2026-12-06T14:05:00Z`, `2026-12-06T15:05:00+01:00`), as the
    /// daemon reads one.
    static func instant(_ text: String, now: Instant) -> Instant? {
        if text.hasPrefix("+") {
            guard let m = Double(text.dropFirst()), m.isFinite, m >= 0, m <= 24 * 60 else { return nil }
            return now + .milliseconds(Int64((m * 60_000).rounded()))
        }
        if let t = ISO8601.parse(text) { return t }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
              let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        let s = parts.count == 3 ? Int(parts[2]) : 0
        guard let s, let at = LocalClock.nextOccurrence(hour: h, minute: m, second: s, after: now.milliseconds / 1000) else { return nil }
        return Instant(milliseconds: at * 1000)
    }

    /// One option of `start --until` or `update`; false when `flag` is not one of them.
    static func take(_ flag: String, op: ControlOp, value: () throws(CtlMain.Usage) -> String,
                     into r: inout ControlRequest, now: Instant) throws(CtlMain.Usage) -> Bool {
        let isStart = op == .verb(.start), isUpdate = op == .verb(.update)
        func untilOnly() throws(CtlMain.Usage) {
            guard isUpdate || (isStart && r.start.until != nil) else {
                throw CtlMain.Usage(message: "\(flag) belongs to start --until or update (give --until first)")
            }
        }
        func when(_ v: String) throws(CtlMain.Usage) -> Instant {
            guard let t = instant(v, now: now) else {
                throw CtlMain.Usage(message: "\(flag) takes HH:MM (local time), +MINUTES or an RFC 3339 instant such as 2026-12-06T14:05:00Z or 2026-12-06T15:05:00+01:00 (got \"\(v)\")")
            }
            return t
        }
        func fraction(_ v: String) throws(CtlMain.Usage) -> Double {
            // "40%" or "0.4".
            let percent = v.hasSuffix("%")
            guard let d = Double(percent ? String(v.dropLast()) : v), d.isFinite else {
                throw CtlMain.Usage(message: "--progress takes 0 to 1 or a percentage such as 40% (got \"\(v)\")")
            }
            return percent ? d / 100 : d
        }
        switch flag {
        case "--until":
            if isStart {
                guard !r.start.stopwatch, r.start.seconds == nil, r.start.cycles == nil else {
                    throw CtlMain.Usage(message: "--until takes no --stopwatch, --minutes, --seconds or --cycles")
                }
                var p = r.start.until ?? PushedContent()
                p.endsAt = try when(try value())
                r.start.until = p
            } else if isUpdate {
                r.update.endsAt = .set(try when(try value()))
            } else {
                throw CtlMain.Usage(message: "\(op.rawValue) does not take --until")
            }
        case "--progress":
            try untilOnly()
            let v = try fraction(try value())
            if isUpdate { r.update.progress = .set(v) } else { r.start.until?.progress = v }
        case "--text":
            try untilOnly()
            let v = try value()
            if isUpdate { r.update.text = .set(v) } else { r.start.until?.text = v }
        case "--clear":
            guard isUpdate else { throw CtlMain.Usage(message: "\(op.rawValue) does not take --clear") }
            let field = try value()
            switch field {
            case "until", "ends_at": r.update.endsAt = .clear
            case "progress": r.update.progress = .clear
            case "text": r.update.text = .clear
            default: throw CtlMain.Usage(message: "--clear takes until, progress or text (got \"\(field)\")")
            }
        case "--alert":
            guard isUpdate else { throw CtlMain.Usage(message: "\(op.rawValue) does not take --alert") }
            r.update.alert = true
        case "--icon":
            guard isStart else { throw CtlMain.Usage(message: "\(op.rawValue) does not take --icon") }
            r.start.icon = .named(try value())
        case "--relevance":
            guard isStart else { throw CtlMain.Usage(message: "\(op.rawValue) does not take --relevance") }
            let v = try value()
            guard let d = Double(v), d.isFinite else { throw CtlMain.Usage(message: "--relevance takes a number from 0 to 100 (got \"\(v)\")") }
            r.start.relevance = d
        default:
            return false
        }
        return true
    }
}
