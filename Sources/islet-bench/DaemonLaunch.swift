import IsletSystem

/// Starting the real isletd on the mock bus, stopping it, and reading its capture as it grows.
extension DaemonBench {
    /// One started isletd with its own capture file.
    final class Daemon {
        let pid: Int32
        let log: String
        let reader: CaptureReader
        let spawnedAt: Int64
        private var stopped = false

        init(pid: Int32, log: String, reader: CaptureReader, spawnedAt: Int64) {
            self.pid = pid
            self.log = log
            self.reader = reader
            self.spawnedAt = spawnedAt
        }

        func stop(signal: ChildProcess.Signal = .terminate) {
            guard !stopped else { return }
            stopped = true
            ChildProcess.send(signal, to: pid)
            let until = Clocks.monotonicNs() + 3_000_000_000
            while Processes.alive(pid) && Clocks.monotonicNs() < until { Clocks.sleep(ms: 20) }
            if Processes.alive(pid) { ChildProcess.send(.kill, to: pid); _ = Processes.wait(pid) }
        }

        var deathNote: String {
            let first = (Processes.readFile(log) ?? "").split(separator: "\n").first.map(String.init) ?? "no output"
            return "isletd on the mock bus did not run (\(first))"
        }
    }

    /// Starts isletd on the mock bus and waits until it serves its socket (10 s at most). The
    /// capture's origin is taken from inotify unless the capture states it.
    func launch(dir: String, capture: String, sock: String, state: String, extra: [String] = []) -> Result<Daemon, SpawnError> {
        let watch: OpenWatch
        do { watch = try OpenWatch(directory: dir, file: capture) } catch {
            return .failure(SpawnError(text: "inotify is unavailable: \(error.errno)"))
        }
        defer { watch.close() }
        let log = dir + "/isletd.log"
        let t0 = Clocks.monotonicNs()
        let spawned = Processes.spawn(isletd, ["--bus", "mock", "--buttons", "mock", "--preview", "none", "--size", size,
                                               "--capture", dir + "/" + capture, "--socket", sock, "--state-dir", state] + extra,
                                      log: log)
        guard case .success(let pid) = spawned else {
            if case .failure(let e) = spawned { return .failure(e) }
            return .failure(SpawnError(text: "cannot start isletd"))
        }
        var openedAt: Int64?
        var serving = false
        var upBy = t0 + 10_000_000_000
        while Clocks.monotonicNs() < upBy && !(serving && openedAt != nil) {
            if openedAt == nil, let t = watch.poll(timeoutMs: 2) { openedAt = t }
            if !serving {
                serving = SocketClient(path: sock).map { $0.close(); return true } ?? false
                // Serving: the capture, if there is one, is open by now or within a second.
                if serving { upBy = min(upBy, Clocks.monotonicNs() + 1_000_000_000) }
            }
            if !serving && openedAt != nil { Clocks.sleep(ms: 2) }
            if !Processes.alive(pid) { break }
        }
        let d = Daemon(pid: pid, log: log, reader: CaptureReader(path: dir + "/" + capture, openedAt: openedAt), spawnedAt: t0)
        guard serving else {
            let why = Processes.alive(pid) ? "isletd did not serve \(sock) within 10 s" : d.deathNote
            d.stop()
            return .failure(SpawnError(text: why))
        }
        return .success(d)
    }
}

/// Reads the growing capture file and knows where its timeline starts on our monotonic clock.
final class CaptureReader {
    let path: String
    private(set) var origin: Int64
    private(set) var originMethod = "inotify IN_CREATE/IN_OPEN of the capture file (late by our wake-up latency)"

    /// False when the daemon never created or opened the capture file.
    let hasOrigin: Bool

    init(path: String, openedAt: Int64?) {
        self.path = path
        self.origin = openedAt ?? 0
        self.hasOrigin = openedAt != nil
    }

    func read() -> [Transaction] {
        guard hasOrigin else { return [] }
        let parsed = Capture.parse(Processes.readFile(path) ?? "")
        if let stated = Capture.statedOrigin(parsed.comments) {
            origin = stated
            originMethod = "monotonic_ns stated in the capture header"
        }
        return parsed.transactions
    }
}
