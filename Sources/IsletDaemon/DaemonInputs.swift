#if canImport(Glibc)
import Glibc
#endif
import IsletInput
import IsletSystem
import IsletProtocol
import IsletCore
import IsletLinux

/// The inputs' supervisors: signals, the demo's keys, the buttons (with retry of missing GPIO
/// lines), the chime, and the wall clock's watch. Each turns what it reads into an event for
/// `perform`; none changes the activities itself.
extension Daemon {
    func setUpInputs() throws(DaemonStartError) {
        switch config.buttons {
        case .none: break
        case .mock:
            do {
                let m = try MockButtons(buttons: config.buttonConfig.buttons, clock: loopClock)
                mockButtons = m
                buttonSource = m
            } catch { throw DaemonStartError("cannot set up the mock buttons: \(error)", status: 71) }
        case .gpio:
            // Missing buttons are not fatal: the timer still runs and the socket still serves,
            // and the lines are tried again with backoff (udev may not yet have given
            // /dev/gpiochip* to the gpio group at boot; a chip may probe late).
            do { buttonSource = try Self.openButtons(config) } catch {
                log.limited(.error, topic: "gpio-buttons", nowMs: startedAt.milliseconds,
                            "buttons unavailable, running without them for now (retrying): \(error)")
                gpioRetryAt = startedAt.adding(milliseconds: 1000)
            }
        }
        if config.buttonConfig.chime.isMock { chimeOutput = MockChimeOutput() }
        else { do { chimeOutput = try Self.openChime(config) } catch {
            log.limited(.error, topic: "gpio-chime", nowMs: startedAt.milliseconds,
                        "chime unavailable, running without it for now (retrying): \(error)")
            gpioRetryAt = startedAt.adding(milliseconds: 1000)
        } }
    }

    /// The descriptor table at start: signals, the listening socket, the deadline timer, the
    /// writer's completions and the buttons. Clients, keys and the clock watch come and go.
    func registerDescriptors() throws(SystemError) {
        try loop.register(signals.fd.raw) { [unowned self] _ in handleSignals() }
        try loop.register(server.listenFD) { [unowned self] _ in acceptClients() }
        try loop.register(deadline.fd) { [unowned self] _ in deadline.clear(); armedDeadline = nil }
        try loop.register(writer.done.fd.raw) { [unowned self] _ in takeWriteCompletions() }
        try loop.register(stopper.counter.fd.raw) { [unowned self] _ in
            log.info("stopping on request")
            running = false
        }
        registerButtons()
    }

    func registerButtons() {
        guard let source = buttonSource else { return }
        do { try loop.register(source.fileDescriptor) { [unowned self] _ in readButtons() } }
        catch { log.error("cannot watch the buttons: \(error)") }
    }

    // MARK: signals and reload

    func handleSignals() {
        for signo in signals.pending() {
            switch signo {
            case SIGHUP: reloadConfig()
            case SIGTERM, SIGINT:
                log.info("stopping on signal \(signo)")
                running = false
            default: break
            }
        }
    }

    func reloadConfig() {
        notifier.reloading()
        let nowMs = loopClock.monotonic().milliseconds
        do {
            let new = try reload()
            let (kept, changed) = config.reloaded(with: new)
            config = kept
            log.threshold = config.logLevel
            interpreter = ButtonInterpreter(config: config.buttonConfig)
            log.limited(.notice, topic: "reloaded", intervalMs: 10_000, nowMs: nowMs,
                        "configuration reloaded" + (changed.isEmpty ? "" : "; \(changed.joined(separator: ", ")) changes take effect at restart"))
        } catch {
            // Rate-limited: a script that sends SIGHUP in a loop must not flood the journal.
            log.limited(.error, topic: "reload", intervalMs: 10_000, nowMs: nowMs,
                        "configuration not reloaded, the old one stays in force: \(error)")
        }
        notifier.send("READY=1\nSTATUS=\(statusText())")
    }

    // MARK: the demo's keys

