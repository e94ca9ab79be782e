import Testing
import IsletCore

// The book's guarded start, driven as the daemon's loop drives it: `beginStart` (or `apply`)
// puts a start in flight, the host's write ends it with `finishStart`, and `cancelStart` takes
// it back. The loop is one thread, so "concurrent" starts are starts that arrive while one is
// in flight: every one of them must be refused.

/// The ticket of a start that went through the gate, or nil (recorded as an issue).
private func inFlight(_ outcome: ActivityBook.Outcome) -> (change: ManagerChange, ticket: StartTicket)? {
    guard case .starting(let change, let ticket) = outcome else {
        Issue.record("the start did not go through the gate")
        return nil
    }
    return (change, ticket)
}

/// Merged: "a thousand concurrent starts make exactly one activity" and "a second start while
/// the first is held is refused" (on the book both are starts arriving while one is in flight).
@Test func aThousandStartsWhileOneIsInFlightMakeExactlyOneActivity() throws {
    var book = ActivityBook()
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 1))
    guard let first = inFlight(try book.beginStart(attrs, now: t0)) else { return }
    var refused = 0
    for i in 1..<1000 {
        do throws(Rejection) {
            _ = try book.beginStart(attrs, now: at(Double(i) / 1000))
            Issue.record("a second start went through while the first was in flight")
        } catch {
            #expect(error.code == .startInProgress)
            refused += 1
        }
    }
    #expect(refused == 999)
    #expect(book.startsInFlight == ["meditation"])
    #expect(book.finishStart(first.ticket, saved: true) == .stood)
    #expect(book.activities.count == 1)
    #expect(book.activities.first == first.change.transition.activity)
    #expect(book.startsInFlight.isEmpty)
}

@Test func aReplacingStartCancelledInFlightRestoresThePriorAndOpensTheGate() throws {
    var book = ActivityBook()
    let firstStart = try book.startAndSave(ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 1)), now: t0)
    let replacement = ActivityAttributes(kind: .countdown(cycle: .seconds(900), cycles: 2))
    guard let pending = inFlight(try book.beginStart(replacement, now: at(5))) else { return }
    #expect(book.startsInFlight == ["meditation"])
    #expect(book.cancelStart("meditation") == pending.ticket)
    // The write finishing after the cancel does not revive the start.
    #expect(book.finishStart(pending.ticket, saved: true) == .notInFlight)
    // No orphan, and nothing lost: the state is the one before the request.
    #expect(book.activities == [firstStart])
    // The gate is open: the next start goes through.
    let again = try book.startAndSave(replacement, now: at(6))
    #expect(book.activities == [again])
}

/// Issue 13 §1: a replacing start reached the disk in two writes (without the old activity, then
/// with the new one); a crash between them lost the timer. While the start is in flight the book
/// holds the one state after it, which is what the host writes.
@Test func aReplacingStartIsOneStateAfterIt() throws {
    var book = ActivityBook()
    let other = try book.startAndSave(stopwatch, now: t0)
    let first = try book.startAndSave(threeCycles, now: at(1))
    guard let pending = inFlight(try book.beginStart(threeCycles, now: at(10))) else { return }
    let snapshot = book.activities
    #expect(snapshot.count == 2)
    #expect(snapshot.first == other)
    #expect(snapshot.last == pending.change.transition.activity)
    #expect(!snapshot.contains(first))
    #expect(book.finishStart(pending.ticket, saved: true) == .stood)
    #expect(book.activities == snapshot)
}

@Test func aReplacingStartWhoseWriteFailsKeepsThePrior() throws {
    var book = ActivityBook()
    let first = try book.startAndSave(threeCycles, now: t0)
    guard let pending = inFlight(try book.beginStart(threeCycles, now: at(5))) else { return }
    #expect(book.finishStart(pending.ticket, saved: false) == .rolledBack)
    #expect(book.activities == [first], "a failed replace changes nothing")
}

