import IsletErrno
import IsletSystem
import FoundationEssentials
import IsletCore
import IsletProtocol
import Synchronization
import IsletClock

/// The state file's envelope. `schema` is bumped when the file's form changes incompatibly.
/// A file is written in the lowest schema that holds it: schema 1 while every activity is a
/// countdown or a stopwatch an earlier version could read (so a downgrade keeps them), schema 2
/// once one is an `until` activity or carries an icon or a relevance of its own.
struct StateFile: Codable {
    static let schemaVersion = 2
    static let readableSchemas: ClosedRange<Int> = 1...2
    var schema: Int
    /// The timeline instant of the save: a restart whose clock is behind it shows activities stale.
    var savedAt: String
    /// The kernel's boot id and CLOCK_BOOTTIME at the save: a restart in the same boot measures
    /// the time since the save with them, not with the wall clock. `boot_ms` is kept for
    /// earlier versions; `boot_ns` and `timeline_offset_ns` (timeline minus CLOCK_BOOTTIME) let
    /// a restart continue the timeline to the nanosecond. Absent in files of earlier versions
    /// (schema 1 either way: readers ignore what they do not know).
    var bootID: String?
    var bootMs: Int64?
    var bootNs: Int64?
    var timelineOffsetNs: Int64?
    var activities: [Activity]
    /// Each part's slice under its own key (`SavedSlice`; the sync group's ledger under `sync`).
    var slices: [String: any SavedSlice] = [:]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case schema, savedAt = "saved_at", bootID = "boot_id", bootMs = "boot_ms", bootNs = "boot_ns"
        case timelineOffsetNs = "timeline_offset_ns", activities
    }

    init(schema: Int, savedAt: String, bootID: String?, bootMs: Int64?, bootNs: Int64?, timelineOffsetNs: Int64?,
         activities: [Activity], slices: [String: any SavedSlice]) {
        self.schema = schema
        self.savedAt = savedAt
        self.bootID = bootID
        self.bootMs = bootMs
        self.bootNs = bootNs
        self.timelineOffsetNs = timelineOffsetNs
        self.activities = activities
        self.slices = slices
    }

    /// The core's fields; the slices are read by type (`FileStore.slices`).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schema = try c.decode(Int.self, forKey: .schema)
        savedAt = try c.decode(String.self, forKey: .savedAt)
        bootID = try c.decodeIfPresent(String.self, forKey: .bootID)
        bootMs = try c.decodeIfPresent(Int64.self, forKey: .bootMs)
        bootNs = try c.decodeIfPresent(Int64.self, forKey: .bootNs)
        timelineOffsetNs = try c.decodeIfPresent(Int64.self, forKey: .timelineOffsetNs)
        activities = try c.decode([Activity].self, forKey: .activities)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(savedAt, forKey: .savedAt)
        try c.encodeIfPresent(bootID, forKey: .bootID)
        try c.encodeIfPresent(bootMs, forKey: .bootMs)
        try c.encodeIfPresent(bootNs, forKey: .bootNs)
        try c.encodeIfPresent(timelineOffsetNs, forKey: .timelineOffsetNs)
        try c.encode(activities, forKey: .activities)
        var all = encoder.container(keyedBy: AnyCodingKey.self)
        // A part's key never hides a field of the core's.
        for (key, slice) in slices where CodingKeys(rawValue: key) == nil { try all.encode(slice, forKey: AnyCodingKey(key)) }
    }
}

/// This boot of the kernel: /proc/sys/kernel/random/boot_id, a new random UUID at every boot.
public enum BootID {
    public static let current: String? = {
        guard case .success(let bytes) = FileIO.read("/proc/sys/kernel/random/boot_id", limit: 128) else { return nil }
        let s = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
        return s.isEmpty ? nil : s
    }()
}

/// What loading found.
public struct LoadedState: Sendable {
    public var activities: [Activity]
    public var savedAt: Instant?
    /// The boot id of the save and its timeline stamp, when the file has them.
    public var bootID: String? = nil
    public var timeline: TimelineStamp? = nil
    /// The parts' slices the file holds, by key (`SavedSlice`).
    public var slices: [String: any SavedSlice] = [:]
    /// A problem to report (the file was moved aside), or nil.
    public var problem: String?
}

/// The system calls of a save, one by one, so a test can see their order (and fail one).
/// The save names each step's failure itself (with the path), so only the errno of a thrown
/// error is read.
public protocol StoreSystem: Sendable {
    /// Creates `path` exclusively, never through a symlink.
    func createExclusive(_ path: String, mode: UInt32) throws(SystemError) -> FileDescriptor
    func write(_ fd: FileDescriptor, _ bytes: [UInt8]) throws(SystemError)
    func fsync(_ fd: FileDescriptor) throws(SystemError)
    func close(_ fd: FileDescriptor)
    func rename(_ from: String, _ to: String) throws(SystemError)
    /// Removes a file; one already gone (or any failure) is not an error.
    func unlink(_ path: String)
    func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor
}

