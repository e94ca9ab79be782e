import IsletFrame
import IsletCore
import IsletRender
import IsletDisplay

/// The figures measured inside this process on the library itself: render and flush cost, the
/// allocation count, and the bytes the driver puts on the bus over a whole countdown.
/// Each figure is its own function; a piece that cannot run reports why instead of a number.
struct InProcessBench {
    var quick = false
    private var reps: Int { quick ? 2 : 20 }
    private let countdown = Countdown()

    init(quick: Bool) { self.quick = quick }

    func run(into r: inout Results) {
        guard countdown.isRunning else {
            for k in Key.allCases where !DaemonBench.keys.contains(k) { r[k] = .missing("the core refused to start the 10-minute countdown") }
            return
        }
        let renderer: Renderer
        do { renderer = try Renderer() } catch {
            for k in Key.allCases where !DaemonBench.keys.contains(k) { r[k] = .missing("renderer fonts: \(error)") }
            return
        }
        r[.renderNsPerTick] = renderNsPerTick(renderer)
        r[.renderAllocsPerTick] = renderAllocsPerTick(renderer)
        (r[.renderUntilNsPerTick], r[.renderUntilAllocsPerTick]) = UntilRender().measure(renderer, reps: reps)
        r[.renderInstructionsPerTick] = Instructions.perTick("render", scratch: "/tmp")
        r[.flushInstructionsPerTick] = Instructions.perTick("flush", scratch: "/tmp")
        let compact = countdown.frames(renderer, size: .w128h32, presentation: .compact)
        r[.flushNsPerTick] = flushNsPerTick(compact)
        busFigures(renderer, compact, into: &r)
        r.note("render_samples", "\(reps * countdown.scenes.count) renders, \(reps * (countdown.scenes.count - 1)) flushes")
    }

    /// Median wall time of one compact 128×32 render of the running countdown.
    func renderNsPerTick(_ renderer: Renderer) -> Figure {
        var frame = Bitmap(width: 128, height: 32)
        for s in countdown.scenes { renderer.render(s.activities, presentation: .compact, now: s.now, into: &frame) }
        var samples: [Double] = []
        samples.reserveCapacity(reps * countdown.scenes.count)
        for _ in 0..<reps {
            for s in countdown.scenes {
                let t = Clocks.monotonicNs()
                renderer.render(s.activities, presentation: .compact, now: s.now, into: &frame)
                samples.append(Double(Clocks.monotonicNs() - t))
            }
        }
        return Stats.median(samples).map(Figure.value) ?? .missing("no samples")
    }

    /// Heap allocations per render once the caches are warm (every second drawn once before).
    func renderAllocsPerTick(_ renderer: Renderer) -> Figure {
        guard let counter = AllocationCounter() else {
            return .missing("needs the allocation counter: run through make bench (LD_PRELOAD of bench/alloc_count.c)")
        }
        // The counter must see Swift's own allocations, or a 0 would mean nothing.
        let probe = counter.count
        var frames: [Bitmap] = []
        for h in 1...16 { frames.append(Bitmap(width: 128, height: 8 * h)) }
        guard counter.count - probe >= 16, frames.count == 16 else {
            return .missing("the allocation counter did not see 16 test allocations; the figure would mean nothing")
        }
        var frame = Bitmap(width: 128, height: 32)
        for s in countdown.scenes { renderer.render(s.activities, presentation: .compact, now: s.now, into: &frame) }
        let before = counter.count
        for s in countdown.scenes { renderer.render(s.activities, presentation: .compact, now: s.now, into: &frame) }
        let after = counter.count
        return .value(Double(after - before) / Double(countdown.scenes.count))
    }

    /// Median wall time of one flush (diff against the shadow plus encoding) of a tick's frame,
    /// on a bus that only counts, so the figure is the driver's work alone.
    func flushNsPerTick(_ frames: [Bitmap]) -> Figure {
        guard let model = PanelModel.find(.ssd1306, width: 128, height: 32) else { return .missing("no SSD1306 128x32 row") }
        let bus = CountingBus(.plainI2C)
        var driver = PanelDriver(bus: bus, panel: model)
        var samples: [Double] = []
        do {
            _ = try driver.initialize()
            for _ in 0..<reps {
                _ = try driver.flush(frames[0])
                for f in frames.dropFirst() {
                    let t = Clocks.monotonicNs()
                    _ = try driver.flush(f)
                    samples.append(Double(Clocks.monotonicNs() - t))
                }
            }
        } catch {
            return .missing("flush failed: \(error)")
        }
        return Stats.median(samples).map(Figure.value) ?? .missing("no samples")
    }

    /// Bus traffic as the bus saw it (a TapBus in front of the mock bus).
    struct Traffic {
        var transactions = 0
        var bytes = 0
    }

    struct BusRun {
        var fullFrame: Traffic
        var ticks: Traffic
        /// The driver's own account of the same flushes, for the notes (data/command split).
        var fullFrameStats: FlushStats
        var tickStats: FlushStats
        var tickCount: Int
        var bytesPerTick: Double { Double(ticks.bytes) / Double(tickCount) }
        var transactionsPerTick: Double { Double(ticks.transactions) / Double(tickCount) }
    }

