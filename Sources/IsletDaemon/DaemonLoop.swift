import IsletSystem
import IsletCore

/// The loop: wait on the descriptor table, let the handlers turn what is ready into events,
/// then advance time, render, flush, and only then hand the durable write to the writer.
/// It sleeps until the next deadline, armed on a timerfd at its absolute CLOCK_MONOTONIC
/// instant: nothing periodic runs when nothing visible changes.
extension Daemon {
    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        // Find out once whether a panel answers, so READY means "serving, panel known".
        panel.bringUp(mono: ctx.mono)
        // Catching up with what fell due while the daemon was down: those moments have passed,
        // so they do not chime now (a restart an hour after a session must not beep).
        chime.quiet = true
        advanceAndRefresh()
        book.store.loadFinished()   // the first frame is drawn: the state file did not crash the start
        chime.quiet = false
        saveSyncLedger()
        book.submitIfDirty()
        systemd.ready(status: statusText(), mono: ctx.mono)
        while lifecycle.running {
            prepareToWait()
            do { try loop.turn(immediately: clients.hasBufferedRequest || mqtt?.hasBacklog == true) } catch {
                ctx.log.error("the event loop failed: \(error)")
                shutdown()
                return 71
            }
            afterEvents()
        }
        shutdown()
        return 0
    }

    /// One turn's work after the handlers ran. The order is the flow: inputs, time, the frame
    /// on the bus, then the durable write.
    func afterEvents() {
        let mono = ctx.mono
        buttons.advance(mono: mono)
        chime.advance(mono: mono)
        book.retryIfDue(mono)
        clients.afterEvents()
        mqtt?.afterEvents()
        sync?.afterEvents()
        advanceAndRefresh()
        mqtt?.publishIfChanged(book.activities, now: ctx.clock.now())
        sync?.publishIfDue()
        saveSyncLedger()
        book.submitIfDirty()
        systemd.pingIfDue(mono: ctx.mono)
    }

    /// Time's own events: due transitions, the end of an expand, then the frame.
    func advanceAndRefresh() {
        let now = ctx.clock.now()
        if let fresh = clockWatch.caughtUp() {
            for id in fresh { perform(.markFresh, timer: id, now: now) }
            broadcastChange(now: now)
        }
        if book.hasDueEvent(at: now) {
            let changes = book.advance(to: now)
            for c in changes { chime.react(to: c.transition, timer: c.timerID) }
            if !changes.isEmpty { broadcastChange(now: now) }
        }
        // The presentation changed: watchers learn it from here, not from a guess of their own.
        if panel.endExpandIfDue(now) { broadcastChange(now: now) }
        refreshDisplay(now: now)
    }

    private func prepareToWait() {
        clients.updateInterests()
        do { try loop.wake(at: nextWake()) } catch {
            ctx.log.limited(.error, topic: "deadline", nowMs: ctx.mono.milliseconds, "cannot arm the deadline timer: \(error)")
        }
    }

    /// The earliest instant anything is due: each part's own deadline (the watchdog, gestures
    /// and GPIO retries, the chime, the panel's pixel shift, test pattern and retry, a client's
    /// request timeout) and the activities' next visible change.
    func nextWake() -> MonotonicInstant? {
        let now = ctx.clock.now()
        // While the clock is behind the last save, time stands at the save for the activities:
        // nothing of theirs falls due; the wake-up that matters is the timeline passing the save.
        let activities = clockWatch.nextDeadline
            ?? panel.nextFrameChange(book.activities, now: now).map { ctx.clock.monotonicInstant(of: $0) }
        return [systemd.nextDeadline, buttons.nextDeadline, chime.nextDeadline, book.nextDeadline,
                panel.nextDeadline(book.activities, now: now), clients.nextDeadline, mqtt?.nextDeadline, sync?.nextDeadline, activities]
            .compactMap { $0 }.min()
    }

    /// The sync ledger is saved with the book, when it changed.
    func saveSyncLedger() {
        guard let ledger = sync?.takeLedgerIfChanged() else { return }
        book.syncLedger = ledger
        book.markDirty()
    }

    func shutdown() {
        systemd.stopping()
        sync?.publishIfDue()
        saveSyncLedger()
        // What is queued is written before the process ends, and the answers that waited for it go out.
        book.finishWrites()
        takeWriteCompletions()
        panel.shutdown()
        // The last save stamps this stop (the restart rule measures from it).
        book.saveFinalStamp()
        chime.silence()
        mqtt?.publishIfChanged(book.activities, now: ctx.clock.now())
        mqtt?.shutdown()
        clients.shutdown()
        ctx.log.info("stopped")
    }
}
