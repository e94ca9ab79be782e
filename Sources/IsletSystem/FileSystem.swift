#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// What stat(2) says about a file, as much as the project looks at.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case regular, directory, socket, symbolicLink, fifo, characterDevice, blockDevice, unknown
    }
    public var kind: Kind
    /// The permission bits (mode & 0o7777).
    public var permissions: UInt32
    public var owner: UInt32
    public var group: UInt32

    init(_ st: stat) {
        kind = switch st.st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFSOCK: .socket
        case S_IFLNK: .symbolicLink
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        default: .unknown
        }
        permissions = UInt32(st.st_mode & 0o7777)
        owner = UInt32(st.st_uid)
        group = UInt32(st.st_gid)
    }
}

/// Paths in the file system: each call's error names the call and the path.
public enum FileSystem {
    /// stat(2), or lstat(2) when `followLinks` is false (a link is reported, not its target).
    public static func status(_ path: String, followLinks: Bool = true) throws(SystemError) -> FileStatus {
        var st = stat()
        if followLinks {
            guard stat(path, &st) == 0 else { throw SystemError("stat \(path)") }
        } else {
            guard lstat(path, &st) == 0 else { throw SystemError("lstat \(path)") }
        }
        return FileStatus(st)
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
    /// This process may read the file (access(2) with R_OK).
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// This process may run the file (access(2) with X_OK).
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Where a symbolic link points (readlink(2)), e.g. /proc/self/exe; nil when it is none.
    public static func linkTarget(_ path: String) -> String? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buf, buf.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// mkdir(2) of one directory.
    public static func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        guard mkdir(path, mode_t(permissions)) == 0 else { throw SystemError("mkdir \(path)") }
    }

    /// A new directory of this user's only, named `prefix` and six random characters (mkdtemp(3)).
    public static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { b in b.baseAddress.flatMap { mkdtemp($0) } }
        guard let made else { throw SystemError("mkdtemp \(prefix)XXXXXX") }
        return String(cString: made)
    }

    public static func remove(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw SystemError("unlink \(path)") }
    }

    public static func rename(_ from: String, to: String) throws(SystemError) {
        guard Glibc.rename(from, to) == 0 else { throw SystemError("rename \(from) to \(to)") }
    }

    public static func setPermissions(_ path: String, _ mode: UInt32) throws(SystemError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw SystemError("chmod \(path)") }
    }

    /// Gives the file to `group`, its owner unchanged.
    public static func setGroup(_ path: String, _ group: UInt32) throws(SystemError) {
        guard chown(path, uid_t.max, gid_t(group)) == 0 else { throw SystemError("chown \(path)") }
    }

    /// Reads a regular file. Non-blocking, so a FIFO or device at the path cannot hang the
    /// caller in open(2) or read(2), and refused unless it is a regular file.
    /// `followLinks: false` also refuses a symlink.
    public static func readFile(_ path: String, limit: Int = 1 << 20, followLinks: Bool = true) -> Result<[UInt8], SystemError> {
        do throws(SystemError) {
            var options: OpenOptions = [.nonBlocking, .noControllingTerminal]
            if !followLinks { options.insert(.noFollow) }
            let fd = try FileDescriptor.open(path, options)
            let st: FileStatus
            do { st = try fd.status() } catch { throw SystemError("stat \(path)", error.errno) }
            guard st.kind == .regular else { throw SystemError("open \(path): not a regular file", .invalidArgument) }
            do { return .success(try fd.readAll(limit: limit)) } catch { throw SystemError("read \(path)", error.errno) }
        } catch {
            return .failure(error)
        }
    }

    /// The names in a directory, without "." and "..", in the order the directory gives them.
    public static func directoryEntries(_ path: String) throws(SystemError) -> [String] {
        guard let dir = opendir(path) else { throw SystemError("opendir \(path)") }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            // readdir returns nil at the end and on error: errno tells them apart.
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw SystemError("readdir \(path)") }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Writes `bytes` to a new file beside `path` (O_EXCL|O_NOFOLLOW, `permissions`), syncs it
    /// and renames it over `path`: a symlink at `path` is replaced, never written through, and
    /// the file has `permissions` (under the umask) whatever was there before. A reader sees
    /// the old file or the new one.
    public static func replaceFile(_ path: String, _ bytes: [UInt8], permissions: UInt32) throws(SystemError) {
        let tmp = path + ".\(getpid()).tmp"
        let options: OpenOptions = [.writeOnly, .create, .exclusive, .noFollow]
        let fd: FileDescriptor
        do throws(SystemError) { fd = try FileDescriptor.open(tmp, options, permissions: permissions) } catch where error.errno == .fileExists {
            // A leftover of a killed run with this pid, or a planted link: removed, not followed.
            unlink(tmp)
            fd = try FileDescriptor.open(tmp, options, permissions: permissions)
        }
        do throws(SystemError) {
            do { try fd.writeAll(bytes) } catch { throw SystemError("write \(tmp)", error.errno) }
            do { try fd.sync() } catch { throw SystemError("fsync \(tmp)", error.errno) }
            fd.close()
            guard Glibc.rename(tmp, path) == 0 else { throw SystemError("rename \(tmp) to \(path)") }
        } catch {
            fd.close()
            unlink(tmp)
            throw error
        }
    }

    /// Reads standard input to its end; past `limit` bytes it stops with EFBIG, having read at
    /// most one chunk more (an endless stream is not read to its end).
    public static func readStandardInput(limit: Int) -> Result<[UInt8], SystemError> {
        do throws(SystemError) {
            let fd = try FileDescriptor(returned: dup(0), "dup standard input")
            do { return .success(try fd.readAll(limit: limit)) } catch { throw SystemError("read standard input", error.errno) }
        } catch {
            return .failure(error)
        }
    }

    /// Creates or truncates `path` and writes `bytes` (not atomic: for output files a person asked for).
    public static func writeFile(_ path: String, _ bytes: [UInt8], permissions: UInt32 = 0o666) throws(SystemError) {
        let fd = try FileDescriptor.open(path, [.writeOnly, .create, .truncate], permissions: permissions)
        do { try fd.writeAll(bytes) } catch { throw SystemError("write \(path)", error.errno) }
    }
}

/// Who this process is, and the users and groups it names.
public enum Identity {
    public static var processID: Int32 { getpid() }
    /// Ends the process at once with SIGABRT, as a crash would (a test seam's crash, no cleanup).
    public static func abortProcess() -> Never { abort() }
    /// Runs `body` when the process exits normally (exit(3) or a return from main), not on a
    /// signal or an abort.
    public static func atExit(_ body: @escaping @convention(c) () -> Void) { atexit(body) }
    public static var userID: UInt32 { UInt32(getuid()) }
    public static var effectiveUserID: UInt32 { UInt32(geteuid()) }
    public static var effectiveGroupID: UInt32 { UInt32(getegid()) }

    /// The group's id, or nil when no group has that name.
    public static func groupID(named name: String) -> UInt32? {
        getgrnam(name).map { UInt32($0.pointee.gr_gid) }
    }

    public static func groupName(of id: UInt32) -> String? {
        guard let g = getgrgid(gid_t(id)), let n = g.pointee.gr_name else { return nil }
        return String(cString: n)
    }

    /// The home directory of the user in the password database.
    public static func homeDirectory(of user: UInt32) -> String? {
        guard let pw = getpwuid(uid_t(user)), let dir = pw.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }
}
