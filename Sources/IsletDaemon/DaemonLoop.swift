import IsletParts
import IsletProtocol
import IsletSystem
import IsletCore

/// The turn under way: one instant for everything it decides, and whether watchers must hear
/// of it. Cleared at the end of each turn.
struct TurnState {
    /// The timeline's instant, read once per turn (so one press draws one scene).
    var now: Instant?
    /// Something changed this turn: watchers, the network and systemd learn it at its end.
    var announce = false
    /// The turn's snapshot, while nothing changed since it was made.
    var snapshot: ControlResponse?
    /// Something changed what the panel shows: the frame is drawn at the end of the turn.
    var redraw = false
    /// The start-up catch-up: the events that fell due while the daemon was down (nothing
    /// sounds for them).
    var catchingUp = false
    /// The instant the last turn judged its frame with: the next wake-up is planned from it. A
    /// later reading would let a second that came due while the turn ended pass undrawn (the
    /// turn found it not yet due, the plan found it already past: a 2 s gap on the panel).
    var finishedAt: Instant?
    /// What a person should notice from this turn, for the watchers' `change` (not while catching up).
    var alerts: [ChangeAlert] = []
}

/// The loop: wait on the descriptor table, let the handlers turn what is ready into changes,
/// then advance time and run the turn's outcome once: the frame on the bus, the answers and
/// watchers, the network, and only then the durable write on the writer's thread. It sleeps
/// until the next deadline, armed on a timerfd at its absolute CLOCK_MONOTONIC instant:
/// nothing periodic runs when nothing visible changes.
extension Daemon {
    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        // What the parts ask of the panel (night mode's contrast) goes in its init sequence.
        _ = lent()
        // Find out once whether a panel answers, so READY means "serving, panel known".
        panel.bringUp(mono: env.mono)
        // Catching up with what fell due while the daemon was down: those moments have passed,
        // so they do not chime now (a restart an hour after a session must not beep).
        turn.catchingUp = true
        turn.redraw = true
        advanceTime()
        finishTurn()
        book.store.loadFinished()   // the first frame is drawn: the state file did not crash the start
        let ready = LifecycleEvent.ready(status: statusText(), mono: env.mono)
        for p in parts { p.lifecycle(ready) }
        while lifecycle.running {
            prepareToWait()
            do { try loop.turn(immediately: parts.contains { $0.hasBacklog }) } catch {
                env.log.error("the event loop failed: \(error)")
                shutdown()
                return 71
            }
            afterEvents()
        }
        shutdown()
        return 0
    }

    /// The turn's instant (read at its first use, kept to its end).
    var now: Instant {
        if let t = turn.now { return t }
        let t = env.clock.now()
        turn.now = t
        return t
    }

    /// What every part sees of the turn.
    var view: TurnView { TurnView(activities: book.activities, now: now, mono: env.mono, catchingUp: turn.catchingUp) }

    /// What the parts lend one another this turn; what they ask of the panel goes to it now.
    func lent() -> TurnValues {
        var values = TurnValues()
        for p in parts { p.lend(to: &values) }
        if let ask = values[PanelAsk.self] { panel.take(ask) }
        return values
    }

    /// One turn's work after the handlers ran: each part's own time, time's own changes, then
    /// the outcome.
    func afterEvents() {
        book.retryIfDue(env.mono)
        for p in parts { p.afterEvents(view) }
        advanceTime()
        finishTurn()
    }

    /// Time's own changes: due transitions, the end of an expand.
    func advanceTime() {
        let now = self.now
        if book.hasDueEvent(at: now) {
            for c in book.advance(to: now) { dispatch([.transition(c.transition, timer: c.timerID), .announce]) }
        }
        // The presentation changed: watchers learn it from here, not from a guess of their own.
        if panel.endExpandIfDue(now) { announce() }
    }

    /// The turn's outcome, once, in this order: the frame on the bus; the answers that are
    /// ready and the watchers' change; the network; systemd; then the durable write.
    func finishTurn() {
        let now = self.now
        let values = lent()
        if turn.redraw || panel.isDue(book.activities, now: now, mono: env.mono) { refreshDisplay(now: now) }
        let view = self.view
        releaseAnswers()
        var change: ControlResponse?
        if turn.announce {
            change = snapshot()
            change?.event = "change"
            if !turn.alerts.isEmpty { change?.alerts = turn.alerts }
        }
        let outcome = TurnOutcome(view: view, change: change, statusText: statusText(), picture: panel, values: values)
        for p in parts { p.publish(outcome) }
        for p in parts { p.save(into: book) }
        book.submitIfDirty()
        turn = TurnState()
        turn.finishedAt = now
    }

    private func prepareToWait() {
        for p in parts { p.prepareToWait() }
        do { try loop.wake(at: nextWake()) } catch {
            env.log.limited(.error, topic: "deadline", nowMs: env.mono.milliseconds, "cannot arm the deadline timer: \(error)")
        }
    }

    /// The earliest instant anything is due: each part's own deadline (the watchdog, gestures
    /// and GPIO retries, the chime, a client's request timeout, the broker), the panel's
    /// (pixel shift, test pattern, retry), the writer's retry, and the activities' next
    /// visible change.
    func nextWake() -> MonotonicInstant? {
        let now = turn.finishedAt ?? env.clock.now()
        // While the clock is behind the last save, time stands at the save for the activities:
        // nothing of theirs falls due; the wake-up that matters is the timeline passing the save.
        let activities = parts.contains(where: \.timeStands) ? nil
            : panel.nextFrameChange(book.activities, now: now).map { env.clock.monotonicInstant(of: $0) }
        return ([book.nextDeadline, panel.nextDeadline(book.activities, now: now), activities] + parts.map(\.nextDeadline))
            .compactMap { $0 }.min()
    }

    /// The stop: the writes queued finish and their answers go out while the socket is still
    /// open; then the panel, then each part in the reverse of the list (the group's last
    /// records before the bridge says offline and disconnects; the socket closes last but one);
    /// the last save stamps the stop (the restart rule measures from it).
    func shutdown() {
        for p in parts { p.lifecycle(.stopping) }
        for p in parts { p.save(into: book) }
        book.finishWrites()
        settings.shutdown()
        _ = settings.takeWrites()   // the answers go out; nothing is put in force at the stop
        takeWriteCompletions()
        releaseAnswers()
        panel.shutdown()
        let view = self.view
        for p in parts.reversed() { p.shutdown(view) }
        for p in parts { p.save(into: book) }
        book.saveFinalStamp()
        env.log.info("stopped")
    }
}
