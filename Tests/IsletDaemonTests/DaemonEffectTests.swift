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
        let record = SyncRecord(timerID: "meditation", revision: Revision(wallMilliseconds: t0.milliseconds, counter: 0, device: "den"),
                                activity: nil, expandedUntil: t0 + .seconds(5))
        #expect(DaemonEffect.of(adopted: record, now: t0) == [.expand(timer: "meditation", until: t0 + .seconds(5)),
                                                               .adopted(timer: "meditation"), .announce])
        #expect(DaemonEffect.of(adopted: record, now: t0 + .seconds(6)) == [.adopted(timer: "meditation"), .announce])
    }
}
