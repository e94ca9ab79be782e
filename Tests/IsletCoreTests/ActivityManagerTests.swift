import Testing
import IsletCore

struct StoreFailure: Error {}

/// A store whose saves can be held open one by one (to probe each suspension point of `start`)
/// and made to fail. It records every snapshot it was asked to save.
actor HeldStore: ActivityStore {
    private var holdCall: Int?          // the 0-based save call to hold; nil holds none
    private var holdAll = false
    private var calls = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    var failing = false
    private(set) var saved: [[Activity]] = []

    init(holdCall: Int? = nil, holdAll: Bool = false) {
        self.holdCall = holdCall
        self.holdAll = holdAll
    }

    func save(_ activities: [Activity]) async throws {
        let n = calls
        calls += 1
        if holdAll || n == holdCall { await withCheckedContinuation { waiters.append($0) } }
        if failing { throw StoreFailure() }
        saved.append(activities)
    }

    var pending: Int { waiters.count }
    func setFailing(_ f: Bool) { failing = f }

    func releaseAll() {
        holdAll = false
        holdCall = nil
        let w = waiters
        waiters = []
        for c in w { c.resume() }
    }

    /// Waits (cooperatively, bounded) until `n` saves are being held.
    func waitForPending(_ n: Int) async -> Bool {
        for _ in 0..<100_000 {
            if waiters.count >= n { return true }
            await Task.yield()
        }
        return false
    }
}

@Test(.timeLimit(.minutes(1))) func aThousandConcurrentStartsMakeExactlyOneActivity() async throws {
    let store = HeldStore(holdAll: true)
    let manager = ActivityManager(store: store)
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 1))
    var refused = 0, succeeded = 0
    await withTaskGroup(of: Rejection.Code?.self) { group in
        for _ in 0..<1000 {
            group.addTask {
                do throws(Rejection) { _ = try await manager.start(attrs, now: t0); return nil } catch { return error.code }
            }
        }
        for await result in group {
            if let code = result {
                #expect(code == .startInProgress)
                refused += 1
                if refused == 999 { await store.releaseAll() }
            } else {
                succeeded += 1
            }
        }
    }
    #expect(succeeded == 1)
    #expect(refused == 999)
    #expect(await manager.activities.count == 1)
    #expect(await store.saved.last?.count == 1)
    #expect(await manager.startsInFlight.isEmpty)
}

@Test(.timeLimit(.minutes(1))) func aReplacingStartCancelledAtItsSuspensionPointRestoresThePriorAndOpensTheGate() async throws {
    // A replacing start suspends once: the one save of "prior ended, replacement started".
    let store = HeldStore(holdCall: 1)   // call 0 is the prior activity's own start
    let manager = ActivityManager(store: store)
    let first = try await manager.start(ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 1)), now: t0)
    let replacement = ActivityAttributes(kind: .countdown(cycle: .seconds(900), cycles: 2))
    let task = Task { try await manager.start(replacement, now: at(5)) }
    #expect(await store.waitForPending(1))
    #expect(await manager.startsInFlight == ["meditation"])
    task.cancel()
    await store.releaseAll()
    let outcome = await task.result
    #expect(throws: Rejection(.cancelled, "the start of timer \"meditation\" was cancelled")) { try outcome.get() }
    // No orphan, and nothing lost: the state is the one before the request, in memory and on disk.
    let live = await manager.activities
    #expect(live == [first])
    #expect(await store.saved.last == live)
    // The gate is open: the next start goes through.
    let again = try await manager.start(replacement, now: at(6))
    #expect(await manager.activities == [again])
}

/// Issue 13 §1: a replacing start reached the disk in two writes (without the old activity, then
/// with the new one); a crash between them lost the timer. Every save the store sees must be a
/// state a user asked for: before the request or after it.
@Test(.timeLimit(.minutes(1))) func aReplacingStartIsOneSaveOfTheStateAfterIt() async throws {
    let store = HeldStore()
    let manager = ActivityManager(store: store)
    let other = try await manager.start(stopwatch, now: t0)
    let first = try await manager.start(threeCycles, now: at(1))
    let before = await store.saved.count
    let second = try await manager.start(threeCycles, now: at(10))
    let saves = Array(await store.saved.dropFirst(before))
    #expect(saves.count == 1, "a replacing start writes once, not \(saves.count) times")
    #expect(saves.first == [other, second])
    #expect(!(saves.first ?? []).contains(first))
}

