import IsletSystem

/// The clocks the benchmark reads. Monotonic for wall durations, the thread's CPU clock for
/// work (it does not count time other processes on the shared cores take from us).
enum Clocks {
    static func monotonicNs() -> Int64 { Int64(SystemClock.monotonic().nanoseconds) }
    static func threadCPUNs() -> Int64 { Int64(SystemClock.threadCPUNanoseconds()) }
    static func wallNs() -> Int64 { Int64(SystemClock.wallNanoseconds()) }

    static func sleep(ms: Int) { CurrentThread.sleep(milliseconds: ms) }
}

/// The allocation counter of bench/alloc_count.c, present when `make bench` runs us with
/// LD_PRELOAD; nil otherwise, and the allocation figure is then reported missing.
struct AllocationCounter {
    private let read: @convention(c) () -> UInt64

    init?() {
        guard let sym = SystemInfo.symbol(named: "islet_alloc_count") else { return nil }
        read = unsafeBitCast(sym, to: (@convention(c) () -> UInt64).self)
    }

    var count: UInt64 { read() }
}
