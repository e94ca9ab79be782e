import IsletSystem

/// Starting the real binaries and reading what the kernel knows about them.
enum Processes {
    /// The directory islet-bench runs from; isletd and isletctl are built next to it.
    static func binDirectory() -> String {
        guard let path = FileSystem.linkTarget("/proc/self/exe") else { return ".build/release" }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// This executable's path.
    static func selfPath() -> String {
        FileSystem.linkTarget("/proc/self/exe") ?? CommandLine.arguments.first ?? "islet-bench"
    }

    /// Spawns `path args`, stdout and stderr appended to `log`. Returns the pid or an error text.
    static func spawn(_ path: String, _ args: [String], log: String) -> Result<Int32, SpawnError> {
        do { return .success(try ChildProcess.spawn(path, args, logAppendedTo: log).pid) }
        catch { return .failure(SpawnError(text: error.description)) }
    }

    /// Runs a command to completion and returns its exit status and standard output.
    static func run(_ path: String, _ args: [String], scratch: String) -> (status: Int32, output: String)? {
        let out = scratch + "/run-\(Clocks.monotonicNs()).out"
        guard case .success(let pid) = spawn(path, args, log: out) else { return nil }
        let status = wait(pid)
        let text = readFile(out) ?? ""
        try? FileSystem.remove(out)
        return (status, text)
    }

    /// Waits for a child; returns its exit status (128+signal when killed).
    static func wait(_ pid: Int32) -> Int32 { ChildProcess.wait(pid) }

    /// True while the child has not exited (reaps it if it has).
    static func alive(_ pid: Int32) -> Bool { ChildProcess.isRunning(pid) }

    /// Writes a small text file (a config for a child); false when it cannot.
    @discardableResult
    static func write(_ path: String, _ text: String) -> Bool {
        (try? FileSystem.writeFile(path, Array(text.utf8), permissions: 0o600)) != nil
    }

    static func readFile(_ path: String) -> String? {
        guard case .success(let data) = FileSystem.readFile(path, limit: 1 << 30) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Voluntary plus involuntary context switches of each thread of `pid`, by thread id: each is
    /// one time a thread went off the CPU, so their growth over a window counts the wake-ups.
    static func contextSwitches(_ pid: Int32) -> [Int: Int]? {
        guard let names = try? FileSystem.directoryEntries("/proc/\(pid)/task") else { return nil }
        var out: [Int: Int] = [:]
        for name in names {
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

    /// Proportional and private memory now, in kB, from /proc/PID/smaps_rollup (the sums over
    /// every mapping): a shared library's pages count in PSS by the share this process has of
    /// them, and in private only where no other process maps them.
    static func memoryKiB(_ pid: Int32) -> (pss: Int, private: Int)? {
        guard let rollup = readFile("/proc/\(pid)/smaps_rollup") else { return nil }
        var pss: Int?, clean: Int?, dirty: Int?
        for line in rollup.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2, let kb = Int(parts[1]) else { continue }
            switch parts[0] {
            case "Pss:": pss = kb
            case "Private_Clean:": clean = kb
            case "Private_Dirty:": dirty = kb
            default: break
            }
        }
        guard let pss, let clean, let dirty else { return nil }
        return (pss, clean + dirty)
    }

    /// A field of /proc/PID/status in kB (e.g. VmHWM, the peak resident set).
    static func statusKiB(_ pid: Int32, _ field: String) -> Int? {
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

