#if canImport(Glibc)
import Glibc
#endif

/// How late inotify tells us that another process created a file: the error of a capture origin
/// taken from inotify. A child (`islet-bench touch PATH`) reads CLOCK_MONOTONIC, creates the file
/// at once and prints the reading; we compare it with the moment our poll woke.
enum OriginLag {
    static func touch(_ path: String) -> Int32 {
        let t = Clocks.monotonicNs()
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return 1 }
        close(fd)
        print(t)
        return 0
    }

    /// Lag samples in microseconds, or nil when the child or inotify cannot be used.
    static func measure(dir: String, samples: Int = 20) -> [Double]? {
        let me = Processes.selfPath()
        var lags: [Double] = []
        for i in 0..<samples {
            let name = "lag-\(i)"
            guard let watch = OpenWatch(directory: dir, file: name) else { return nil }
            defer { watch.close() }
            let out = dir + "/lag.out"
            guard case .success(let pid) = Processes.spawn(me, ["touch", dir + "/" + name], log: out) else { return nil }
            var woke: Int64?
            let until = Clocks.monotonicNs() + 5_000_000_000
            while woke == nil && Clocks.monotonicNs() < until {
                woke = watch.poll(timeoutMs: 100)
            }
            _ = Processes.wait(pid)
            let text = Processes.readFile(out) ?? ""
            unlink(out)
            unlink(dir + "/" + name)
            guard let w = woke, let t = Int64(text.split(separator: "\n").last ?? "") else { continue }
            lags.append(Double(w - t) / 1000)
        }
        return lags.isEmpty ? nil : lags
    }
}