/// Issue 13 §1: no limit let thousands of timer ids grow every response and the state file until
/// the real timers were lost. At most 16 at once; a start over the bound changes nothing; a
/// replacing start is always allowed.
@Test func atMostSixteenActivitiesAndAStartOverTheBoundChangesNothing() throws {
    var book = ActivityBook()
    #expect(ActivityBook.maximumActivities == 16)
    for i in 0..<16 {
        _ = try book.startAndSave(ActivityAttributes(timerID: "t\(i)", kind: .stopwatch), now: at(Double(i)))
    }
    let full = book.activities
    #expect(throws: Rejection.self) {
        _ = try book.beginStart(ActivityAttributes(timerID: "t16", kind: .stopwatch), now: at(20))
    }
    do throws(Rejection) {
        _ = try book.beginStart(ActivityAttributes(timerID: "t17", kind: .stopwatch), now: at(21))
        Issue.record("a 17th activity was started")
    } catch { #expect(error.code == .tooManyActivities && error.message.contains("16")) }
    #expect(book.activities == full)
    #expect(book.startsInFlight.isEmpty, "a refused start leaves nothing in flight")
    // Replacing one of the sixteen is fine.
    let replaced = try book.startAndSave(ActivityAttributes(timerID: "t3", kind: .countdown(cycle: .seconds(60), cycles: 1)), now: at(22))
    #expect(book.activities.count == 16 && book.activities.last == replaced)
}

