import IsletSystem
import IsletCore
import IsletRender
import IsletFrame

/// The loop: wait on the descriptor table, let the handlers turn what is ready into events,
/// then advance time, render, flush, and only then hand the durable write to the writer.
/// It sleeps until the next deadline, armed on a timerfd at its absolute CLOCK_MONOTONIC
/// instant: nothing periodic runs when nothing visible changes.
extension Daemon {
    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        // Find out once whether a panel answers, so READY means "serving, panel known".
        bringUpPanel(mono: loopClock.monotonic())
        // Catching up with what fell due while the daemon was down: those moments have passed,
        // so they do not chime now (a restart an hour after a session must not beep).
        chimeQuiet = true
        advanceAndRefresh()
        chimeQuiet = false
        submitIfDirty()
        if let w = notifier.watchdogIntervalMs { nextWatchdog = loopClock.monotonic().adding(milliseconds: w) }
        notifier.ready(status: statusText())
        while running {
            prepareToWait()
            let buffered = server.clients.values.contains { $0.hasBufferedLine }
            do { try loop.turn(immediately: buffered) } catch {
                log.error("the event loop failed: \(error)")
                shutdown()
                return 71
            }
            wakeups += 1
            afterEvents()
        }
        shutdown()
        return 0
    }

    /// One turn's work after the handlers ran. The order is the flow: inputs, time, the frame
    /// on the bus, then the durable write.
    func afterEvents() {
        retryGPIO(mono: loopClock.monotonic())
        advanceButtonsAndChime()
        serveBufferedClients()
        dropOverdueClients()
        advanceAndRefresh()
        submitIfDirty()
        pingWatchdogIfDue()
    }

    /// Time's own events: due transitions, the end of an expand, then the frame.
    func advanceAndRefresh() {
        let now = clock.now()
        clearClockStaleIfCaughtUp(now)
        if book.hasDueEvent(at: now) {
            let changes = book.advance(to: now)
            if !changes.isEmpty {
                dirty = true
                for c in changes { chimeFor(c.transition, timer: c.timerID) }
                broadcastChange(now: now)
            }
        }
        if let until = policy.expandedUntil, until <= now {
            policy.expandedUntil = nil
            policy.expandedTimer = nil
            // The presentation changed: watchers learn it from here, not from a guess of their own.
            broadcastChange(now: now)
        }
        refreshDisplay(now: now)
    }

    private func prepareToWait() {
        updateClientInterests()
        let next = nextWake()
        guard next != armedDeadline else { return }
        do {
            try deadline.arm(at: next)
            armedDeadline = next
        } catch {
            log.limited(.error, topic: "deadline", nowMs: loopClock.monotonic().milliseconds, "cannot arm the deadline timer: \(error)")
        }
    }

    /// The earliest instant anything is due: the activities' next visible change (the
    /// policy's end of an expand included), the watchdog, gestures, the chime, a pixel shift,
    /// the test pattern's end, retries of missing hardware, a client's request timeout.
    func nextWake() -> MonotonicInstant? {
        let now = clock.now()
        var best: MonotonicInstant?
        func consider(_ m: MonotonicInstant?) { if let m { best = best.map { min($0, m) } ?? m } }
        consider(nextWatchdog)
        consider(interpreter.nextDeadline.map { MonotonicInstant(nanoseconds: $0) })
        consider(chime.nextDeadline.map { MonotonicInstant(nanoseconds: $0) })
        if panel.displayIsOn, let shift = PixelShiftSchedule(periodMinutes: config.pixelShiftMinutes).nextChange(after: now) {
            consider(clock.monotonicInstant(of: shift))
        }
        consider(testPatternUntil)
        if !panelReady, wantsPanel { consider(panelRetryAt) }
        consider(server.overdue().next.map { loopClock.monotonic(atBootNanoseconds: $0 * 1_000_000) })
        consider(gpioRetryAt)
        // While the clock is behind the last save, time stands at the save for the activities:
        // nothing of theirs falls due; the wake-up that matters is the timeline passing the save.
        if let behind = clockBehindUntil {
            consider(clock.monotonicInstant(of: behind))
        } else {
            consider(nextFrameChange(now: now).map { clock.monotonicInstant(of: $0) })
        }
        return best
    }

    /// The activities' next visible change (FrameSchedule), kept until the activities or the
    /// policy change or the instant passes: minimal icons are probed by drawing, once.
    private func nextFrameChange(now: Instant) -> Instant? {
        if let c = frameWake, c.activities == book.activities, c.expandedUntil == policy.expandedUntil,
           c.expandedTimer == policy.expandedTimer, c.at.map({ now < $0 }) ?? true {
            return c.at
        }
        var options = RenderOptions()
        options.shift = PixelShiftSchedule(periodMinutes: config.pixelShiftMinutes).offset(at: now)
        let at = FrameSchedule.nextChange(activities: book.activities, policy: policy, now: now) { scene in
            var frame = Bitmap(width: config.width, height: config.height)
            renderer.render(scene, options: options, into: &frame)
            return frame
        }
        frameWake = (book.activities, policy.expandedUntil, policy.expandedTimer, at)
        return at
    }

    private func pingWatchdogIfDue() {
        guard let next = nextWatchdog, let interval = notifier.watchdogIntervalMs else { return }
        let mono = loopClock.monotonic()
        if mono >= next {
            notifier.watchdog()
            nextWatchdog = mono.adding(milliseconds: interval)
        }
    }

    func shutdown() {
        notifier.stopping()
        // What is queued is written before the process ends, and the answers that waited for it go out.
        submitIfDirty()
        writer.finish()
        takeWriteCompletions()
        for c in server.clients.values where c.pendingOutput > 0 { _ = server.flush(c) }
        if config.onExit == .off, panelReady, panel.displayIsOn { _ = try? panel.setDisplay(on: false) }
        // The last save stamps this stop (the restart rule measures from it).
        try? store.saveNow(book.activities)
        if chime.isPlaying { setChime(false) }
        (panel as? DriverPanel)?.stopCapture()
        server.shutdown()
        screen?.restore()
        log.info("stopped")
    }
}