/// The real calls.
public struct LiveStoreSystem: StoreSystem {
    public init() {}
    public func createExclusive(_ path: String, mode: UInt32) throws(SystemError) -> FileDescriptor {
        try FileDescriptor.open(path, [.writeOnly, .create, .exclusive, .noFollow], permissions: mode)
    }
    public func write(_ fd: FileDescriptor, _ bytes: [UInt8]) throws(SystemError) { try fd.writeAll(bytes) }
    public func fsync(_ fd: FileDescriptor) throws(SystemError) { try fd.sync() }
    public func close(_ fd: FileDescriptor) { fd.close() }
    public func rename(_ from: String, _ to: String) throws(SystemError) { try FileSystem.rename(from, to: to) }
    public func unlink(_ path: String) { try? FileSystem.remove(path) }
    public func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor { try FileDescriptor.open(path, [.directory]) }
}

/// Persists activities atomically: write a temp file, fsync it, rename it over the old one,
/// fsync the directory. A reader (or a crash at any point) sees the old file or the new one.
public final class FileStore: Sendable {
    public let directory: String
    public var path: String { directory + "/activities.json" }
    private let stamp: @Sendable () -> TimelineStamp
    private let system: any StoreSystem
    /// Serializes writers: the temp file name is shared.
    private let lock = Mutex<Int>(0)
    /// The parts' slice types a load reads (the registry's).
    public let sliceTypes: [any SavedSlice.Type]

    /// Saves stamped by the daemon's timeline (with its exact offset).
    public init(directory: String, system: any StoreSystem = LiveStoreSystem(), timeline: HostClock,
                slices: [any SavedSlice.Type] = []) {
        self.directory = directory
        sliceTypes = slices
        self.system = system
        self.stamp = { timeline.stamp() }
    }

    /// Saves stamped `now()`, with no offset to continue from (tests, tools).
    public init(directory: String, system: any StoreSystem = LiveStoreSystem(), now: @escaping @Sendable () -> Instant,
                slices: [any SavedSlice.Type] = []) {
        self.directory = directory
        sliceTypes = slices
        self.system = system
        self.stamp = { TimelineStamp(at: now(), bootNanoseconds: Int64(clamping: SystemClock.bootNanoseconds()), offsetNanoseconds: nil) }
    }

    /// Why a directory is no place for the state, or nil: it must be a directory that only its
    /// owner (this user or root) and at most the daemon's own group can write, or another user
    /// could plant the temporary file (a link to a file of ours) or replace the state.
    public static func unsafeDirectory(_ dir: String) -> String? {
        let st: FileStatus
        do { st = try FileSystem.status(dir) } catch { return "\(dir) cannot be examined (\(error.errno))" }
        guard st.kind == .directory else { return "\(dir) is not a directory" }
        let mode = String(st.permissions, radix: 8)
        if st.owner != Identity.effectiveUserID && st.owner != 0 {
            return "\(dir) belongs to another user (uid \(st.owner)): use a directory of this user (state_dir) or chown it"
        }
        if st.permissions & 0o002 != 0 || (st.permissions & 0o020 != 0 && st.group != Identity.effectiveGroupID) {
            return "\(dir) can be written by other users (mode 0\(mode)): chmod go-w '\(dir)', or set state_dir to a private directory"
        }
        return nil
    }

    /// The lowest schema that holds these activities and the parts' slices.
    static func schema(of activities: [Activity], slices: [String: any SavedSlice]) -> Int {
        let core = activities.allSatisfy(\.fitsSchema1) ? 1 : StateFile.schemaVersion
        return min(StateFile.schemaVersion, slices.values.map(\.schema).reduce(core, max))
    }

    /// The synchronous core of `save`.
    public func saveNow(_ activities: [Activity], slices: [String: any SavedSlice] = [:]) throws {
        let t = stamp()
        let file = StateFile(schema: Self.schema(of: activities, slices: slices), savedAt: ISO8601.format(t.at), bootID: BootID.current,
                             bootMs: t.bootNanoseconds / 1_000_000, bootNs: t.bootNanoseconds,
                             timelineOffsetNs: t.offsetNanoseconds, activities: activities, slices: slices)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = Array(try encoder.encode(file)) + [UInt8(ascii: "\n")]
        let sys = system
        try lock.withLock { (_: inout Int) throws(SystemError) in
            try AtomicFile.write(bytes, to: path, directory: directory, mode: 0o640, system: sys)
        }
    }

