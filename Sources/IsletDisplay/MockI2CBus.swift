import IsletSystem
import IsletErrno
import IsletFrame
import Synchronization

/// A bus with emulated panels on it, for tests and for running without hardware. It enforces the
/// transport's transaction limit like a real adapter, records every transaction to an optional
/// capture file, and injects failures. Safe to share between threads: the daemon writes while a
/// preview reads the image.
public final class MockI2CBus: I2CBus, Sendable {
    public let capabilities: I2CCapabilities
    /// Name used in errors, like a device path.
    public let device: String
    private let clock: @Sendable () -> UInt64
    /// True when `clock` is CLOCK_MONOTONIC, so the capture header can state its origin on it.
    private let clockIsMonotonic: Bool
    private let state: Mutex<State>

    private struct Window {
        var from: UInt64
        var until: UInt64
        var errno: Errno
        var powerCycle: Bool
        var hit = false
    }

    private struct State: ~Copyable {
        var panels: [UInt8: EmulatedPanel] = [:]
        var attempted = 0
        var failAt: [Int: Errno] = [:]
        var windows: [Window] = []
        var unplugged: Errno? = nil
        var capture: CaptureFile? = nil
        var captureStart: UInt64 = 0
        var powerCycles: UInt64 = 0
    }

    /// A bus with one panel at `address`. `clock` gives monotonic nanoseconds (tests inject one).
    public init(panel: PanelModel, address: UInt8 = 0x3C, transport: I2CTransport = .plainI2C,
                device: String = "mock-i2c", clock: (@Sendable () -> UInt64)? = nil) {
        switch transport {
        case .plainI2C: capabilities = .plainI2C
        case .smbusBlock: capabilities = .smbusBlock
        }
        self.device = device
        self.clock = clock ?? MockI2CBus.monotonicNanoseconds
        self.clockIsMonotonic = clock == nil
        var s = State()
        s.panels[address] = EmulatedPanel(model: panel)
        state = Mutex(s)
    }

    public static func monotonicNanoseconds() -> UInt64 {
        SystemClock.monotonic().nanoseconds
    }

    /// Adds another emulated panel (or replaces one) at an address.
    public func attach(_ panel: PanelModel, at address: UInt8) {
        state.withLock { $0.panels[address] = EmulatedPanel(model: panel) }
    }

    // MARK: I2CBus

    public func write(address: UInt8, bytes: [UInt8]) throws(I2CError) {
        let now = clock()
        let failure: I2CError? = state.withLock { s -> I2CError? in
            let index = s.attempted
            s.attempted += 1
            let stamp = now &- s.captureStart
            var code: Errno? = nil
            if bytes.isEmpty || bytes.count > capabilities.maxTransactionBytes {
                code = bytes.isEmpty ? .invalidArgument : (capabilities.transport == .smbusBlock ? .invalidArgument : .messageTooLong)
            } else if let c = s.failAt.removeValue(forKey: index) {
                code = c
            } else if let c = s.unplugged {
                code = c
            } else {
                for i in s.windows.indices where now >= s.windows[i].from && now < s.windows[i].until {
                    code = s.windows[i].errno
                    if s.windows[i].powerCycle && !s.windows[i].hit {
                        s.windows[i].hit = true
                        // The panel lost power: it comes back with reset registers and noise in RAM.
                        s.powerCycles += 1
                        for (a, p) in s.panels { s.panels[a] = EmulatedPanel(model: p.model, powerOnSeed: 0xC0FFEE &+ s.powerCycles) }
                    }
                    break
                }
            }
            if code == nil && s.panels[address] == nil { code = .remoteIO }
            if let code {
                let e = I2CError.transfer(device: device, address: address, errno: code)
                s.capture?.append("# \(stamp) \(Hex.byte(address)) failed: \(e.errno) (errno \(code.code))")
                return e
            }
            s.capture?.append(CaptureFormat.line(CaptureRecord(nanoseconds: stamp, address: address, bytes: bytes)))
            s.panels[address]?.receive(bytes)
            return nil
        }
        if let failure { throw failure }
    }

    // MARK: what the panel shows

    /// The visible image of the panel at `address` (empty 1×1 when there is none).
    public func image(at address: UInt8 = 0x3C) -> Bitmap {
        state.withLock { $0.panels[address]?.image } ?? Bitmap(width: 1, height: 1)
    }

    /// A snapshot of the emulated panel at `address`.
    public func panel(at address: UInt8 = 0x3C) -> EmulatedPanel? {
        state.withLock { $0.panels[address] }
    }

    /// Malformed-stream reports of every panel, oldest first per panel.
    public var problems: [PanelProblem] {
        state.withLock { s in s.panels.keys.sorted().flatMap { s.panels[$0]?.problems ?? [] } }
    }

    public func clearProblems() {
        state.withLock { s in for a in s.panels.keys { s.panels[a]?.clearProblems() } }
    }

    /// Transactions attempted so far, failed ones included (the index `failTransaction` counts in).
    public var attemptedTransactions: Int { state.withLock { $0.attempted } }

    // MARK: faults

    /// Makes the attempt with 0-based index `k` (counted over the bus's life) fail with `errno`.
    public func failTransaction(_ k: Int, errno code: Errno = .remoteIO) {
        state.withLock { $0.failAt[k] = code }
    }

    /// Fails every transaction while the clock is in `from..<until` (nanoseconds of `clock`).
    /// With `powerCycle` the panel behaves as unplugged: it comes back reset, RAM full of noise.
    public func failAll(from: UInt64, until: UInt64, errno code: Errno = .remoteIO, powerCycle: Bool = true) {
        state.withLock { $0.windows.append(Window(from: from, until: until, errno: code, powerCycle: powerCycle)) }
    }

    /// The panel is pulled off the bus: every transaction fails until `plugIn()`.
    public func unplug(errno code: Errno = .remoteIO) {
        state.withLock { $0.unplugged = code }
    }

    /// The panel is back, freshly powered.
    public func plugIn() {
        state.withLock { s in
            guard s.unplugged != nil else { return }
            s.unplugged = nil
            s.powerCycles += 1
            for (a, p) in s.panels { s.panels[a] = EmulatedPanel(model: p.model, powerOnSeed: 0xC0FFEE &+ s.powerCycles) }
        }
    }

    // MARK: capture

    /// Starts recording every transaction to `path` (truncated); timestamps count from now.
    public func startCapture(to path: String) throws(CaptureError) {
        let now = clock()
        // The origin on CLOCK_MONOTONIC lets another process (the benchmark) place every line on
        // its own clock exactly; an injected test clock states nothing it cannot vouch for.
        let origin = clockIsMonotonic ? "; monotonic_ns=\(now)" : ""
        let header = "# islet i2c capture: <ns since open> <7-bit address> <bytes after the address>; transport \(capabilities.transport)\(origin)"
        try state.withLock { s throws(CaptureError) in
            let file = try CaptureFile(path: path)
            s.capture?.close()
            s.capture = file
            s.captureStart = now
            file.append(header)
        }
    }

    /// Why the capture stopped early (a write to its file failed), nil while it records fine.
    /// The bus itself keeps working: a full disk must not take the panel down.
    public var captureError: CaptureError? {
        state.withLock { $0.capture?.failure }
    }

    public func stopCapture() {
        state.withLock { s in
            s.capture?.close()
            s.capture = nil
        }
    }
}
