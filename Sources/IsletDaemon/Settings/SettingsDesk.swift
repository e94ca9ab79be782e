import IsletParts
import IsletSystem
import IsletProtocol
import IsletConfig
import IsletSettings
import IsletStore
import IsletCore

/// The page's settings (docs/WEB.md "Settings"): the overlay `settings.json` in the state
/// directory, over the config file, which stays the administrator's and read-only to the
/// service. It owns the overlay's values, the file's config beneath them, and the overlay's
/// writer; it answers the settings ops (`settings`, `settings_set`, `settings_reset`,
/// `settings_export`, `settings_import`) and hands the daemon the config to put in force,
/// which goes the way of a reload (`Daemon.putInForce`), and a restored backup's activities,
/// checked by the state file's loader (`BackupActivities`), which replace the book's.
///
/// config: none of its own (the keys it edits are `[session]`'s and `[display]`'s).
/// saved: `settings.json` (SettingsDocument), beside the state file, written off the loop; a
/// change is answered once the write that holds it has landed (`answer(afterWrite:)`), as an
/// activity's change is answered after the state file's write.
final class SettingsDesk {
    /// The config file's and the flags' configuration, without the page's values.
    private(set) var file: DaemonConfig
    /// The page's values, by `section.key`, as the file would write them.
    private(set) var values: [String: String]
    private let writer: LatestFileWriter
    private let log: Logger
    private var nowMs: Int64 = 0
    /// Every write up to this generation has landed or failed.
    private(set) var durable: UInt64 = 0
    /// The generations whose write failed, and why, and whether that undid them (nothing newer
    /// was waiting): the last few (a write is at most one per 500 ms, so they cover far longer
    /// than an answer waits).
    private var failed: [(from: UInt64, to: UInt64, error: String, undone: Bool)] = []
    /// The values settings.json holds: what a failed write goes back to.
    private var onDisk: [String: String] = [:]
    /// The values of the last few writes asked for, newest last (the writer writes the newest it
    /// has when it starts, so an older one is never what a completion names once it is not here).
    private var asked: [(generation: UInt64, values: [String: String])] = []
    /// The book's activities before the first restore of a backup not yet on disk (from the
    /// write `since` on): put back when that write fails, so a refused restore changes nothing.
    private var beforeRestore: (since: UInt64, activities: [Activity])?

    /// What a failed write undoes: the config to put in force, and the activities a restore
    /// replaced (nil when no restore waited for that write).
    struct Undo {
        var config: DaemonConfig
        var activities: [Activity]?
    }
    /// The answer to a change, made once per change however many requests wait for it.
    private var cached: ControlResponse?

    var path: String { writer.path }
    /// Readable when a write of settings.json finished (the loop then calls `takeWrites`).
    var completionsFD: Descriptor { writer.done.fd.descriptor }

    /// Reads settings.json; a bad one is moved aside (`settings.json.bad`) with one line in the
    /// log, and the file's values are used: never a guess.
    init(directory: String, file: DaemonConfig, log: Logger, system: any StoreSystem = LiveStoreSystem()) throws(SystemError) {
        self.file = file
        self.log = log
        let path = directory + "/settings.json"
        writer = try LatestFileWriter(path: path, directory: directory, system: system)
        values = [:]
        switch FileSystem.readFile(path, limit: SettingsDocument.maximumBytes + 1, followLinks: false) {
        case .failure(let e) where e.errno == .noSuchFileOrDirectory: return
        case .failure(let e): moveAside("it cannot be read (\(e))")
        case .success(let bytes):
            do throws(SettingsDocument.Problem) {
                let read = try SettingsDocument.overlay(bytes)
                do { _ = try file.applying(page: read) } catch { throw SettingsDocument.Problem("\(error)") }
                values = read
                onDisk = read
            } catch { moveAside(error.message) }
        }
    }

