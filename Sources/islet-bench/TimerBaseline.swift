import IsletSystem

/// What this machine gives any program: a thread that does nothing but sleep on a timerfd armed
/// at each whole second (absolute CLOCK_MONOTONIC, as isletd arms its deadlines) and notes how
/// late it woke. Run over the same seconds as the daemon's tick-lateness window, it separates
/// the loop's lateness from the scheduler's (on a VM: the host's, shown as steal time).
final class TimerBaseline: @unchecked Sendable {
    // @unchecked: `samples` is written by the thread and read only after `finished` is signalled.
    private var samples: [Double] = []
    /// Signalled once by the thread when it is done (nil: no eventfd, and so no thread).
    private let finished = try? EventCounter()
    private let stealBefore = TimerBaseline.stealJiffies()

    /// Starts `count` wake-ups at the next whole seconds (plus `phaseMs`, off the daemon's ticks).
    init(count: Int, phaseMs: Int64 = 500) {
        guard finished != nil else { return }
        // The thread keeps `self` until it is done; a thread that cannot start leaves no samples.
        let started: Void? = try? DetachedThread.start { [self] in
            defer { finished?.signal() }
            guard let timer = try? MonotonicTimer() else { return }
            let start = SystemClock.monotonic().nanoseconds / 1_000_000_000 + 1
            for k in 0..<UInt64(count) {
                let due = MonotonicInstant(nanoseconds: (start + k) * 1_000_000_000 + UInt64(phaseMs) * 1_000_000)
                guard (try? timer.arm(at: due)) != nil else { return }
                _ = try? timer.fd.waitReadable(timeoutMs: -1)
                _ = timer.clear()
                samples.append(Double(SystemClock.monotonic().nanoseconds(since: due)) / 1e6)
            }
        }
        if started == nil { finished?.signal() }
    }

    /// Waits for the last wake-up; a note for bench.json.
    func note() -> String {
        if let finished { _ = try? finished.fd.waitReadable(timeoutMs: -1) }
        let steal = TimerBaseline.stealJiffies().map { s in stealBefore.map { s - $0 } ?? 0 }
        guard let p50 = Stats.median(samples), let p99 = Stats.percentile(samples, 99), let worst = samples.max() else {
            return "no samples (timerfd unavailable)"
        }
        return "p50 \(Report.number(p50)), p99 \(Report.number(p99)), max \(Report.number(worst)) ms over \(samples.count) wake-ups of a bare timerfd thread in the same window, \(samples.filter { $0 > 1 }.count) of them over 1 ms"
            + (steal.map { "; steal time meanwhile \($0 * 10) ms (/proc/stat)" } ?? "")
    }

    /// The machine's steal time so far, in jiffies of 10 ms (the 8th figure of /proc/stat's cpu line).
    static func stealJiffies() -> Int? {
        guard case .success(let bytes) = FileSystem.readFile("/proc/stat"),
              case let text = String(decoding: bytes, as: UTF8.self),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let f = line.split(separator: " ")
        return f.count > 8 ? Int(f[8]) : nil
    }
}
