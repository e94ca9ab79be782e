import Testing
import IsletCore

/// The `until` kind: a countdown to an instant its source owns, changed by `update`
/// (README.md, "The transition table"). Expectations are worked out from the spec: the laundry
/// starts at 0 s and its source says it ends at 3,000 s.
@Suite struct UntilTests {
    let start = try? TimerMachine.apply(.start(laundry), to: nil, now: t0).activity

    @Test func anUpdateChangesTheContentInPlaceAndKeepsWhatItDoesNotName() throws {
        let a = try #require(start)
        let t = try TimerMachine.apply(.update(ContentUpdate(progress: .set(0.6), text: .set("Rinsing"))), to: a, now: at(900))
        let n = try #require(t.activity)
        #expect(t.effects == [.updated])
        #expect(n.content.pushed == PushedContent(endsAt: at(3000), progress: 0.6, text: "Rinsing"))
        // Not a new activity: same start, same attributes; the update is its last change.
        #expect(n.startedAt == t0 && n.attributes == a.attributes && n.updatedAt == at(900))
        // null clears a field.
        let cleared = try TimerMachine.apply(.update(ContentUpdate(endsAt: .clear, text: .clear)), to: n, now: at(901)).activity
        #expect(cleared?.content.pushed == PushedContent(progress: 0.6))
    }

    @Test func theShownTimeCountsToTheSourcesInstantRoundedUp() throws {
        let a = try #require(start)
        // 3,000 s ahead at 0 s: 50:00; 0.5 s later still 50:00 (rounded up); 0:00 at and past the end.
        #expect(ShownTime.seconds(of: a, at: t0) == 3000)
        #expect(ShownTime.seconds(of: a, at: at(0.5)) == 3000)
        #expect(ShownTime.seconds(of: a, at: at(1)) == 2999)
        #expect(ShownTime.seconds(of: a, at: at(3000)) == 0)
        #expect(ShownTime.seconds(of: a, at: at(4000)) == 0)
        // The source moves the end: the time follows at once, still the same activity.
        let later = try TimerMachine.apply(.update(ContentUpdate(endsAt: .set(at(3600)))), to: a, now: at(3100)).activity
        #expect(later.map { ShownTime.seconds(of: $0, at: at(3100)) } == 500)
    }

    @Test func itWakesOncePerShownSecondAndNotAtAllWithoutAnEnd() throws {
        let a = try #require(start)
        // At 0.25 s the shown 50:00 becomes 49:59 at 1 s.
        #expect(ShownTime.nextDeadline(of: a, after: at(0.25)) == Deadline(at: at(1), reason: .shownSecondChanges))
        // Past its end nothing visible changes until the 8 h limit.
        #expect(ShownTime.nextDeadline(of: a, after: at(3000))?.reason == .event(.lifetimeLimit))
        let progressOnly = try #require(started(ActivityAttributes(timerID: "dishes", kind: .until(PushedContent(progress: 0.1)))))
        #expect(ShownTime.nextDeadline(of: progressOnly, after: at(5)) == Deadline(at: at(28_800), reason: .event(.lifetimeLimit)))
    }

    @Test func reachingTheEndIsNoEventOnlyTheSourceEndsIt() throws {
        let a = try #require(start)
        let late = TimerMachine.advance(a, to: at(5000))
        #expect(late.activity == a && late.effects.isEmpty)
        let ended = try TimerMachine.apply(.end(.after(at(5003))), to: a, now: at(5000))
        #expect(ended.phase == .complete)
        #expect(ended.activity?.ending?.dismissAt == at(5003))
    }

    @Test func anAlertAsksForTheExpandedViewAndTheChime() throws {
        let t = try TimerMachine.apply(.update(ContentUpdate(text: .set("Done soon"), alert: true)), to: start, now: at(10))
        #expect(t.effects == [.updated, .alerted])
    }

    @Test func aStaleSourceIsFreshAgainWithItsNextUpdateEvenAnEmptyOne() throws {
        let attrs = ActivityAttributes(timerID: "oven", kind: .until(PushedContent(endsAt: at(1200))), staleAfter: .seconds(300))
        let a = try #require(started(attrs))
        let stale = TimerMachine.advance(a, to: at(301)).activity
        #expect(stale?.content.isStale == true)
        let fresh = try TimerMachine.apply(.update(ContentUpdate()), to: stale, now: at(400)).activity
        #expect(fresh?.content.isStale == false)
        #expect(fresh?.content.pushed == a.content.pushed)
        #expect(fresh.flatMap { TimerMachine.dueInstant(.staleness, of: $0) } == at(700))
    }

