import FoundationEssentials
import IsletCore
import IsletProtocol

/// The running activities in a backup (docs/WEB.md "Backup"): the state file's own encoding
/// of them, read back by the state file's own loader (`FileStore.decode`), so an activity in a
/// backup is checked exactly as a saved one is at start-up: each field's bounds, its times,
/// the count and the book's invariants (`ActivityBook.check`).
public enum BackupActivities {
    public struct Problem: Error, Sendable { public var message: String }

    /// The activities as the state file writes them: a JSON array.
    public static func encode(_ activities: [Activity]) throws(Problem) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do { return try StrictJSON.parse(Array(try encoder.encode(activities))) }
        catch { throw Problem(message: "the running activities could not be encoded (\(error))") }
    }

    /// A backup's `activities` as activities, or why not: the list is put in a state file's
    /// envelope stamped `now` and read by the loader.
    public static func decode(_ list: JSONValue, now: Instant) throws(Problem) -> [Activity] {
        let file = JSONValue.object(["schema": .number(Double(StateFile.schemaVersion)),
                                     "saved_at": .string(ISO8601.format(now)), "activities": list])
        let bytes: [UInt8]
        do { bytes = Array(try JSONEncoder().encode(file)) }
        catch { throw Problem(message: "the backup's activities could not be read (\(error))") }
        let activities: [Activity]
        switch FileStore.decode(bytes) {
        case .success(let loaded): activities = loaded.activities
        case .failure(let why): throw Problem(message: "the backup's activities: \(why.reason)")
        }
        // Beyond the loader, two checks of a restore alone (the boot-time load stays as it is:
        // a Pi without a clock may start behind its own file's instants).
        if case .array(let given) = list {
            for (i, (value, activity)) in zip(given, activities).enumerated() {
                if let field = try unknownField(value, of: activity) {
                    throw Problem(message: "the backup's activities: activities[\(i)].\(field) is not a field of this activity (a \(activity.attributes.kind.name), \(activity.phase.rawValue))")
                }
            }
        }
        for (i, a) in activities.enumerated() {
            if let v = implausible(a, now: now) { throw Problem(message: "the backup's activities: activities[\(i)].\(v)") }
        }
        return activities.map { caughtUp($0, now: now) }
    }

    /// `a` with a deadline that lies past a whole interval from `now` (within the skew, from an
    /// Islet whose clock runs ahead) brought back to that interval: a countdown's end to now + its
    /// cycle, a cycle end's next cycle to now + its interval. Otherwise the shown time would stand
    /// at the full cycle, looking frozen, until this clock caught up with the other one.
    static func caughtUp(_ a: Activity, now: Instant) -> Activity {
        var a = a
        switch (a.content.display, a.attributes.kind) {
        case (.running(let end), .countdown(let cycle, _)) where end > now + cycle:
            a.content.display = .running(reference: now + cycle)
        case (.cycleEnd(let next), _) where next > now + a.attributes.cycleEndInterval:
            a.content.display = .cycleEnd(nextCycleAt: now + a.attributes.cycleEndInterval)
        default: break
        }
        return a
    }

    /// How far past the restoring daemon's clock a backup's instant may lie: a backup made on
    /// another Islet whose clock runs a little ahead still restores.
    public static let skew: Duration = .seconds(300)

    /// The first instant of `a` that no Islet whose clock reads `now` (give or take `skew`) could
    /// have written, or nil. A stopwatch started in 2199 would show a negative time; a countdown
    /// ending years ahead would run for years; a completion in the future would linger for ever.
    public static func implausible(_ a: Activity, now: Instant) -> InvariantViolation? {
        let limit = now + skew
        func after(_ t: Instant, _ bound: Instant, _ field: String, _ rule: String) -> InvariantViolation? {
            t > bound ? InvariantViolation(field: field, "\(ISO8601.format(t)) is after \(rule) (\(ISO8601.format(bound)), by this Islet's clock give or take \(skew.jsonSeconds) s)") : nil
        }
        if let v = after(a.startedAt, limit, "started_at", "now") ?? after(a.updatedAt, limit, "updated_at", "now") { return v }
        if let e = a.ending, let v = after(e.endedAt, limit, "ended_at", "now") { return v }
        switch (a.content.display, a.attributes.kind) {
        case (.running(let end), .countdown(let cycle, _)):
            if let v = after(end, limit + cycle, "content.reference", "now + the cycle's \(cycle.jsonSeconds) s") { return v }
        case (.running(let start), .stopwatch):
            if let v = after(start, limit, "content.reference", "now (a stopwatch's reference is its start)") { return v }
        case (.cycleEnd(let next), _):
            if let v = after(next, limit + a.attributes.cycleEndInterval,
                             "content.next_cycle_at", "now + cycle_end_seconds \(a.attributes.cycleEndInterval.jsonSeconds) s") { return v }
        case (_, .until(let initial)):
            let horizon = limit + TimerMachine.untilHorizon
            if let t = initial.endsAt, let v = after(t, horizon, "attributes.ends_at", "now + 24 h") { return v }
            if let t = a.content.pushed?.endsAt, let v = after(t, horizon, "content.pushed.ends_at", "now + 24 h") { return v }
        case (.running, _), (.paused, _), (.complete, _), (.idle, _), (.tracking, _): break
        }
        return nil
    }

    /// The first key of `given` (an activity as the backup spells it) that the activity's own
    /// encoding does not write, as its path, or nil: the loader ignores keys it does not read,
    /// so `alert` in the attributes or `cycles` on a stopwatch would be dropped without a word.
    static func unknownField(_ given: JSONValue, of activity: Activity) throws(Problem) -> String? {
        let written = try encode([activity])
        guard case .array(let one) = written, let expected = one.first else { return nil }
        // Keys the encoding leaves out at their default (or when absent) but the loader reads.
        let pushed: Set<String> = ["ends_at", "progress", "text"]
        let optional: [String: Set<String>] = [
            "attributes": Set(["title", "stale_after_seconds", "icon", "icon_data", "relevance"])
                .union(activity.attributes.kind.isUntil ? pushed : Set<String>()),
            "content.pushed": pushed]
        return extra(given, beyond: expected, at: "", optional: optional)
    }

    private static func extra(_ given: JSONValue, beyond expected: JSONValue, at path: String,
                              optional: [String: Set<String>]) -> String? {
        guard case .object(let g) = given else { return nil }
        guard case .object(let e) = expected else { return nil }
        for key in g.keys.sorted() {
            let here = path.isEmpty ? key : "\(path).\(key)"
            guard let sub = e[key] else {
                if optional[path]?.contains(key) == true { continue }
                return here
            }
            if let deeper = extra(g[key] ?? .null, beyond: sub, at: here, optional: optional) { return deeper }
        }
        return nil
    }
}