@Test(.timeLimit(.minutes(1))) func aReplacingStartWhoseStoreFailsKeepsThePrior() async throws {
    let store = HeldStore()
    let manager = ActivityManager(store: store)
    let first = try await manager.start(threeCycles, now: t0)
    await store.setFailing(true)
    await #expect(throws: Rejection.self) { try await manager.start(threeCycles, now: at(5)) }
    #expect(await manager.activities == [first], "a failed replace changes nothing")
}

/// Issue 13 §1: no limit let thousands of timer ids grow every response and the state file until
/// the real timers were lost. At most 16 at once; a start over the bound changes nothing; a
/// replacing start is always allowed.
@Test(.timeLimit(.minutes(1))) func atMostSixteenActivitiesAndAStartOverTheBoundChangesNothing() async throws {
    let store = HeldStore()
    let manager = ActivityManager(store: store)
    #expect(ActivityBook.maximumActivities == 16)
    for i in 0..<16 {
        _ = try await manager.start(ActivityAttributes(timerID: "t\(i)", kind: .stopwatch), now: at(Double(i)))
    }
    let saves = await store.saved.count
    let full = await manager.activities
    await #expect(throws: Rejection.self) {
        try await manager.start(ActivityAttributes(timerID: "t16", kind: .stopwatch), now: at(20))
    }
    do throws(Rejection) {
        _ = try await manager.start(ActivityAttributes(timerID: "t17", kind: .stopwatch), now: at(21))
    } catch { #expect(error.code == .tooManyActivities && error.message.contains("16")) }
    #expect(await manager.activities == full)
    #expect(await store.saved.count == saves, "a refused start writes nothing")
    // Replacing one of the sixteen is fine.
    let replaced = try await manager.start(ActivityAttributes(timerID: "t3", kind: .countdown(cycle: .seconds(60), cycles: 1)), now: at(22))
    let after = await manager.activities
    #expect(after.count == 16 && after.last == replaced)
}

/// The attribute bounds at their edges: a 64-byte timer id and a 64-character title pass, one
/// more does not; ids are `[A-Za-z0-9._-]`.
@Test(.timeLimit(.minutes(1))) func timerIdAndTitleBoundsAtTheirEdges() {
    func ok(_ a: ActivityAttributes) -> Bool { (try? a.validated()) != nil }
    let id64 = String(repeating: "a", count: 63) + "Z"
    #expect(ok(ActivityAttributes(timerID: id64, kind: .stopwatch)))
    #expect(!ok(ActivityAttributes(timerID: id64 + "b", kind: .stopwatch)))
    #expect(ok(ActivityAttributes(timerID: "Morning.sit-2_b", kind: .stopwatch)))
    for bad in ["", "a b", "a/b", "é", "a\u{0}", "../x"] {
        #expect(!ok(ActivityAttributes(timerID: bad, kind: .stopwatch)), "\(bad) accepted")
    }
    let title64 = String(repeating: "é", count: 64)
    #expect(ok(ActivityAttributes(kind: .stopwatch, title: title64)))
    #expect(!ok(ActivityAttributes(kind: .stopwatch, title: title64 + "x")))
}

@Test(.timeLimit(.minutes(1))) func aStartWhoseStoreThrowsLeavesTheGateOpen() async throws {
    let store = HeldStore()
    await store.setFailing(true)
    let manager = ActivityManager(store: store)
    await #expect(throws: Rejection.self) { try await manager.start(threeCycles, now: t0) }
    #expect(await manager.activities.isEmpty)
    #expect(await manager.startsInFlight.isEmpty)
    await store.setFailing(false)
    _ = try await manager.start(threeCycles, now: at(1))
    #expect(await manager.activities.count == 1)
}

@Test(.timeLimit(.minutes(1))) func cancelStartCancelsTheInFlightStart() async throws {
    let store = HeldStore(holdCall: 0)
    let manager = ActivityManager(store: store)
    let task = Task { try await manager.start(threeCycles, now: t0) }
    #expect(await store.waitForPending(1))
    #expect(await manager.cancelStart("meditation"))
    await store.releaseAll()
    await #expect(throws: Rejection.self) { try await task.value }
    #expect(await manager.activities.isEmpty)
    #expect(await manager.cancelStart("meditation") == false)
}