    /// Loads the saved activities. A missing file is a fresh start; a corrupt, unreadable or
    /// unknown-schema file, or one breaking a rule of the book (`ActivityBook.check`), is moved
    /// aside (`activities.json.bad-<ms>`) and reported, never fatal.
    ///
    /// Before decoding, a mark (`activities.json.loading`: the file's size and hash, and this
    /// process's id) is written; the daemon removes it once its first frame is drawn
    /// (`loadFinished`), and a clean exit removes it too. A mark for the same file left by
    /// another process means a start-up that loaded this file crashed: the file is moved aside
    /// instead of crashing the same way again under systemd's `Restart=`.
    public func load() -> LoadedState {
        let bytes: [UInt8]
        switch FileIO.read(path, followLinks: false) {
        case .success(let b): bytes = b
        case .failure(let e):
            if e.errno == .noSuchFileOrDirectory { return LoadedState(activities: [], savedAt: nil, problem: nil) }
            return LoadedState(activities: [], savedAt: nil, problem: moveAside("it could not be read (\(e))"))
        }
        let identity = "size \(bytes.count) fnv1a \(String(Self.fnv1a(bytes), radix: 16))"
        if case .success(let m) = FileIO.read(loadingMark, limit: 4096, followLinks: false) {
            let fields = String(decoding: m, as: UTF8.self).split(separator: "\n").map(String.init)
            try? FileSystem.remove(loadingMark)
            // The same process loading twice (a daemon built again in one process) did not crash.
            if fields.first == identity, fields.dropFirst().first != "pid \(Identity.processID)" {
                return LoadedState(activities: [], savedAt: nil, problem: moveAside(
                    "a start-up that loaded it did not finish (its mark \(loadingMark) was still there): loading it may crash the daemon"))
            }
        }
        LoadingMarks.write(loadingMark, "\(identity)\npid \(Identity.processID)\n")
        if LoadingMarks.crashSeamArmed { Identity.abortProcess() }
        switch Self.decode(bytes, slices: sliceTypes) {
        case .success(let state): return state
        case .failure(let why):
            loadFinished()
            return LoadedState(activities: [], savedAt: nil, problem: moveAside(why.reason))
        }
    }

    /// The mark `load` leaves while a start-up with this file is under way.
    public var loadingMark: String { path + ".loading" }

    /// The start-up that loaded the file got through (its first frame is drawn): no mark.
    public func loadFinished() { LoadingMarks.remove(loadingMark) }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    public struct Unusable: Error, Sendable { public var reason: String }

    /// The state file's bytes as activities, or why they are unusable. Pure (the fuzz target).
    public static func decode(_ bytes: [UInt8], slices sliceTypes: [any SavedSlice.Type] = []) -> Result<LoadedState, Unusable> {
        // Strictly first: a key twice (JSONDecoder keeps the first) would let a file mean two
        // things, e.g. an empty "activities" hiding the real ones, overwritten at the next save.
        let tree: JSONValue
        do { tree = try StrictJSON.parse(bytes) }
        catch { return .failure(Unusable(reason: "it is not valid JSON (\(error))")) }
        guard case .object(let top) = tree else { return .failure(Unusable(reason: "it is not a JSON object")) }
        guard let field = top["schema"] else { return .failure(Unusable(reason: "it has no schema")) }
        guard case .number(let n) = field, n.rounded() == n, abs(n) < 1e9 else {
            return .failure(Unusable(reason: "its schema is not a whole number (\(field.typeName))"))
        }
        let schema = Int(n)
        guard StateFile.readableSchemas.contains(schema) else {
            // A downgrade meets a newer file: no guess at what its fields mean.
            let reads = "this build reads schemas \(StateFile.readableSchemas.lowerBound) to \(StateFile.readableSchemas.upperBound)"
            return .failure(Unusable(reason: schema > StateFile.schemaVersion
                ? "its schema \(schema) was written by a newer Islet; \(reads)"
                : "its schema \(schema) is unknown; \(reads)"))
        }
        var file: StateFile
        do {
            file = try JSONDecoder().decode(StateFile.self, from: Data(bytes))
            file.slices = try slices(bytes, of: sliceTypes)
        }
        catch let e as DecodingError { return .failure(Unusable(reason: Self.describe(e))) }
        catch { return .failure(Unusable(reason: "it does not decode (\(error))")) }
        func bad(_ why: String) -> Result<LoadedState, Unusable> { .failure(Unusable(reason: why)) }
        guard let savedAt = ISO8601.parse(file.savedAt) else { return bad("saved_at is not an ISO-8601 instant") }
        guard Instant.validRange.contains(savedAt) else {
            return bad("saved_at \(file.savedAt) is outside the instants a timer can hold (\(Instant.validRangeRule))")
        }
        // Every figure of the timeline is checked here, so the host clock never meets one that overflows.
        var boot = file.bootNs
        if boot == nil, let ms = file.bootMs {
            let ns = ms.multipliedReportingOverflow(by: 1_000_000)
            guard !ns.overflow else { return bad("boot_ms \(ms) is out of range") }
            boot = ns.partialValue
        }
        if let b = boot, b < 0 { return bad("\(file.bootNs == nil ? "boot_ms" : "boot_ns") \(b) is negative: CLOCK_BOOTTIME starts at 0") }
        if let offset = file.timelineOffsetNs {
            // A save stamps saved_at = boot_ns + timeline_offset_ns (in ms, under one lock).
            guard let b = boot else { return bad("timeline_offset_ns is there without boot_ns") }
            let sum = b.addingReportingOverflow(offset)
            let slack: Int64 = file.bootNs == nil ? 1 : 0
            guard !sum.overflow, abs(HostClock.floorDiv(sum.partialValue, 1_000_000) - savedAt.milliseconds) <= slack else {
                return bad("timeline_offset_ns \(offset) does not agree with saved_at and boot_ns (boot_ns + timeline_offset_ns is saved_at)")
            }
        }
        // The rules every book built by requests meets (IsletCore's one definition of them).
        do throws(InvariantViolation) { try ActivityBook.check(file.activities) }
        catch { return bad("\(error)") }
        let timeline = boot.map { TimelineStamp(at: savedAt, bootNanoseconds: $0, offsetNanoseconds: file.timelineOffsetNs) }
        return .success(LoadedState(activities: file.activities, savedAt: savedAt, bootID: file.bootID,
                                    timeline: timeline, slices: file.slices, problem: nil))
    }