    /// The whole countdown through the driver onto the emulated panel: the first flush after the
    /// init sequence is the full frame, the 600 after it are the ticks. Bytes and transactions
    /// are counted by a tap between the driver and the bus, and must agree with the driver's own
    /// count; the panel's image must equal the last frame and the stream must be well formed,
    /// or there is no figure.
    func busRun(_ frames: [Bitmap], size: PanelSize, transport: I2CTransport) -> Result<BusRun, BusRunError> {
        guard let model = PanelModel.find(.ssd1306, width: size.width, height: size.height) else {
            return .failure(BusRunError(text: "no SSD1306 \(size) row in the controller table"))
        }
        let bus = MockI2CBus(panel: model, transport: transport)
        let tap = TapBus(bus)
        var driver = PanelDriver(bus: tap, panel: model)
        var run = BusRun(fullFrame: Traffic(), ticks: Traffic(), fullFrameStats: .zero, tickStats: .zero,
                         tickCount: frames.count - 1)
        do {
            _ = try driver.initialize()
            let r0 = tap.reading
            run.fullFrameStats = try driver.flush(frames[0])
            let r1 = tap.reading
            for f in frames.dropFirst() { run.tickStats = run.tickStats + (try driver.flush(f)) }
            let r2 = tap.reading
            run.fullFrame = Traffic(transactions: r1.transactions - r0.transactions, bytes: r1.bytes - r0.bytes)
            run.ticks = Traffic(transactions: r2.transactions - r1.transactions, bytes: r2.bytes - r1.bytes)
        } catch {
            return .failure(BusRunError(text: "flush failed on the mock bus: \(error)"))
        }
        if let p = bus.problems.first { return .failure(BusRunError(text: "the emulated panel rejected the stream: \(p)")) }
        if let last = frames.last, bus.image() != last {
            return .failure(BusRunError(text: "the emulated panel does not show the last frame"))
        }
        if run.ticks.bytes != run.tickStats.bytes || run.ticks.transactions != run.tickStats.transactions {
            return .failure(BusRunError(text: "the driver reports \(run.tickStats.bytes) bytes in \(run.tickStats.transactions) transactions, the bus saw \(run.ticks.bytes) in \(run.ticks.transactions)"))
        }
        return .success(run)
    }

    func busFigures(_ renderer: Renderer, _ compact: [Bitmap], into r: inout Results) {
        switch busRun(compact, size: .w128h32, transport: .plainI2C) {
        case .success(let run):
            r[.busBytesPerTick] = .value(run.bytesPerTick)
            r[.busTransactionsPerTick] = .value(run.transactionsPerTick)
            r[.busBytesFullFrame] = .value(Double(run.fullFrame.bytes))
            r[.busUsPerTick400kHz] = .value(Wire.microseconds(bytes: run.bytesPerTick, transactions: run.transactionsPerTick, hz: 400_000))
            r[.busUsPerTick100kHz] = .value(Wire.microseconds(bytes: run.bytesPerTick, transactions: run.transactionsPerTick, hz: 100_000))
            r.note("full_frame", "\(run.fullFrame.bytes) bytes in \(run.fullFrame.transactions) transactions (\(run.fullFrameStats.dataBytes) data, \(run.fullFrameStats.commandBytes) command)")
            r.note("ticks_128x32", "\(run.ticks.bytes) bytes in \(run.ticks.transactions) transactions over \(run.tickCount) ticks (\(run.tickStats.dataBytes) data, \(run.tickStats.commandBytes) command)")
        case .failure(let e):
            for k in [Key.busBytesPerTick, .busTransactionsPerTick, .busBytesFullFrame, .busUsPerTick400kHz, .busUsPerTick100kHz] {
                r[k] = .missing(e.text)
            }
        }
        switch busRun(compact, size: .w128h32, transport: .smbusBlock) {
        case .success(let run): r[.busBytesPerTickSMBus] = .value(run.bytesPerTick)
        case .failure(let e): r[.busBytesPerTickSMBus] = .missing(e.text)
        }
        let lock = countdown.frames(renderer, size: .w128h64, presentation: .lockscreen)
        switch busRun(lock, size: .w128h64, transport: .plainI2C) {
        case .success(let run):
            r[.busBytesPerTickLockscreen128x64] = .value(run.bytesPerTick)
            r[.busTransactionsPerTickLockscreen128x64] = .value(run.transactionsPerTick)
        case .failure(let e):
            r[.busBytesPerTickLockscreen128x64] = .missing(e.text)
            r[.busTransactionsPerTickLockscreen128x64] = .missing(e.text)
        }
        r[.busFloorBytesPerTick] = .value(Floor.figures(compact).floorBytesPerTick)
        r.note("floor_128x32", Floor.describe(compact))
    }
}

struct BusRunError: Error { var text: String }
