import Testing
import IsletCore
import IsletTestSupport

/// An independent model of one countdown, written from the spec rather than from TimerMachine.
struct CountdownModel {
    var cycleMs: Int64, cycles: Int?, cycleEndMs: Int64
    enum S: Equatable { case running(end: Int64), paused(left: Int64), cycleEnd(next: Int64), complete(dismiss: Int64) }
    var s: S
    var cycle = 1

    /// Applies every scheduled event up to `now`, each at its own instant.
    mutating func advance(to now: Int64) {
        while true {
            switch s {
            case .running(let end) where end <= now:
                if let c = cycles, cycle >= c { s = .complete(dismiss: end + 3000) }
                else { s = .cycleEnd(next: end + cycleEndMs) }
            case .cycleEnd(let next) where next <= now:
                cycle += 1; s = .running(end: next + cycleMs)
            default: return
            }
        }
    }
}

/// An independent model of the stopwatch: a reference instant while running, an accumulated
/// time while paused (the RUN2U design), a dismissal instant once ended.
struct StopwatchModel {
    enum S: Equatable { case running(reference: Int64), paused(accumulated: Int64), complete(dismiss: Int64) }
    var s: S
}

@Test func randomIntentSequencesKeepEveryInvariant() async throws {
    let runs = fuzzIterations(10_000)
    let seed = UInt64(environmentValue("ISLET_FUZZ_SEED").flatMap { UInt64($0) } ?? 0x15_1E7)
    var failures = 0
    for run in 0..<runs where failures == 0 {
        var rng = SplitMix(state: seed &+ UInt64(run))
        let problems = checkOneSequence(&rng)
        if !problems.isEmpty {
            failures += 1
            Issue.record("sequence \(run) (ISLET_FUZZ_SEED=\(seed) run \(run)): \(problems.joined(separator: "; "))")
        }
    }
}

