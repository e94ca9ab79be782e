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
        switch FileStore.decode(bytes) {
        case .success(let loaded): return loaded.activities
        case .failure(let why): throw Problem(message: "the backup's activities: \(why.reason)")
        }
    }
}