@Test(.timeLimit(.minutes(1))) func intentsTargetTheOnlyOrTheMostRecentActivityAndTimersAreIndependent() async throws {
    let manager = ActivityManager(store: NoStore())
    try await manager.start(threeCycles, now: t0)
    try await manager.start(stopwatch, now: at(1))
    #expect(await manager.activities.map(\.timerID) == ["meditation", "stopwatch"])
    // No timer id: the most recently started (the stopwatch).
    let c = try await manager.apply(.pause, now: at(11))
    #expect(c.timerID == "stopwatch")
    #expect(await manager.activity(for: "stopwatch")?.content.display == .paused(frozen: .seconds(10)))
    #expect(await manager.activity(for: "meditation")?.phase == .running)
    // Starting the same timer again replaces it: still one per timer.
    try await manager.start(threeCycles, now: at(20))
    #expect(await manager.activities.count == 2)
    #expect(await manager.hasActiveActivity)
    _ = try await manager.apply(.reset, timer: "meditation", now: at(21))
    _ = try await manager.end(timer: "stopwatch", dismissal: .after(at(24)), now: at(21))
    #expect(await manager.hasActiveActivity == false)
    #expect(await manager.advance(to: at(24)).map(\.transition.effects) == [[.dismissed]])
    #expect(await manager.activities.isEmpty)
}

@Test(.timeLimit(.minutes(1))) func showCycleCompleteAndFinalCompletionFireOnlyWhenDue() async throws {
    let manager = ActivityManager(store: NoStore())
    try await manager.start(ActivityAttributes(kind: .countdown(cycle: .seconds(10), cycles: 2)), now: t0)
    await #expect(throws: Rejection.self) { try await manager.showCycleComplete(now: at(9)) }
    let c = try await manager.showCycleComplete(now: at(10))
    #expect(c.transition.phase == .cycleEnd)
    _ = await manager.advance(to: at(13))
    await #expect(throws: Rejection.self) { try await manager.showFinalCompletion(now: at(20)) }
    let f = try await manager.showFinalCompletion(now: at(23))
    #expect(f.transition.phase == .complete)
    #expect(f.transition.activity?.ending?.dismissAt == at(26))   // completion stays 3 s
}

@Test(.timeLimit(.minutes(1))) func toggleFromIdleStartsTheDefaultSessionThroughTheGate() async throws {
    let store = HeldStore(holdCall: 0)
    let manager = ActivityManager(store: store)
    let first = Task { try await manager.apply(.toggle(default: threeCycles), now: t0) }
    #expect(await store.waitForPending(1))
    await #expect {
        try await manager.apply(.toggle(default: threeCycles), now: t0)
    } throws: { ($0 as? Rejection)?.code == .startInProgress }
    await store.releaseAll()
    #expect(try await first.value.transition.phase == .running)
}

/// The manager reports a start that replaced the timer's activity as the table does
/// (`[.replaced, .started]`), so a host can silence a chime of the old one.
@Test(.timeLimit(.minutes(1))) func aReplacingStartSaysSoThroughTheManager() async throws {
    let manager = ActivityManager(store: NoStore())
    let first = try await manager.apply(.start(threeCycles), now: t0)
    #expect(first.transition.effects == [.started])
    let second = try await manager.apply(.start(threeCycles), now: at(10))
    #expect(second.transition.effects == [.replaced, .started])
    // Another timer is not a replacement.
    let sw = try await manager.apply(.start(stopwatch), now: at(11))
    #expect(sw.transition.effects == [.started])
    // Toggle after completion starts the default session over the finished one.
    _ = try await manager.end(timer: "meditation", dismissal: .default, now: at(12))
    let again = try await manager.apply(.toggle(default: threeCycles), timer: "meditation", now: at(13))
    #expect(again.transition.effects == [.replaced, .started])
    #expect(await manager.activities.count == 2)
}

/// Issue 13 §5: with the gate removed, the thousand-starts test hung instead of failing. This is
/// the gate on its own, bounded: one start held in the store, a second start of the same timer
/// is refused with start_in_progress at once, and the first completes when released.
@Test(.timeLimit(.minutes(1))) func aSecondStartWhileTheFirstIsHeldIsRefused() async throws {
    let store = HeldStore(holdCall: 0)
    let manager = ActivityManager(store: store)
    let first = Task { try await manager.start(threeCycles, now: t0) }
    #expect(await store.waitForPending(1))
    do throws(Rejection) {
        _ = try await manager.start(threeCycles, now: at(1))
        Issue.record("a second start went through while the first was in flight")
    } catch {
        #expect(error.code == .startInProgress)
    }
    await store.releaseAll()
    let made = try await first.value
    #expect(await manager.activities == [made])
}