    func handleKeys() {
        var byte: UInt8 = 0
        let n = read(0, &byte, 1)
        if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
            // The demo's terminal is gone (closed window, EOF): stop, rather than spin on a
            // descriptor that is readable forever.
            log.info("the terminal closed; stopping the demo")
            loop.unregister(0)
            running = false
            return
        }
        guard n == 1 else { return }
        let key = Character(Unicode.Scalar(byte))
        switch key {
        case "q": running = false
        case "w":
            var s = StartRequest()
            s.stopwatch = true
            _ = perform(.start(s.attributes(timer: nil, defaults: config.session)), timer: nil, now: clock.now())
        default:
            guard let m = mockButtons,
                  let (button, hold) = MockButtons.keyPress(for: key, buttons: m.buttons,
                                                            longPressMilliseconds: config.buttonConfig.longPressMilliseconds) else { return }
            _ = try? m.press(button: button, holdMilliseconds: hold)
        }
    }

    // MARK: buttons and chime

    func readButtons() {
        guard let source = buttonSource else { return }
        do {
            let edges = try source.readEdges()
            for c in interpreter.handle(edges) { act(on: c) }
        } catch {
            log.limited(.warning, topic: "buttons", nowMs: loopClock.monotonic().milliseconds, "reading the buttons failed: \(error)")
        }
    }

    func advanceButtonsAndChime() {
        let ns = loopClock.monotonic().nanoseconds
        if let d = interpreter.nextDeadline, d <= ns {
            for c in interpreter.advance(to: ns) { act(on: c) }
        }
        if let d = chime.nextDeadline, d <= ns, let level = chime.advance(to: ns) { setChime(level) }
    }

    /// A gesture's command: its timer is the map's, else the book resolves it (the most
    /// recently started); a toggle with no activity starts the default session (the table).
    func act(on command: ButtonCommand) {
        var attrs = config.session.attributes
        if let t = command.timerID { attrs.timerID = t }
        if case .failure(let e) = perform(command.action.intent(defaultSession: attrs), timer: command.timerID, now: clock.now()) {
            log.info("button \(command.event.button) \(command.event.gesture): \(e.message)")
        }
    }

    static func openButtons(_ c: DaemonConfig) throws(GPIOError) -> GPIOButtons {
        try GPIOButtons(lines: c.buttonConfig.gpioLines(), bias: c.buttonConfig.bias, activeLow: c.buttonConfig.activeLow)
    }

    static func openChime(_ c: DaemonConfig) throws(GPIOError) -> (any ChimeOutput)? {
        guard let spec = try c.buttonConfig.chime.gpioLine() else { return nil }
        return try GPIOOutput(spec: spec, activeLow: c.buttonConfig.chime.activeLow)
    }

    /// Tries the GPIO lines that failed to open again; backs off up to a minute between tries.
    func retryGPIO(mono: MonotonicInstant) {
        guard let at = gpioRetryAt, mono >= at else { return }
        log.debug("trying the GPIO lines again")
        var failed = false
        if config.buttons == .gpio, buttonSource == nil {
            do {
                buttonSource = try Self.openButtons(config)
                registerButtons()
                log.notice("buttons ready")
            } catch {
                failed = true
                log.limited(.warning, topic: "gpio-buttons", nowMs: mono.milliseconds, "buttons still unavailable (retrying): \(error)")
            }
        }
        if chimeOutput == nil, !config.buttonConfig.chime.isMock, config.buttonConfig.chime.line != nil {
            do {
                chimeOutput = try Self.openChime(config)
                log.notice("chime ready")
            } catch {
                failed = true
                log.limited(.warning, topic: "gpio-chime", nowMs: mono.milliseconds, "chime still unavailable (retrying): \(error)")
            }
        }
        gpioBackoffMs = min(gpioBackoffMs * 2, 60_000)
        gpioRetryAt = failed ? mono.adding(milliseconds: gpioBackoffMs) : nil
    }

    func chimeFor(_ t: Transition, timer: String) {
        guard !chimeQuiet, let cue = ChimeCue.decide(effects: t.effects, phase: t.phase) else { return }
        // A pause or reset silences its own timer's chime, not one another timer is sounding.
        if cue == .silence, chimeTimer != timer { return }
        guard let level = chime.handle(cue, config: config.buttonConfig.chime, at: loopClock.monotonic().nanoseconds) else { return }
        chimeTimer = cue == .silence ? nil : timer
        setChime(level)
    }

    func setChime(_ level: Bool) {
        guard let out = chimeOutput else { return }
        if level { chimePulses += 1 }
        do { try out.set(active: level) }
        catch { log.limited(.warning, topic: "chime", nowMs: loopClock.monotonic().milliseconds, "the chime line failed: \(error)") }
    }

    // MARK: the wall clock

    func armClockChangeWatch() {
        guard clockWatch == nil else { return }
        do {
            let w = try WallClockChangeWatch()
            try loop.register(w.fd.raw) { [unowned self] _ in handleClockChange() }
            clockWatch = w
        } catch {
            log.warning("cannot watch for wall-clock changes: \(error)")
        }
    }

    func disarmClockChangeWatch() {
        guard let w = clockWatch else { return }
        loop.unregister(w.fd.raw)
        clockWatch = nil
    }

    func handleClockChange() {
        guard let w = clockWatch, w.clockWasSet() else { return }
        disarmClockChangeWatch()
        guard let behind = clockBehindUntil else { return }
        if clock.rawNow() < behind, loopClock.wallMilliseconds() >= behind.milliseconds {
            // The clock was wrong at start and has been set: the timeline follows it this once.
            clock.rebase()
            log.notice("the wall clock was set; the timeline follows it")
        }
        if clockBehindUntil != nil { armClockChangeWatch() }
    }

    /// Clears the stale marks the daemon set itself once its clock has caught up.
    func clearClockStaleIfCaughtUp(_ now: Instant) {
        guard let behind = clockBehindUntil, clock.rawNow() >= behind else { return }
        clockBehindUntil = nil
        clock.setFloor(nil)
        disarmClockChangeWatch()
        // Only the marks this daemon set itself: staleness from an activity's own stale-after
        // interval is the core's business and stays.
        for id in markedStale.sorted() { _ = perform(.markFresh, timer: id, now: now) }
        markedStale = []
        log.notice("the clock has caught up with the last save; activities are no longer stale")
        broadcastChange(now: now)
    }
}