    @Test func badContentIsRefusedAndChangesNothing() throws {
        let a = try #require(start)
        let cases: [(ContentUpdate, String)] = [
            (ContentUpdate(progress: .set(1.5)), "progress"),
            (ContentUpdate(progress: .set(-0.01)), "progress"),
            (ContentUpdate(progress: .set(.nan)), "progress"),
            (ContentUpdate(text: .set(String(repeating: "x", count: 33))), "longer than 32"),
            (ContentUpdate(text: .set("a\u{7}b")), "control"),
            (ContentUpdate(text: .set("")), "empty"),
            (ContentUpdate(endsAt: .set(at(86_401))), "24 h"),
        ]
        for (u, words) in cases {
            #expect(performing: { try TimerMachine.apply(.update(u), to: a, now: t0) },
                    throws: { ($0 as? Rejection)?.code == .invalidAttributes && "\($0)".contains(words) })
        }
        // An end exactly 24 h ahead is still a plan.
        #expect(throws: Never.self) { try TimerMachine.apply(.update(ContentUpdate(endsAt: .set(at(86_400)))), to: a, now: t0) }
    }

    @Test func aStartIsCheckedLikeAnUpdate() {
        for bad in [PushedContent(progress: 2), PushedContent(endsAt: at(100_000)), PushedContent(text: String(repeating: "é", count: 40))] {
            let attrs = ActivityAttributes(timerID: "x", kind: .until(bad))
            #expect(throws: Rejection.self) { try TimerMachine.apply(.start(attrs), to: nil, now: t0) }
        }
        let badIcon = ActivityAttributes(kind: .until(PushedContent()), icon: .named("Laundry Room"))
        #expect(performing: { try TimerMachine.apply(.start(badIcon), to: nil, now: t0) },
                throws: { "\($0)".contains("icon name") })
        let tooRelevant = ActivityAttributes(kind: .until(PushedContent()), relevance: 101)
        #expect(throws: Rejection.self) { try TimerMachine.apply(.start(tooRelevant), to: nil, now: t0) }
    }

    @Test func relevanceDefaultsPutAPersonsSessionFirst() {
        #expect(threeCycles.relevance == 100 && stopwatch.relevance == 100)
        #expect(laundry.relevance == 0)
        #expect(ActivityAttributes(kind: .until(PushedContent()), relevance: 100).relevance == 100)
    }

    @Test func theInvariantsHoldTheKindsApart() throws {
        let a = try #require(start)
        var paused = a
        paused.content.display = .paused(frozen: .seconds(5))
        #expect(paused.violation()?.field == "content.phase")
        var bare = a
        bare.content.pushed = nil
        #expect(bare.violation()?.field == "content.pushed")
        var bad = a
        bad.content.pushed?.progress = 7
        #expect(bad.violation()?.field == "content.pushed.progress")
        var countdown = try #require(started())
        countdown.content.pushed = PushedContent(text: "x")
        #expect(countdown.violation()?.field == "content.pushed")
        // An end no request could have set (more than 24 h after the change that set it), as a
        // forged sync record or an edited state file might carry it.
        var farPushed = a
        farPushed.content.pushed?.endsAt = Instant(milliseconds: 7_258_118_399_000)
        #expect(farPushed.violation()?.field == "content.pushed.ends_at")
        var farStart = a
        farStart.attributes.kind = .until(PushedContent(endsAt: a.startedAt + .seconds(24 * 3600 + 1)))
        #expect(farStart.violation()?.field == "attributes.ends_at")
        var atBound = a
        atBound.content.pushed?.endsAt = a.updatedAt + .seconds(24 * 3600)
        #expect(atBound.violation() == nil)
        countdown.content.pushed = nil
        countdown.content.display = .tracking
        #expect(countdown.violation()?.field == "content.reference")
        #expect(a.violation() == nil)
    }

    /// The 24 h horizon at its edge, from the text a source sends: t0 is 2026-11-30T22:00:00Z,
    /// so 2026-12-01T22:00:00Z is exactly 24 h ahead (taken) and anything later is past it,
    /// however little (refused), written in UTC or with an offset.
    @Test func theHorizonHoldsAtItsEdgeInEveryForm() throws {
        #expect(ISO8601.format(t0) == "2026-11-30T22:00:00.000Z")
        let a = try #require(start)
        func outcome(_ text: String) throws -> Bool {
            let end = try #require(ISO8601.parse(text), "\(text) does not parse")
            let attrs = ActivityAttributes(timerID: "edge", kind: .until(PushedContent(endsAt: end)))
            let started = (try? TimerMachine.apply(.start(attrs), to: nil, now: t0)) != nil
            let updated = (try? TimerMachine.apply(.update(ContentUpdate(endsAt: .set(end))), to: a, now: t0)) != nil
            #expect(started == updated, "\(text): a start and an update disagree")
            return started
        }
        for taken in ["2026-12-01T22:00:00Z", "2026-12-01T22:00:00.000000000Z", "2026-12-01T23:00:00+01:00",
                      "2026-12-01T17:00:00-05:00", "2026-12-01T21:59:59.999Z", "2026-12-01t22:00:00z"] {
            #expect(try outcome(taken), "\(taken) refused")
        }
        for refused in ["2026-12-01T22:00:00.001Z", "2026-12-01T22:00:01Z", "2026-12-01T22:00:00.0000001Z",
                        "2026-12-01T23:00:00.0004+01:00", "2026-12-02T00:00:00.001+02:00",
                        "2026-12-01T22:00:00.5Z", "2026-12-01T21:00:01-01:00"] {
            #expect(try !outcome(refused), "\(refused) taken")
        }
        // The loader's rule is the same edge: a record 1 ms past it is refused.
        var past = a
        past.content.pushed?.endsAt = a.updatedAt + .seconds(24 * 3600) + .milliseconds(1)
        #expect(past.violation()?.field == "content.pushed.ends_at")
    }

    @Test func onlyWhatSchemaOneCannotHoldNeedsSchemaTwo() throws {
        #expect(try #require(started()).fitsSchema1)
        #expect(try #require(started(stopwatch)).fitsSchema1)
        #expect(try #require(start).fitsSchema1 == false)
        let withIcon = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 1), icon: .named("kettle"))
        #expect(try #require(started(withIcon)).fitsSchema1 == false)
        let lessRelevant = ActivityAttributes(kind: .stopwatch, relevance: 50)
        #expect(try #require(started(lessRelevant)).fitsSchema1 == false)
    }
}