/// The attribute bounds at their edges: a 64-byte timer id and a 64-character title pass, one
/// more does not; ids are `[A-Za-z0-9._-]`.
@Test func timerIdAndTitleBoundsAtTheirEdges() {
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

@Test func aStartWhoseWriteFailsLeavesTheGateOpen() throws {
    var book = ActivityBook()
    guard let pending = inFlight(try book.beginStart(threeCycles, now: t0)) else { return }
    #expect(book.finishStart(pending.ticket, saved: false) == .rolledBack)
    #expect(book.activities.isEmpty)
    #expect(book.startsInFlight.isEmpty)
    _ = try book.startAndSave(threeCycles, now: at(1))
    #expect(book.activities.count == 1)
}

@Test func cancelStartCancelsTheInFlightStart() throws {
    var book = ActivityBook()
    guard let pending = inFlight(try book.beginStart(threeCycles, now: t0)) else { return }
    #expect(book.cancelStart("meditation") == pending.ticket)
    #expect(book.finishStart(pending.ticket, saved: true) == .notInFlight)
    #expect(book.activities.isEmpty)
    #expect(book.cancelStart("meditation") == nil)
}

@Test func intentsTargetTheOnlyOrTheMostRecentActivityAndTimersAreIndependent() throws {
    var book = ActivityBook()
    func hasActiveActivity() -> Bool { book.activities.contains { $0.ending == nil } }
    _ = try book.startAndSave(threeCycles, now: t0)
    _ = try book.startAndSave(stopwatch, now: at(1))
    #expect(book.activities.map(\.timerID) == ["meditation", "stopwatch"])
    // No timer id: the most recently started (the stopwatch).
    let c = try book.applyAndSave(.pause, now: at(11))
    #expect(c.timerID == "stopwatch")
    #expect(book.activity(for: "stopwatch")?.content.display == .paused(frozen: .seconds(10)))
    #expect(book.activity(for: "meditation")?.phase == .running)
    // Starting the same timer again replaces it: still one per timer.
    _ = try book.startAndSave(threeCycles, now: at(20))
    #expect(book.activities.count == 2)
    #expect(hasActiveActivity())
    _ = try book.applyAndSave(.reset, timer: "meditation", now: at(21))
    _ = try book.applyAndSave(.end(.after(at(24))), timer: "stopwatch", now: at(21))
    #expect(hasActiveActivity() == false)
    #expect(book.advance(to: at(24)).map(\.transition.effects) == [[.dismissed]])
    #expect(book.activities.isEmpty)
}

@Test func cycleCompleteAndFinalCompletionFireOnlyWhenDue() throws {
    var book = ActivityBook()
    _ = try book.startAndSave(ActivityAttributes(kind: .countdown(cycle: .seconds(10), cycles: 2)), now: t0)
    #expect(throws: Rejection.self) { _ = try book.fire(.cycleEnded, timer: nil, now: at(9)) }
    let c = try book.fire(.cycleEnded, timer: nil, now: at(10))
    #expect(c.transition.phase == .cycleEnd)
    _ = book.advance(to: at(13))
    #expect(throws: Rejection.self) { _ = try book.fire(.finalCompletion, timer: nil, now: at(20)) }
    let f = try book.fire(.finalCompletion, timer: nil, now: at(23))
    #expect(f.transition.phase == .complete)
    #expect(f.transition.activity?.ending?.dismissAt == at(26))   // completion stays 3 s
}

@Test func toggleFromIdleStartsTheDefaultSessionThroughTheGate() throws {
    var book = ActivityBook()
    guard let first = inFlight(try book.apply(.toggle(default: threeCycles), timer: nil, now: t0)) else { return }
    do throws(Rejection) {
        _ = try book.apply(.toggle(default: threeCycles), timer: nil, now: t0)
        Issue.record("a second toggle went through while the start was in flight")
    } catch { #expect(error.code == .startInProgress) }
    #expect(book.finishStart(first.ticket, saved: true) == .stood)
    #expect(first.change.transition.phase == .running)
}

/// A start that replaced the timer's activity is reported as the table does
/// (`[.replaced, .started]`), so a host can silence a chime of the old one.
@Test func aReplacingStartSaysSo() throws {
    var book = ActivityBook()
    let first = try book.applyAndSave(.start(threeCycles), now: t0)
    #expect(first.transition.effects == [.started])
    let second = try book.applyAndSave(.start(threeCycles), now: at(10))
    #expect(second.transition.effects == [.replaced, .started])
    // Another timer is not a replacement.
    let sw = try book.applyAndSave(.start(stopwatch), now: at(11))
    #expect(sw.transition.effects == [.started])
    // Toggle after completion starts the default session over the finished one.
    _ = try book.applyAndSave(.end(.default), timer: "meditation", now: at(12))
    let again = try book.applyAndSave(.toggle(default: threeCycles), timer: "meditation", now: at(13))
    #expect(again.transition.effects == [.replaced, .started])
    #expect(book.activities.count == 2)
}

/// A sync group's record adopted into the book (docs/SYNC.md): it replaces the timer's
/// activity, supersedes a start in flight, goes in start order, and respects the bound.
@Test func anAdoptedActivityReplacesTheTimersAndSupersedesAStartInFlight() throws {
    var book = ActivityBook()
    var a = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 1))
    a.timerID = "a"
    var b = a
    b.timerID = "b"
    guard let started = inFlight(try book.beginStart(a, now: t0)) else { return }
    _ = try book.beginStart(b, now: at(2))
    // Another display's activity of timer "a", started between the two: it takes a's place
    // before b (start order), and a's own start no longer stands.
    guard let remote = try TimerMachine.transition(.start(a), from: nil, now: at(1)).activity else { return }
    try book.adopt("a", activity: remote)
    #expect(book.activities.map(\.timerID) == ["a", "b"])
    #expect(book.activity(for: "a") == remote)
    #expect(book.finishStart(started.ticket, saved: true) == .notInFlight)
    #expect(!book.startsInFlight.contains("a"))
    // A tombstone removes the timer's activity.
    try book.adopt("b", activity: nil)
    #expect(book.activities.map(\.timerID) == ["a"])
    // The bound holds for adopted activities too.
    for i in 0..<(ActivityBook.maximumActivities - 1) {
        var x = a
        x.timerID = "x\(i)"
        guard let act = try TimerMachine.transition(.start(x), from: nil, now: at(3)).activity else { return }
        try book.adopt(x.timerID, activity: act)
    }
    var extra = a
    extra.timerID = "extra"
    guard let over = try TimerMachine.transition(.start(extra), from: nil, now: at(4)).activity else { return }
    #expect(throws: Rejection.self) { try book.adopt("extra", activity: over) }
    #expect(book.activities.count == ActivityBook.maximumActivities)
}
