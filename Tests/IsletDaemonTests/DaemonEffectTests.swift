import Testing
import IsletCore
import IsletSync
@testable import IsletParts

/// What a change asks of the rest of the daemon, decided without I/O: the transitions come
/// from the core's own table (TimerMachine), the expected effects from docs/ARCHITECTURE.md
/// "The turn" and docs/SYNC.md (a person's change is the group's; stale is each display's own).
@Suite("a change's effects are values")
struct DaemonEffectTests {
    let t0 = Instant(milliseconds: 1_796_076_000_000)
    let session = ActivityAttributes(timerID: "meditation", kind: .countdown(cycle: .seconds(600), cycles: 1))

    private func change(_ intent: Intent, on activity: Activity?) throws -> (ManagerChange, Activity?) {
        let t = try TimerMachine.apply(intent, to: activity, now: t0)
        return (ManagerChange(timerID: "meditation", transition: t), t.activity)
    }

    @Test("a start is shared, clears the clock watch's mark, may chime, and is announced; it expands nothing")
    func start() throws {
        let (c, after) = try change(.start(session), on: nil)
        let effects = DaemonEffect.of(.start(session), change: c, changed: true, activity: after, now: t0, expandSeconds: 8)
        #expect(effects == [.share(timer: "meditation", activity: after, expandedUntil: nil), .started(timer: "meditation"),
                            .transition(c.transition, timer: "meditation"), .announce])
    }

    @Test("an expand shows the expanded presentation for expand_seconds and tells the group until when")
    func expand() throws {
        let (_, running) = try change(.start(session), on: nil)
        let (c, after) = try change(.expand, on: running)
        let until = t0 + .seconds(8)
        let effects = DaemonEffect.of(.expand, change: c, changed: false, activity: after, now: t0, expandSeconds: 8)
        #expect(effects.first == .expand(timer: "meditation", until: until))
        #expect(effects.contains(.share(timer: "meditation", activity: after, expandedUntil: until)),
                "an expand changes no activity but is the group's too")
        #expect(effects.last == .announce)
    }

    @Test("a pushed update with alert expands for expand_seconds like a long press and shares it; without, it only shares")
    func alertExpands() throws {
        let laundry = ActivityAttributes(timerID: "laundry", kind: .until(PushedContent(endsAt: t0 + .seconds(900))))
        let running = try TimerMachine.apply(.start(laundry), to: nil, now: t0).activity
        let alert = Intent.update(ContentUpdate(text: .set("Spinning"), alert: true))
        let t = try TimerMachine.apply(alert, to: running, now: t0)
        let c = ManagerChange(timerID: "laundry", transition: t)
        let until = t0 + .seconds(8)
        let effects = DaemonEffect.of(alert, change: c, changed: true, activity: t.activity, now: t0, expandSeconds: 8)
        #expect(effects == [.expand(timer: "laundry", until: until), .share(timer: "laundry", activity: t.activity, expandedUntil: until),
                            .transition(t, timer: "laundry"), .announce])
        let quiet = Intent.update(ContentUpdate(progress: .set(0.5)))
        let q = try TimerMachine.apply(quiet, to: running, now: t0)
        let qe = DaemonEffect.of(quiet, change: ManagerChange(timerID: "laundry", transition: q), changed: true, activity: q.activity, now: t0, expandSeconds: 8)
        #expect(qe == [.share(timer: "laundry", activity: q.activity, expandedUntil: nil), .transition(q, timer: "laundry"), .announce])
    }

    @Test("marking stale is this display's own judgement: never shared")
    func staleIsNotShared() throws {
        let (_, running) = try change(.start(session), on: nil)
        let (c, after) = try change(.markStale, on: running)
        let effects = DaemonEffect.of(.markStale, change: c, changed: true, activity: after, now: t0, expandSeconds: 8)
        #expect(!effects.contains { if case .share = $0 { true } else { false } })
        #expect(effects.contains(.announce))
    }

    @Test("a pause that changed nothing (already paused) is not shared, and is still announced")
    func unchangedIsNotShared() throws {
        let (_, running) = try change(.start(session), on: nil)
        let (_, paused) = try change(.pause, on: running)
        let (c, after) = try change(.toggle(default: session), on: paused)
        let effects = DaemonEffect.of(.pause, change: c, changed: false, activity: after, now: t0, expandSeconds: 8)
        #expect(effects == [.transition(c.transition, timer: "meditation"), .announce])
    }

    @Test("another display's record: expanded only while its expand lasts; no chime, no share")
    func adopted() throws {
        let record = OutsideChange(timer: "meditation", activity: nil, expandedUntil: t0 + .seconds(5), origin: "sync: den")
        #expect(DaemonEffect.of(outside: record, now: t0) == [.expand(timer: "meditation", until: t0 + .seconds(5)),
                                                               .adopted(timer: "meditation"), .announce])
        #expect(DaemonEffect.of(outside: record, now: t0 + .seconds(6)) == [.adopted(timer: "meditation"), .announce])
    }
}