    private func moveAside(_ why: String) {
        let aside = path + ".bad"
        do { try FileSystem.rename(path, to: aside) } catch {
            log.warning("page settings \(path) are unusable: \(why), and could not be moved aside (\(error.errno)); the config file's values are used")
            return
        }
        log.warning("page settings \(path) were moved aside to \(aside): \(why); the config file's values are used")
    }

    /// The config in force: the file's with the page's values over it.
    var inForce: DaemonConfig {
        (try? file.applying(page: values)) ?? file
    }

    /// A reload read the file again: the page's values over the new file's.
    func fileReloaded(_ new: DaemonConfig) -> DaemonConfig {
        file = new
        cached = nil
        do { return try new.applying(page: values) } catch {
            log.warning("page settings are not applied over the reloaded config file: \(error); the file's values are used")
            return new
        }
    }

    /// What a settings op did: its answer, the config to put in force when it changed one, and
    /// the activities that replace the book's when a backup with activities was restored.
    struct Outcome {
        var response: ControlResponse
        var config: DaemonConfig?
        var restore: [Activity]? = nil
        /// The write of settings.json the answer waits for (0: answered now).
        var settingsWrite: UInt64 = 0
    }

    /// One settings op. `nowMs` (the monotonic clock) paces the log: a flood of edits is one
    /// line a second; `activities` (the book's) go into a backup that asks for them, and `now`
    /// stamps a restored list for the loader's checks.
    func answer(_ r: ControlRequest, nowMs: Int64, now: Instant = .epoch, activities: [Activity] = []) throws(ProtocolError) -> Outcome {
        self.nowMs = nowMs
        switch r.op {
        case .settings: return Outcome(response: respond())
        case .settingsExport:
            var list: JSONValue?
            if r.settings.activities {
                do { list = try BackupActivities.encode(activities) } catch { throw ProtocolError("store_failed", error.message) }
            }
            let backup = SettingsDocument.encodeBackup(values, activities: list)
            // No backup is made that could not be restored: its restore must fit one request.
            let restore = SettingsDocument.restoreRequestBytes(backup)
            guard restore <= ControlRequest.maximumLineBytes else {
                throw ProtocolError("too_large", "a backup with these \(activities.count) activities would take \(restore) bytes to restore; "
                    + "at most \(ControlRequest.maximumLineBytes) fit one request. Back up without the activities, or end some")
            }
            return Outcome(response: respond(backup: String(decoding: backup, as: UTF8.self)))
        case .settingsSet:
            guard let key = r.settings.key, let value = r.settings.value else { throw ProtocolError("missing_field", "settings_set needs \"key\" and \"value\"") }
            if let why = file.refusal(setting: key, to: value, page: values) { throw ProtocolError("invalid_value", why) }
            var next = values
            next[key] = value
            return try change(to: next, "\(key) = \(value)")
        case .settingsReset:
            guard let key = r.settings.key else { throw ProtocolError("missing_field", "settings_reset needs \"key\"") }
            var next = values
            next[key] = nil
            return try change(to: next, "\(key) back to the file's")
        case .settingsImport:
            guard let text = r.settings.backup else { throw ProtocolError("missing_field", "settings_import needs \"backup\"") }
            // All or nothing: every bound and every value checked before one is taken, the
            // activities' too (by the state file's loader) before the settings are written.
            let read: SettingsDocument.Backup
            do { read = try SettingsDocument.readBackup(Array(text.utf8)) }
            catch { throw ProtocolError("invalid_backup", "\(error.message); nothing was changed") }
            do { _ = try file.applying(page: read.settings) }
            catch { throw ProtocolError("invalid_backup", "the backup's \(error.message); nothing was changed") }
            var restore: [Activity]?
            if let list = read.activities {
                do { restore = try BackupActivities.decode(list, now: now) }
                catch { throw ProtocolError("invalid_backup", "\(error.message); nothing was changed") }
            }
            var outcome = try change(to: read.settings, "restored from a backup (\(read.settings.count) settings"
                                     + (restore.map { ", \($0.count) activities)" } ?? ")"))
            outcome.restore = restore
            if restore != nil, beforeRestore == nil { beforeRestore = (outcome.settingsWrite, activities) }
            return outcome
        default:
            throw ProtocolError("not_supported", "\(r.op.rawValue) is not a settings op")
        }
    }

