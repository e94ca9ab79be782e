#if canImport(Glibc)
import Glibc
#endif

/// The clocks the benchmark reads. Monotonic for wall durations, the thread's CPU clock for
/// work (it does not count time other processes on the shared cores take from us).
enum Clocks {
    static func monotonicNs() -> Int64 { read(CLOCK_MONOTONIC) }
    static func threadCPUNs() -> Int64 { read(CLOCK_THREAD_CPUTIME_ID) }
    static func wallNs() -> Int64 { read(CLOCK_REALTIME) }

    private static func read(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func sleep(ms: Int) {
        var ts = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }
}

/// The allocation counter of bench/alloc_count.c, present when `make bench` runs us with
/// LD_PRELOAD; nil otherwise, and the allocation figure is then reported missing.
struct AllocationCounter {
    private let read: @convention(c) () -> UInt64

    init?() {
        // RTLD_DEFAULT is the null handle in glibc: search the whole process.
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "islet_alloc_count") else { return nil }
        read = unsafeBitCast(sym, to: (@convention(c) () -> UInt64).self)
    }

    var count: UInt64 { read() }
}
