#if canImport(Glibc)
import Glibc
#endif
import IsletErrno
import IsletSystem
import FoundationEssentials
import IsletCore
import Synchronization

/// The state file's envelope. `schema` is bumped when the file's form changes incompatibly.
struct StateFile: Codable {
    static let schemaVersion = 1
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

    enum CodingKeys: String, CodingKey {
        case schema, savedAt = "saved_at", bootID = "boot_id", bootMs = "boot_ms", bootNs = "boot_ns"
        case timelineOffsetNs = "timeline_offset_ns", activities
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
    /// A problem to report (the file was moved aside), or nil.
    public var problem: String?
}

/// The system calls of a save, one by one, so a test can see their order (and fail one).
public protocol StoreSystem: Sendable {
    /// Creates `path` exclusively, never through a symlink; -1 and errno on failure.
    func createExclusive(_ path: String, mode: mode_t) -> Int32
    func write(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError)
    func fsync(_ fd: Int32) -> Int32
    func close(_ fd: Int32)
    func rename(_ from: String, _ to: String) -> Int32
    func unlink(_ path: String)
    func openDirectory(_ path: String) -> Int32
}

/// The real calls.
public struct LiveStoreSystem: StoreSystem {
    public init() {}
    public func createExclusive(_ path: String, mode: mode_t) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    }
    public func write(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) { try Posix.writeAll(fd, bytes) }
    public func fsync(_ fd: Int32) -> Int32 { Glibc.fsync(fd) }
    public func close(_ fd: Int32) { _ = Glibc.close(fd) }
    public func rename(_ from: String, _ to: String) -> Int32 { Glibc.rename(from, to) }
    public func unlink(_ path: String) { _ = Glibc.unlink(path) }
    public func openDirectory(_ path: String) -> Int32 { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
}

/// Persists activities atomically: write a temp file, fsync it, rename it over the old one,
/// fsync the directory. A reader (or a crash at any point) sees the old file or the new one.
public final class FileStore: ActivityStore {
    public let directory: String
    public var path: String { directory + "/activities.json" }
    private let stamp: @Sendable () -> TimelineStamp
    private let system: any StoreSystem
    /// Serializes writers: the temp file name is shared.
    private let lock = Mutex<Int>(0)

    /// Saves stamped by the daemon's timeline (with its exact offset).
    public init(directory: String, system: any StoreSystem = LiveStoreSystem(), timeline: HostClock) {
        self.directory = directory
        self.system = system
        self.stamp = { timeline.stamp() }
    }

    /// Saves stamped `now()`, with no offset to continue from (tests, tools).
    public init(directory: String, system: any StoreSystem = LiveStoreSystem(), now: @escaping @Sendable () -> Instant) {
        self.directory = directory
        self.system = system
        self.stamp = { TimelineStamp(at: now(), bootNanoseconds: Int64(clamping: SystemClock.bootNanoseconds()), offsetNanoseconds: nil) }
    }

    /// Why a directory is no place for the state, or nil: it must be a directory that only its
    /// owner (this user or root) and at most the daemon's own group can write, or another user
    /// could plant the temporary file (a link to a file of ours) or replace the state.
    public static func unsafeDirectory(_ dir: String) -> String? {
        var st = stat()
        guard stat(dir, &st) == 0 else { return "\(dir) cannot be examined (\(Errno.current))" }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { return "\(dir) is not a directory" }
        let mode = String(st.st_mode & 0o7777, radix: 8)
        if st.st_uid != geteuid() && st.st_uid != 0 {
            return "\(dir) belongs to another user (uid \(st.st_uid)): use a directory of this user (state_dir) or chown it"
        }
        if st.st_mode & 0o002 != 0 || (st.st_mode & 0o020 != 0 && st.st_gid != getegid()) {
            return "\(dir) can be written by other users (mode 0\(mode)): chmod go-w '\(dir)', or set state_dir to a private directory"
        }
        return nil
    }

    public func save(_ activities: [Activity]) async throws {
        try saveNow(activities)
    }

