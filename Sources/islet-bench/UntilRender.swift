import IsletFrame
import IsletCore
import IsletRender

/// The until kind's presentations (issue 38): the same measure as the countdown's compact tick,
/// over every presentation of a laundry whose source says it ends in 10 minutes, on a 128×64
/// panel (the size where expanded and the lock screen differ from compact). One scene per
/// shown second, built through the core before any clock starts.
struct UntilRender {
    let scenes: [(activities: [Activity], now: Instant)]

    init() {
        let start = Instant(milliseconds: 1_800_000_000_000)
        let attrs = ActivityAttributes(timerID: "laundry", kind: .until(PushedContent(endsAt: start + .seconds(600), progress: 0.4, text: "Rinsing")),
                                       title: "Laundry", icon: .named("laundry"))
        let a = try? TimerMachine.apply(.start(attrs), to: nil, now: start).activity
        scenes = (0...Countdown.seconds).map { k in (a.map { [$0] } ?? [], start + .seconds(k)) }
    }

    /// Median ns per render over every presentation, and heap allocations per render once warm
    /// (nil without the allocation counter).
    func measure(_ renderer: Renderer, reps: Int) -> (ns: Figure, allocs: Figure) {
        guard scenes.first?.activities.first?.phase == .running else {
            return (.missing("the core refused the until activity"), .missing("the core refused the until activity"))
        }
        var frame = Bitmap(width: 128, height: 64)
        for p in Presentation.allCases { for s in scenes { renderer.render(s.activities, presentation: p, now: s.now, into: &frame) } }
        var allocs: Figure = .missing("needs the allocation counter: run through make bench (LD_PRELOAD of bench/alloc_count.c)")
        if let counter = AllocationCounter() {
            let before = counter.count
            for p in Presentation.allCases { for s in scenes { renderer.render(s.activities, presentation: p, now: s.now, into: &frame) } }
            allocs = .value(Double(counter.count - before) / Double(Presentation.allCases.count * scenes.count))
        }
        var samples: [Double] = []
        samples.reserveCapacity(reps * scenes.count * Presentation.allCases.count)
        for _ in 0..<reps {
            for p in Presentation.allCases {
                for s in scenes {
                    let t = Clocks.monotonicNs()
                    renderer.render(s.activities, presentation: p, now: s.now, into: &frame)
                    samples.append(Double(Clocks.monotonicNs() - t))
                }
            }
        }
        return (Stats.median(samples).map(Figure.value) ?? .missing("no samples"), allocs)
    }
}