private func checkOneSequence(_ rng: inout SplitMix) -> [String] {
    var problems: [String] = []
    func check(_ ok: Bool, _ what: @autoclosure () -> String) { if !ok && problems.count < 5 { problems.append(what()) } }

    var book = ActivityBook()
    var now = t0
    var model: CountdownModel?       // the model of the "meditation" countdown, when one exists
    let cycleMs = Int64.random(in: 1...6, using: &rng) * 1000 + Int64.random(in: 0...1, using: &rng) * 500
    let cycles: Int? = Bool.random(using: &rng) ? Int.random(in: 1...3, using: &rng) : nil
    let cycleEndMs = Int64.random(in: 0...3, using: &rng) * 1000
    let attrs = ActivityAttributes(kind: .countdown(cycle: .milliseconds(cycleMs), cycles: cycles),
                                   cycleEndInterval: .milliseconds(cycleEndMs))

    func modelMatches(_ a: Activity?) {
        guard var m = model else { check(a == nil, "model says idle but \(String(describing: a?.phase))"); return }
        m.advance(to: now.milliseconds)
        switch (m.s, a?.content.display) {
        case (.running(let end), .running(let ref)?): check(ref.milliseconds == end, "end \(ref) vs model \(end)")
        case (.paused(let left), .paused(let frozen)?): check(frozen.wholeMilliseconds == left, "frozen \(frozen) vs model \(left)")
        case (.cycleEnd(let next), .cycleEnd(let at)?): check(at.milliseconds == next, "next cycle \(at) vs model \(next)")
        case (.complete(let dismiss), .complete?): check(a?.ending?.dismissAt.milliseconds == dismiss, "dismissal")
        case (.complete(let dismiss), nil): check(dismiss <= now.milliseconds, "dismissed early")
        default: check(false, "phase \(String(describing: a?.phase)) vs model \(m.s)")
        }
        if a != nil { check(a?.content.cycle == m.cycle, "cycle \(String(describing: a?.content.cycle)) vs model \(m.cycle)") }
    }

    var sw: StopwatchModel?
    func stopwatchMatches(_ a: Activity?) {
        if case .complete(let d)? = sw?.s, d <= now.milliseconds { sw = nil }
        guard let m = sw else { check(a == nil, "stopwatch model says idle but \(String(describing: a?.phase))"); return }
        switch (m.s, a?.content.display) {
        case (.running(let ref), .running(let r)?): check(r.milliseconds == ref, "stopwatch reference \(r) vs model \(ref)")
        case (.paused(let acc), .paused(let frozen)?): check(frozen.wholeMilliseconds == acc, "stopwatch accumulated \(frozen) vs model \(acc)")
        case (.complete(let d), .complete?): check(a?.ending?.dismissAt.milliseconds == d, "stopwatch dismissal")
        default: check(false, "stopwatch phase \(String(describing: a?.phase)) vs model \(m.s)")
        }
        if let a { check(ShownTime.exact(of: a, at: now) >= .zero, "stopwatch elapsed negative") }
    }
    let swAttrs = ActivityAttributes(kind: .stopwatch)

    for _ in 0..<12 {
        let roll = Int.random(in: 0..<100, using: &rng)
        if roll < 45 {
            // Let time pass, waking at every deadline as the daemon would.
            let target = now + .milliseconds(Int64.random(in: 1...9000, using: &rng))
            while let d = book.nextDeadline(after: now), d.at <= target {
                check(d.at > now, "deadline \(d.at) not after now \(now)")
                var changed = false
                for id in ["meditation", "stopwatch"] {
                    let before = book.activity(for: id)
                    let shownBefore = before.map { ShownTime.seconds(of: $0, at: d.at - .milliseconds(1)) }
                    let shownNow = before.map { ShownTime.seconds(of: $0, at: now) }
                    check(shownBefore == shownNow, "\(id): the shown second changed before its deadline")
                    if d.reason == .shownSecondChanges, let b = before, b.phase == .running {
                        // The shown second moves by exactly one at its deadline (down for a
                        // countdown, up for a stopwatch), or not at all when the tick is another timer's.
                        let s0 = ShownTime.seconds(of: b, at: d.at - .milliseconds(1)), s1 = ShownTime.seconds(of: b, at: d.at)
                        let step = b.attributes.kind.isStopwatch ? 1 : -1
                        check(s1 == s0 || s1 == s0 + step, "\(id): the shown second went \(s0) -> \(s1) at a tick")
                        if s1 != s0 { changed = true }
                    }
                }
                if d.reason == .shownSecondChanges { check(changed, "a tick deadline at \(d.at) changed no shown second") }
                let pausedBefore = book.activities.filter { $0.phase == .paused }
                now = d.at
                _ = book.advance(to: now)
                for p in pausedBefore {
                    let a = book.activity(for: p.timerID)
                    check(a?.content.display == p.content.display, "\(p.timerID): paused time moved")
                }
                for a in book.activities {
                    check(ShownTime.exact(of: a, at: now) >= .zero, "\(a.timerID): negative time")
                }
                modelMatches(book.activity(for: "meditation"))
                stopwatchMatches(book.activity(for: "stopwatch"))
            }
            now = target
            _ = book.advance(to: now)
            modelMatches(book.activity(for: "meditation"))
            stopwatchMatches(book.activity(for: "stopwatch"))
        } else if roll < 65 {
            // An intent for the stopwatch, which lives beside the countdown (another timer id).
            let choice = Int.random(in: 0..<7, using: &rng)
            let intent: Intent
            switch choice {
            case 0: intent = .start(swAttrs)
            case 1: intent = .pause
            case 2: intent = .resume
            case 3: intent = .toggle(default: swAttrs)
            case 4: intent = .reset
            case 5: intent = .end(.after(now + .milliseconds(Int64.random(in: 0...5000, using: &rng))))
            default: intent = .expand
            }
            if case .complete(let d)? = sw?.s, d <= now.milliseconds { sw = nil }
            let result = try? book.applyAndSave(intent, timer: "stopwatch", now: now)
            if result != nil {
                let t = now.milliseconds
                switch (intent, sw?.s) {
                case (.start, _), (.toggle, nil), (.toggle, .complete?): sw = StopwatchModel(s: .running(reference: t))
                case (.pause, .running(let ref)?), (.toggle, .running(let ref)?): sw?.s = .paused(accumulated: t - ref)
                case (.resume, .paused(let acc)?), (.toggle, .paused(let acc)?): sw?.s = .running(reference: t - acc)
                case (.reset, _): sw = nil
                case (.end(let p), _):
                    var endedAt = t
                    if case .complete? = sw?.s, let e = book.activity(for: "stopwatch")?.ending { endedAt = e.endedAt.milliseconds }
                    let d = p.dismissalInstant(endedAt: Instant(milliseconds: endedAt)).milliseconds
                    sw = d <= t ? nil : StopwatchModel(s: .complete(dismiss: d))
                default: break
                }
            }
            let list = book.activities
            check(Set(list.map(\.timerID)).count == list.count, "two activities for one timer")
            stopwatchMatches(book.activity(for: "stopwatch"))
            modelMatches(book.activity(for: "meditation"))
        } else {
            let choice = Int.random(in: 0..<7, using: &rng)
            let intent: Intent
            switch choice {
            case 0: intent = .start(attrs)
            case 1: intent = .pause
            case 2: intent = .resume
            case 3: intent = .toggle(default: attrs)
            case 4: intent = .reset
            case 5: intent = .end(.after(now + .milliseconds(Int64.random(in: 0...5000, using: &rng))))
            default: intent = .expand
            }
            model?.advance(to: now.milliseconds)
            let result = try? book.applyAndSave(intent, timer: "meditation", now: now)
            // Update the model from the spec, only where the machine accepted the intent.
            if result != nil {
                switch (intent, model?.s) {
                case (.start, _), (.toggle, nil), (.toggle, .complete?):
                    model = CountdownModel(cycleMs: cycleMs, cycles: cycles, cycleEndMs: cycleEndMs, s: .running(end: now.milliseconds + cycleMs))
                case (.pause, .running(let end)?), (.toggle, .running(let end)?):
                    model?.s = .paused(left: end - now.milliseconds)
                case (.pause, .cycleEnd?), (.toggle, .cycleEnd?):
                    model?.cycle += 1; model?.s = .paused(left: cycleMs)
                case (.resume, .paused(let left)?), (.toggle, .paused(let left)?):
                    model?.s = .running(end: now.milliseconds + left)
                case (.reset, _): model = nil
                case (.end(let p), _):
                    let endedAt: Int64
                    if case .complete = model?.s, let e = book.activity(for: "meditation")?.ending { endedAt = e.endedAt.milliseconds }
                    else { endedAt = now.milliseconds }
                    let d = p.dismissalInstant(endedAt: Instant(milliseconds: endedAt)).milliseconds
                    model?.s = .complete(dismiss: d)
                    if d <= now.milliseconds { model = nil }
                default: break
                }
            }
            let list = book.activities
            check(Set(list.map(\.timerID)).count == list.count, "two activities for one timer")
            modelMatches(book.activity(for: "meditation"))
        }
        if case .complete(let d)? = model?.s, d <= now.milliseconds { model = nil }
    }
    return problems
}