    /// The synchronous core of `save`.
    public func saveNow(_ activities: [Activity]) throws {
        let t = stamp()
        let file = StateFile(schema: StateFile.schemaVersion, savedAt: ISO8601.format(t.at), bootID: BootID.current,
                             bootMs: t.bootNanoseconds / 1_000_000, bootNs: t.bootNanoseconds,
                             timelineOffsetNs: t.offsetNanoseconds, activities: activities)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = Array(try encoder.encode(file)) + [UInt8(ascii: "\n")]
        let sys = system
        try lock.withLock { (_: inout Int) throws(SystemError) in
            let tmp = path + ".tmp"
            // Exclusive and without following links: a leftover temp file (a crash) or anything
            // planted there (a symlink, a FIFO) is removed, never written through.
            var fd = sys.createExclusive(tmp, mode: 0o640)
            if fd < 0, errno == EEXIST {
                sys.unlink(tmp)
                fd = sys.createExclusive(tmp, mode: 0o640)
            }
            guard fd >= 0 else { throw SystemError("create \(tmp)") }
            do throws(SystemError) {
                try sys.write(fd, bytes)
                guard sys.fsync(fd) == 0 else { throw SystemError("fsync \(tmp)") }
            } catch {
                sys.close(fd)
                sys.unlink(tmp)
                throw error
            }
            sys.close(fd)
            guard sys.rename(tmp, path) == 0 else {
                let e = SystemError("rename \(tmp) to \(path)")
                sys.unlink(tmp)
                throw e
            }
            // The rename itself is durable only once the directory is synced.
            let dfd = sys.openDirectory(directory)
            guard dfd >= 0 else { throw SystemError("open \(directory)") }
            defer { sys.close(dfd) }
            guard sys.fsync(dfd) == 0 else { throw SystemError("fsync \(directory)") }
        }
    }

    /// Loads the saved activities. A missing file is a fresh start; a corrupt, unreadable or
    /// unknown-schema file is moved aside (`activities.json.bad-<ms>`) and reported, never fatal.
    public func load() -> LoadedState {
        let bytes: [UInt8]
        switch FileIO.read(path, followLinks: false) {
        case .success(let b): bytes = b
        case .failure(let e):
            if e.errno.code == ENOENT { return LoadedState(activities: [], savedAt: nil, problem: nil) }
            return LoadedState(activities: [], savedAt: nil, problem: moveAside("it could not be read (\(e))"))
        }
        switch Self.decode(bytes) {
        case .success(let state): return state
        case .failure(let why): return LoadedState(activities: [], savedAt: nil, problem: moveAside(why.reason))
        }
    }

    public struct Unusable: Error, Sendable { public var reason: String }

    /// The state file's bytes as activities, or why they are unusable. Pure (the fuzz target).
    public static func decode(_ bytes: [UInt8]) -> Result<LoadedState, Unusable> {
        struct Probe: Decodable { var schema: Int? }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: Data(bytes)) else {
            return .failure(Unusable(reason: "it is not valid JSON"))
        }
        guard probe.schema == StateFile.schemaVersion else {
            return .failure(Unusable(reason: "its schema \(probe.schema.map(String.init) ?? "(none)") is not \(StateFile.schemaVersion), the one this build reads"))
        }
        do {
            let file = try JSONDecoder().decode(StateFile.self, from: Data(bytes))
            guard let savedAt = ISO8601.parse(file.savedAt) else {
                return .failure(Unusable(reason: "saved_at is not an ISO-8601 instant"))
            }
            let boot = file.bootNs ?? file.bootMs.map { $0 * 1_000_000 }
            let timeline = boot.map { TimelineStamp(at: savedAt, bootNanoseconds: $0, offsetNanoseconds: file.timelineOffsetNs) }
            return .success(LoadedState(activities: file.activities, savedAt: savedAt, bootID: file.bootID,
                                        timeline: timeline, problem: nil))
        } catch {
            return .failure(Unusable(reason: "it does not decode (\(error))"))
        }
    }

    private func moveAside(_ why: String) -> String {
        let aside = path + ".bad-\(Posix.wallMilliseconds())"
        if rename(path, aside) == 0 {
            return "state file \(path) was moved aside to \(aside): \(why); starting with no activities"
        }
        return "state file \(path) is unusable: \(why), and could not be moved aside (\(Errno.current)); starting with no activities"
    }
}

/// Whole-file reads through the C library (no Foundation file APIs).
enum FileIO {
    /// Reads a regular file. Non-blocking, so a FIFO or device at the path cannot hang the one
    /// loop thread in open(2) or read(2), and refused unless it is a regular file.
    /// `followLinks: false` also refuses a symlink (the state file is never one).
    static func read(_ path: String, limit: Int = 1 << 20, followLinks: Bool = true) -> Result<[UInt8], SystemError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return .failure(SystemError("open \(path)")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(SystemError("stat \(path)")) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            return .failure(SystemError("open \(path): not a regular file", Errno(EINVAL)))
        }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(SystemError("read \(path)"))
            }
            if n == 0 { break }
            out += buf[0..<n]
            if out.count > limit { return .failure(SystemError("read \(path)", Errno(EFBIG))) }
        }
        return .success(out)
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
