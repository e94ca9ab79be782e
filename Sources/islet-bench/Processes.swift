#if canImport(Glibc)
import Glibc
#endif

/// Starting the real binaries and reading what the kernel knows about them.
enum Processes {
    /// The directory islet-bench runs from; isletd and isletctl are built next to it.
    static func binDirectory() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return ".build/release" }
        let path = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// This executable's path.
    static func selfPath() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return CommandLine.arguments.first ?? "islet-bench" }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Spawns `path args`, stdout and stderr appended to `log`. Returns the pid or an error text.
    static func spawn(_ path: String, _ args: [String], log: String) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { return .failure(SpawnError(text: "cannot start \(path): \(String(cString: strerror(rc)))")) }
        return .success(pid)
    }

    /// Runs a command to completion and returns its exit status and standard output.
    static func run(_ path: String, _ args: [String], scratch: String) -> (status: Int32, output: String)? {
        let out = scratch + "/run-\(Clocks.monotonicNs()).out"
        guard case .success(let pid) = spawn(path, args, log: out) else { return nil }
        let status = wait(pid)
        let text = readFile(out) ?? ""
        unlink(out)
        return (status, text)
    }

    /// Waits for a child; returns its exit status (128+signal when killed).
    static func wait(_ pid: pid_t) -> Int32 {
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 { if errno != EINTR { return -1 } }
        if st & 0x7f == 0 { return (st >> 8) & 0xff }
        return 128 + (st & 0x7f)
    }

    /// True while the child has not exited (reaps it if it has).
    static func alive(_ pid: pid_t) -> Bool {
        var st: Int32 = 0
        return waitpid(pid, &st, WNOHANG) == 0
    }

    /// Writes a small text file (a config for a child); false when it cannot.
    @discardableResult
    static func write(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            data += chunk[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Voluntary plus involuntary context switches of each thread of `pid`, by thread id: each is
    /// one time a thread went off the CPU, so their growth over a window counts the wake-ups.
    static func contextSwitches(_ pid: pid_t) -> [Int: Int]? {
        guard let dir = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(dir) }
        var out: [Int: Int] = [:]
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard let tid = Int(name), let status = readFile("/proc/\(pid)/task/\(name)/status") else { continue }
            var n = 0
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:")
                || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                n += line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.flatMap({ Int($0) }) ?? 0
            }
            out[tid] = n
        }
        return out.isEmpty ? nil : out
    }

    /// A field of /proc/PID/status in kB (e.g. VmHWM, the peak resident set).
    static func statusKiB(_ pid: pid_t, _ field: String) -> Int? {
        guard let status = readFile("/proc/\(pid)/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            // "VmHWM:\t    8192 kB"
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count >= 2 { return Int(parts[1]) }
        }
        return nil
    }
}

struct SpawnError: Error { var text: String }