    /// A decoding error as the field's path in the file and what is wrong with it.
    static func describe(_ e: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { p, k in k.intValue.map { "\(p)[\($0)]" } ?? (p.isEmpty ? k.stringValue : "\(p).\(k.stringValue)") }
        }
        switch e {
        case .dataCorrupted(let c): return "\(path(c.codingPath)): \(c.debugDescription)"
        case .keyNotFound(let k, let c): return "\(path(c.codingPath + [k])) is missing"
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(path(c.codingPath)): \(c.debugDescription)"
        @unknown default: return "it does not decode (\(e))"
        }
    }

    private func moveAside(_ why: String) -> String {
        let aside = path + ".bad-\(Posix.wallMilliseconds())"
        do { try FileSystem.rename(path, to: aside) } catch {
            return "state file \(path) is unusable: \(why), and could not be moved aside (\(error.errno)); starting with no activities"
        }
        return "state file \(path) was moved aside to \(aside): \(why); starting with no activities"
    }
}

/// Whole-file reads (no Foundation file APIs), through IsletSystem.
enum FileIO {
    /// A regular file's bytes, read without blocking on a FIFO or device at the path;
    /// `followLinks: false` also refuses a symlink (the state file is never one).
    static func read(_ path: String, limit: Int = 1 << 20, followLinks: Bool = true) -> Result<[UInt8], SystemError> {
        FileSystem.readFile(path, limit: limit, followLinks: followLinks)
    }

    static func exists(_ path: String) -> Bool { FileSystem.exists(path) }
}

/// The marks of loads under way in this process, removed at a clean exit (`exit`, not a trap or
/// an abort: those are what the mark is there to catch).
enum LoadingMarks {
    private static let paths = Mutex<Set<String>?>(nil)

    /// The test seam that crashes a start-up while it loads the state file, after the mark:
    /// `ISLET_TEST_CRASH_ON_LOAD=1` exactly (docs/RELIABILITY.md). Never set it on a real daemon.
    static var crashSeamArmed: Bool { Posix.environment("ISLET_TEST_CRASH_ON_LOAD") == "1" }

    static func write(_ mark: String, _ text: String) {
        try? FileSystem.remove(mark)
        // Exclusively and without following a link, like the temp file.
        guard let fd = try? FileDescriptor.open(mark, [.writeOnly, .create, .exclusive, .noFollow], permissions: 0o640) else { return }
        try? fd.writeAll(Array(text.utf8))
        fd.close()
        let first = paths.withLock { (p: inout Set<String>?) -> Bool in
            defer { p?.insert(mark) }
            if p == nil { p = []; return true }
            return false
        }
        if first { Identity.atExit { for m in LoadingMarks.paths.withLock({ $0 ?? [] }) { try? FileSystem.remove(m) } } }
    }

    static func remove(_ mark: String) {
        paths.withLock { _ = $0?.remove(mark) }
        try? FileSystem.remove(mark)
    }
}
