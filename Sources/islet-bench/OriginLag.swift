import IsletSystem

/// How late inotify tells us that another process created a file: the error of a capture origin
/// taken from inotify. A child (`islet-bench touch PATH`) reads CLOCK_MONOTONIC, creates the file
/// at once and prints the reading; we compare it with the moment our poll woke.
enum OriginLag {
    static func touch(_ path: String) -> Int32 {
        let t = Clocks.monotonicNs()
        guard (try? FileSystem.writeFile(path, [], permissions: 0o644)) != nil else { return 1 }
        print(t)
        return 0
    }

    /// Lag samples in microseconds, or nil when the child or inotify cannot be used.
    static func measure(dir: String, samples: Int = 20) -> [Double]? {
        let me = Processes.selfPath()
        var lags: [Double] = []
        for i in 0..<samples {
            let name = "lag-\(i)"
            guard let watch = try? OpenWatch(directory: dir, file: name) else { return nil }
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
            try? FileSystem.remove(out)
            try? FileSystem.remove(dir + "/" + name)
            guard let w = woke, let t = Int64(text.split(separator: "\n").last ?? "") else { continue }
            lags.append(Double(w - t) / 1000)
        }
        return lags.isEmpty ? nil : lags
    }
}