    private func change(to next: [String: String], _ what: String) throws(ProtocolError) -> Outcome {
        let config: DaemonConfig
        do { config = try file.applying(page: next) } catch { throw ProtocolError("invalid_value", error.message) }
        let generation: UInt64
        do { generation = try writer.submit(SettingsDocument.encodeOverlay(next)) }
        catch { throw ProtocolError("store_failed", "the page's settings could not be saved: \(error)") }
        values = next
        asked.append((generation, next))
        if asked.count > 16 { asked.removeFirst(asked.count - 16) }
        cached = nil
        log.limited(.info, topic: "page-settings", intervalMs: 1000, nowMs: nowMs, "page settings: \(what)")
        return Outcome(response: ControlResponse(ok: true), config: config, settingsWrite: generation)
    }

    /// Takes the writer's finished writes: how far the disk has come, and which failed. A failed
    /// write with nothing newer waiting is undone: the values go back to what settings.json
    /// holds, and the config to put in force for them is returned (as the book rolls a change
    /// back when the state file cannot hold it: an answer of `store_failed` changed nothing).
    func takeWrites() -> Undo? {
        var undo = false
        for done in writer.takeCompletions() where done.generation > durable {
            let latest = asked.last?.generation ?? 0
            if let e = done.error {
                let undone = done.generation >= latest
                failed.append((durable + 1, done.generation, e, undone))
                if failed.count > 64 { failed.removeFirst(failed.count - 64) }
                undo = undone
            } else {
                if let wrote = asked.last(where: { $0.generation == done.generation }) { onDisk = wrote.values }
                if let b = beforeRestore, done.generation >= b.since { beforeRestore = nil }
                undo = false
            }
            asked.removeAll { $0.generation <= done.generation }
            durable = done.generation
            cached = nil
        }
        guard undo else { return nil }
        let activities = beforeRestore?.activities
        beforeRestore = nil
        guard values != onDisk || activities != nil else { return nil }
        log.warning("page settings could not be saved to \(path): the last saved ones are back in force"
                    + (activities == nil ? "" : ", and the activities a restore replaced"))
        values = onDisk
        return Undo(config: inForce, activities: activities)
    }

    /// The answer to a change whose write (`generation`) has landed: the settings in force, or
    /// the write's error, and whether the change was undone (a newer change, still to be
    /// written, is in force otherwise).
    func answer(afterWrite generation: UInt64) -> ControlResponse {
        if let f = failed.last(where: { $0.from <= generation && generation <= $0.to }) {
            return .failure(ProtocolError("store_failed", "the page's settings could not be saved to \(path): \(f.error); "
                + (f.undone ? "nothing was changed; the settings in force are the last saved" : "a later change is being saved")))
        }
        if let cached { return cached }
        let r = respond()
        cached = r
        return r
    }

    private func respond(_ config: DaemonConfig? = nil, backup: String? = nil) -> ControlResponse {
        // A failed write is said in the answer and, once per distinct error, in the log.
        let writeError = writer.progress.lastError
        if let e = writeError {
            log.limited(.warning, topic: "page-settings-write", nowMs: nowMs, distinct: true,
                        "page settings could not be saved to \(path): \(e); the last saved ones are in force")
        }
        var r = ControlResponse(ok: true)
        r.settings = SettingsReport(entries: (config ?? inForce).settingsEntries(file: file), fileOnly: SettingsDocument.fileOnly,
                                    path: path, backup: backup, writeError: writeError)
        return r
    }

    /// At the stop: the last edit reaches the disk.
    func shutdown() { writer.finish() }
}
