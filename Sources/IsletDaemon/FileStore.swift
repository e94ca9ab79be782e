#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import IsletCore
import Synchronization

/// The state file's envelope. `schema` is bumped when the file's form changes incompatibly.
struct StateFile: Codable {
    static let schemaVersion = 1
    var schema: Int
    /// The timeline instant of the save: a restart whose clock is behind it shows activities stale.
    var savedAt: String
    var activities: [Activity]

    enum CodingKeys: String, CodingKey { case schema, savedAt = "saved_at", activities }
}

/// What loading found.
public struct LoadedState: Sendable {
    public var activities: [Activity]
    public var savedAt: Instant?
    /// A problem to report (the file was moved aside), or nil.
    public var problem: String?
}

/// Persists activities atomically: write a temp file, fsync it, rename it over the old one,
/// fsync the directory. A reader (or a crash at any point) sees the old file or the new one.
public final class FileStore: ActivityStore {
    public let directory: String
    public var path: String { directory + "/activities.json" }
    private let now: @Sendable () -> Instant
    /// Serializes writers: the temp file name is shared.
    private let lock = Mutex<Int>(0)

    public init(directory: String, now: @escaping @Sendable () -> Instant) {
        self.directory = directory
        self.now = now
    }

    public func save(_ activities: [Activity]) async throws {
        try saveNow(activities)
    }

    /// The synchronous core of `save`.
    public func saveNow(_ activities: [Activity]) throws {
        let file = StateFile(schema: StateFile.schemaVersion, savedAt: ISO8601.format(now()), activities: activities)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = Array(try encoder.encode(file)) + [UInt8(ascii: "\n")]
        try lock.withLock { (_: inout Int) throws(SystemError) in
            let tmp = path + ".tmp"
            let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
            guard fd >= 0 else { throw SystemError("open \(tmp)") }
            do throws(SystemError) {
                try Posix.writeAll(fd, bytes)
                guard fsync(fd) == 0 else { throw SystemError("fsync \(tmp)") }
            } catch {
                close(fd)
                unlink(tmp)
                throw error
            }
            close(fd)
            guard rename(tmp, path) == 0 else {
                let e = SystemError("rename \(tmp) to \(path)")
                unlink(tmp)
                throw e
            }
            // The rename itself is durable only once the directory is synced.
            let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dfd >= 0 { _ = fsync(dfd); close(dfd) }
        }
    }

    /// Loads the saved activities. A missing file is a fresh start; a corrupt, unreadable or
    /// unknown-schema file is moved aside (`activities.json.bad-<ms>`) and reported, never fatal.
    public func load() -> LoadedState {
        let bytes: [UInt8]
        switch FileIO.read(path) {
        case .success(let b): bytes = b
        case .failure(let e):
            if e.errno.code == ENOENT { return LoadedState(activities: [], savedAt: nil, problem: nil) }
            return LoadedState(activities: [], savedAt: nil, problem: moveAside("it could not be read (\(e))"))
        }
        struct Probe: Decodable { var schema: Int? }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: Data(bytes)) else {
            return LoadedState(activities: [], savedAt: nil, problem: moveAside("it is not valid JSON"))
        }
        guard probe.schema == StateFile.schemaVersion else {
            return LoadedState(activities: [], savedAt: nil,
                               problem: moveAside("its schema \(probe.schema.map(String.init) ?? "(none)") is not \(StateFile.schemaVersion), the one this build reads"))
        }
        do {
            let file = try JSONDecoder().decode(StateFile.self, from: Data(bytes))
            guard let savedAt = ISO8601.parse(file.savedAt) else {
                return LoadedState(activities: [], savedAt: nil, problem: moveAside("saved_at is not an ISO-8601 instant"))
            }
            return LoadedState(activities: file.activities, savedAt: savedAt, problem: nil)
        } catch {
            return LoadedState(activities: [], savedAt: nil, problem: moveAside("it does not decode (\(error))"))
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
    static func read(_ path: String, limit: Int = 1 << 20) -> Result<[UInt8], SystemError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(SystemError("open \(path)")) }
        defer { close(fd) }
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
