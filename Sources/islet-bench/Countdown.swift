import IsletFrame
import IsletCore
import IsletRender
import IsletDisplay
import Synchronization

/// The workload every in-process figure uses: a 10-minute countdown, one scene per shown second
/// from 10:00 down to the end (601 scenes, 600 one-second ticks), each advanced through the
/// core's state machine exactly as the daemon would, so the last scene is the completed session.
struct Countdown {
    static let seconds = 600

    /// (activities, now) per tick; built before any clock starts so the core's work is excluded.
    let scenes: [(activities: [Activity], now: Instant)]

    init() {
        let start = Instant(milliseconds: 1_800_000_000_000)
        let attrs = ActivityAttributes.countdown(minutes: Self.seconds / 60, cycles: 1)
        var scenes: [(activities: [Activity], now: Instant)] = []
        var current: Activity? = try? TimerMachine.apply(.start(attrs), to: nil, now: start).activity
        for k in 0...Self.seconds {
            // Exactly on the boundary where the shown second becomes 600 − k.
            let now = start + .seconds(k)
            current = TimerMachine.advance(current, to: now).activity
            scenes.append((current.map { [$0] } ?? [], now))
        }
        self.scenes = scenes
    }

    /// True when the first scene holds the started, running countdown (the workload exists).
    var isRunning: Bool { scenes.first?.activities.first?.phase == .running }

    /// The frames of the whole countdown at `size` in `presentation`.
    func frames(_ renderer: Renderer, size: PanelSize, presentation: Presentation) -> [Bitmap] {
        scenes.map { renderer.render($0.activities, presentation: presentation, now: $0.now, size: size) }
    }
}

/// A bus that only counts: what a flush costs without any emulation on the far side.
/// Relaxed atomics keep it Sendable (as I2CBus requires) at the cost of two uncontended adds.
final class CountingBus: I2CBus {
    let capabilities: I2CCapabilities
    private let txns = Atomic<Int>(0)
    private let count = Atomic<Int>(0)

    init(_ capabilities: I2CCapabilities) { self.capabilities = capabilities }

    var transactions: Int { txns.load(ordering: .relaxed) }
    var bytes: Int { count.load(ordering: .relaxed) }
    /// Transactions and bytes so far, to subtract two readings.
    var reading: (transactions: Int, bytes: Int) { (transactions, bytes) }

    func write(address: UInt8, bytes b: [UInt8]) throws(I2CError) {
        txns.wrappingAdd(1, ordering: .relaxed)
        count.wrappingAdd(b.count, ordering: .relaxed)
    }
}

/// A tap in front of another bus: counts every transaction the bus accepted and its bytes after
/// the address byte, so the bus figures are what went onto the bus, not what the driver says it
/// sent. Kept apart from CountingBus so the timed flush loops pay nothing for forwarding.
final class TapBus: I2CBus {
    let capabilities: I2CCapabilities
    private let next: any I2CBus
    private let counter: CountingBus

    init(_ bus: any I2CBus) {
        capabilities = bus.capabilities
        next = bus
        counter = CountingBus(bus.capabilities)
    }

    var reading: (transactions: Int, bytes: Int) { counter.reading }

    func write(address: UInt8, bytes b: [UInt8]) throws(I2CError) {
        try next.write(address: address, bytes: b)
        try counter.write(address: address, bytes: b)
    }
}
