#if canImport(Glibc)
import Glibc
#endif
import IsletInput
import IsletPosix
import IsletProtocol
import IsletFrame
import IsletCore
import IsletDisplay
import IsletLinux
import IsletRender

/// The daemon: one event-loop thread around poll(2). It sleeps until the next deadline (the
/// core's, an expand ending, the watchdog, a panel retry, an enabled pixel shift) or an event
/// (a client, a signal, a key), then advances the manager, renders, and flushes what changed.
public final class Daemon {
    private var config: DaemonConfig
    private let reload: () throws(ConfigError) -> DaemonConfig
    /// The last save failed (logged once per minute until one succeeds).
    private var storeFailing = false
    private let log: Logger
    private let clock: SharedClock
    private var manager: ActivityManager
    private let store: FileStore
    private let server: ControlServer
    private let panel: any PanelOutput
    private let renderer: any FrameRenderer
    // Buttons and chime (the buttons module's pure interpreter and player, driven from here).
    private var buttonSource: (any ButtonSource)?
    private var mockButtons: MockButtons?
    private var interpreter: ButtonInterpreter
    private var chime = ChimePlayer()
    private var chimeOutput: (any ChimeOutput)?
    private let notifier = SystemdNotifier()
    private var policy = PresentationPolicy()
    private var activities: [Activity] = []
    private let signalFD: Int32
    private var screen: TerminalScreen?
    private var running = true

    // Counters for `status`.
    private var wakeups = 0
    private var frames = 0
    private var busBytes = 0
    private var busErrors = 0
    /// Times the chime output was switched on (a pattern of three beeps counts three).
    private var chimePulses = 0
    /// Set while the start-up catch-up applies events that fell due before this process ran.
    private var chimeQuiet = false
    /// The timer whose cycle end or completion the chime is sounding.
    private var chimeTimer: String?
    /// When to try the GPIO buttons or chime line again after they failed to open (boot ms).
    private var gpioRetryAtMs: Int64?
    private var gpioBackoffMs: Int64 = 1000
    private let startedMono: Int64

    // Panel bookkeeping: a missing panel is retried with backoff and logged once.
    private var panelReady = false
    private var panelRetryAtMs: Int64 = 0
    private var panelBackoffMs: Int64 = 250
    private var lastFrame: Bitmap?
    private var displayOn = false
    private var nextWatchdogMs: Int64?
    private var lastStatusText = ""
    /// The test pattern shows instead of the activities until this boot-clock instant.
    private var testPatternUntilMs: Int64?

    // A restart whose clock is behind the last save shows the restored activities stale.
    private var clockBehindUntil: Instant?
    private var markedStale: Set<String> = []
    private var clockChangeFD: Int32 = -1

    /// Sets everything up; throws a message for the log and an exit status.
    public init(config: DaemonConfig, reload: @escaping () throws(ConfigError) -> DaemonConfig, log: Logger) throws(DaemonStartError) {
        self.config = config
        self.reload = reload
        self.log = log
        self.clock = SharedClock()
        let c = clock
        let paths = DaemonPaths.resolve(config)
        if let slash = paths.socket.lastIndex(of: "/") {
            let dir = String(paths.socket[..<slash])
            if let problem = DaemonPaths.checkPrivate(dir) { throw DaemonStartError("cannot serve the control socket: \(problem)", status: 69) }
            if dir == DaemonPaths.sharedTmpFallback {
                do { try Posix.makeDirectories(dir, mode: 0o700) }
                catch { throw DaemonStartError("cannot create \(dir): \(error)", status: 73) }
                if let problem = DaemonPaths.checkPrivate(dir) { throw DaemonStartError("cannot serve the control socket: \(problem)", status: 69) }
            }
        }
        do { try Posix.makeDirectories(paths.stateDir, mode: 0o750) }
        catch { throw DaemonStartError("cannot create the state directory: \(error)", status: 73) }
        if let problem = FileStore.unsafeDirectory(paths.stateDir) {
            throw DaemonStartError("refusing the state directory: \(problem)", status: 73)
        }
        store = FileStore(directory: paths.stateDir, now: { c.now() })

        // Signals arrive through a descriptor in the poll set; block them before any thread starts.
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, s) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        signal(SIGPIPE, SIG_IGN)
        signalFD = linux_signalfd(-1, &mask, O_NONBLOCK | O_CLOEXEC)
        guard signalFD >= 0 else { throw DaemonStartError("signalfd: \(Errno.current)", status: 71) }

        let model: PanelModel
        do { model = try config.panelModel(origin: "display") }
        catch { throw DaemonStartError("\(error)", status: ConfigError.exitStatus) }
        switch config.bus {
        case .mock:
            do {
                panel = try DriverPanel(mockModel: model, address: UInt8(config.address), rotation: config.rotation,
                                        contrast: config.contrast, capture: config.capture,
                                        unplug: config.mockUnplug)
            } catch { throw DaemonStartError(error.message, status: 73) }
        case .device(let path):
            panel = DriverPanel(device: path, model: model, address: UInt8(config.address), rotation: config.rotation,
                                contrast: config.contrast, transport: config.transport)
        }
        if config.testPatternSeconds > 0 {
            testPatternUntilMs = Posix.bootMilliseconds() + Int64(config.testPatternSeconds) * 1000
        }
        do { renderer = try Renderer() }
        catch { throw DaemonStartError("cannot load the fonts: \(error); install xfonts-terminus and xfonts-unifont or set $ISLET_FONT_DIR", status: 72) }

        interpreter = ButtonInterpreter(config: config.buttonConfig)
        switch config.buttons {
        case .none: break
        case .mock:
            do {
                let m = try MockButtons(buttons: config.buttonConfig.buttons)
                mockButtons = m
                buttonSource = m
            } catch { throw DaemonStartError("cannot set up the mock buttons: \(error)", status: 71) }
        case .gpio:
            // Missing buttons are not fatal: the timer still runs and the socket still serves,
            // and the lines are tried again with backoff (udev may not yet have given
            // /dev/gpiochip* to the gpio group at boot; a chip may probe late).
            do { buttonSource = try Self.openButtons(config) } catch {
                log.limited(.error, topic: "gpio-buttons", nowMs: Posix.bootMilliseconds(),
                            "buttons unavailable, running without them for now (retrying): \(error)")
                gpioRetryAtMs = Posix.bootMilliseconds() + 1000
            }
        }
        if config.buttonConfig.chime.isMock { chimeOutput = MockChimeOutput() }
        else { do { chimeOutput = try Self.openChime(config) } catch {
            log.limited(.error, topic: "gpio-chime", nowMs: Posix.bootMilliseconds(),
                        "chime unavailable, running without it for now (retrying): \(error)")
            gpioRetryAtMs = Posix.bootMilliseconds() + 1000
        } }
        // The socket last: a start-up failure above leaves no socket file behind.
        do { server = try ControlServer(path: paths.socket, mode: config.socketMode, group: config.socketGroup) }
        catch { throw DaemonStartError("cannot serve the control socket: \(error)", status: 69) }
        startedMono = Posix.bootMilliseconds()

        let loaded = store.load()
        if let problem = loaded.problem { log.warning(problem) }
        // The restart rule (docs/DAEMON.md, "Time"): in the same boot the time since the save is
        // CLOCK_BOOTTIME's, whatever the wall clock says; after a reboot only the wall clock
        // is left, and while it is behind the save, time stands at the save.
        if let savedAt = loaded.savedAt, let id = loaded.bootID, id == BootID.current, let ms = loaded.bootMs {
            let since = Posix.bootMilliseconds() - ms
            if since >= 0 {
                clock.continueTimeline(at: savedAt + .milliseconds(since))
                let skew = Posix.wallMilliseconds() - clock.now().milliseconds
                if abs(skew) > 2000 {
                    log.notice("restarted in the same boot: timers continue from the last save by the boot clock; the wall clock differs from that by \(skew / 1000) s")
                }
            }
        }
        manager = ActivityManager(store: store, restoring: loaded.activities)
        syncActivities()
        let now = clock.now()
        if let savedAt = loaded.savedAt, now < savedAt, !activities.isEmpty {
            clock.setFloor(savedAt)
            clockBehindUntil = savedAt
            log.warning("the wall clock (\(now)) is behind the last save (\(savedAt)); restored activities show stale until it catches up")
            for a in activities { _ = perform(.markStale, timer: a.timerID, now: now); markedStale.insert(a.timerID) }
            armClockChangeWatch()
        }
        log.info("serving \(paths.socket), state in \(paths.stateDir), panel \(config.bus) \(config.controller.rawValue) \(config.width)x\(config.height)")
        if config.preview == .terminal {
            screen = TerminalScreen(legend: Self.legend(config))
        }
    }

    /// The demo's one-line legend: each mock button's key (lower case: press, upper case:
    /// long press) with the action the button map gives it.
    static func legend(_ config: DaemonConfig) -> String {
        var parts: [String] = []
        if config.buttons == .mock {
            let map = config.buttonConfig.map
            for b in config.buttonConfig.buttons {
                guard let key = b.first else { continue }
                if let a = map[b, .press]?.action { parts.append("[\(key)] \(a)") }
                if let a = map[b, .longPress]?.action { parts.append("[\(key.uppercased())] \(a)") }
            }
        }
        return (parts + ["[w] stopwatch", "[q] quit"]).joined(separator: "  ")
    }

    // MARK: the loop

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        // Find out once whether a panel answers, so READY means "serving, panel known".
        bringUpPanel(mono: Posix.bootMilliseconds())
        // Catching up with what fell due while the daemon was down: those moments have passed,
        // so they do not chime now (a restart an hour after a session must not beep).
        chimeQuiet = true
        advanceAndRefresh()
        chimeQuiet = false
        if let w = notifier.watchdogIntervalMs { nextWatchdogMs = Posix.bootMilliseconds() + w }
        notifier.ready(status: statusText())
        while running {
            var fds: [pollfd] = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
                                 pollfd(fd: server.listenFD, events: Int16(POLLIN), revents: 0)]
            let keys = screen?.readsKeys == true
            fds.append(pollfd(fd: keys ? 0 : -1, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: clockChangeFD, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: buttonSource?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0))
            let clientOrder = Array(server.clients.values)
            for c in clientOrder {
                // A throttled client is not read until it takes its answers (backpressure).
                var ev: Int16 = c.closing || c.throttled ? 0 : Int16(POLLIN)
                if c.pendingOutput > 0 { ev |= Int16(POLLOUT) }
                fds.append(pollfd(fd: c.fd, events: ev, revents: 0))
            }
            // Requests left over from a client's last turn are served without waiting.
            let timeout = clientOrder.contains(where: \.hasBufferedLine) ? 0 : pollTimeout()
            let n = poll(&fds, nfds_t(fds.count), timeout)
            wakeups += 1
            if n < 0 {
                if errno == EINTR { continue }
                log.error("poll: \(Errno.current)")
                return 71
            }
            if fds[0].revents != 0 { handleSignals() }
            if fds[1].revents != 0 { for c in server.acceptAll() { log.debug("client \(c.id) connected") } }
            if fds[2].revents != 0 { handleKeys() }
            if fds[3].revents != 0 { handleClockChange() }
            if fds[4].revents != 0 { readButtons() }
            retryGPIO(mono: Posix.bootMilliseconds())
            advanceButtonsAndChime()
            for (i, c) in clientOrder.enumerated() {
                let re = fds[5 + i].revents
                guard re != 0 || c.hasBufferedLine, server.clients[c.fd] === c else { continue }
                let readable = re & Int16(POLLIN | POLLHUP | POLLERR) != 0
                if readable || c.hasBufferedLine { service(c, readable: readable) }
                if server.clients[c.fd] === c, c.pendingOutput > 0, !server.flush(c) {
                    if c.pendingOutput > ControlServer.maximumPendingOutput {
                        log.notice("client \(c.id) does not read its answers; dropped")
                    }
                    drop(c)
                }
            }
            dropOverdueClients()
            advanceAndRefresh()
            pingWatchdogIfDue()
        }
        shutdown()
        return 0
    }

    private func pollTimeout() -> Int32 {
        let mono = Posix.bootMilliseconds()
        let ns = monotonicNanoseconds()
        func fromNs(_ d: UInt64?) -> Int64? { d.map { mono + Int64(($0 > ns ? $0 - ns : 0) / 1_000_000) + 1 } }
        let now = clock.now()
        let shiftAt = displayOn ? PixelShiftSchedule(periodMinutes: config.pixelShiftMinutes).nextChange(after: now) : nil
        var others: [Int64?] = [nextWatchdogMs, fromNs(interpreter.nextDeadline), fromNs(chime.nextDeadline),
                                shiftAt.map { mono + ($0 - now).wholeMilliseconds }]
        others.append(testPatternUntilMs)
        if !panelReady, wantsPanel { others.append(panelRetryAtMs) }
        others.append(server.overdue(nowMs: mono).next)
        others.append(gpioRetryAtMs)
        // While the clock is behind the last save, time stands at the save for the activities:
        // nothing of theirs falls due; the wake-up that matters is the timeline passing the save.
        if let behind = clockBehindUntil {
            others.append(mono + (behind - clock.rawNow()).wholeMilliseconds + 1)
            return WakePlan.timeout(activities: [], policy: policy, clockBehindUntil: nil,
                                    now: now, monotonicDeadlines: others, monotonicNow: mono)
        }
        return WakePlan.timeout(activities: activities, policy: policy, clockBehindUntil: clockBehindUntil,
                                now: clock.now(), monotonicDeadlines: others, monotonicNow: mono)
    }

    private var wantsPanel: Bool { !activities.isEmpty || displayOn || testPatternUntilMs != nil }

    /// What the panel presents now: the test pattern while it lasts, else the policy's scene.
    private func presentationName(now: Instant) -> String {
        if testPatternUntilMs != nil { return "test_pattern" }
        return policy.scene(of: activities, now: now)?.presentation.rawValue ?? "off"
    }

    // MARK: events

    private func handleSignals() {
        // struct signalfd_siginfo is 128 bytes; its first field is the signal number (u32).
        var info = [UInt32](repeating: 0, count: 32)
        while info.withUnsafeMutableBytes({ read(signalFD, $0.baseAddress, 128) }) == 128 {
            let signo = Int32(bitPattern: info[0])
            switch signo {
            case SIGHUP: reloadConfig()
            case SIGTERM, SIGINT:
                log.info("stopping on signal \(signo)")
                running = false
            default: break
            }
        }
    }

    private func reloadConfig() {
        notifier.reloading()
        do {
            let new = try reload()
            var changed: [String] = []
            if new.socketPath != config.socketPath || new.socketMode != config.socketMode || new.socketGroup != config.socketGroup { changed.append("socket") }
            if new.stateDir != config.stateDir { changed.append("state_dir") }
            if new.bus != config.bus || new.address != config.address || new.controller != config.controller
                || new.width != config.width || new.height != config.height || new.rotation != config.rotation
                || new.panelAdjustments != config.panelAdjustments || new.contrast != config.contrast
                || new.transport != config.transport { changed.append("panel") }
            var kept = new
            // What the running daemon cannot change in place keeps its old value until a restart.
            kept.socketPath = config.socketPath; kept.socketMode = config.socketMode; kept.socketGroup = config.socketGroup
            kept.stateDir = config.stateDir; kept.bus = config.bus; kept.address = config.address
            kept.controller = config.controller; kept.width = config.width; kept.height = config.height
            kept.rotation = config.rotation
            kept.panelAdjustments = config.panelAdjustments; kept.contrast = config.contrast
            kept.transport = config.transport
            kept.capture = config.capture; kept.preview = config.preview; kept.mockUnplug = config.mockUnplug
            kept.buttons = config.buttons
            if new.buttonConfig.lines != config.buttonConfig.lines || new.buttonConfig.chip != config.buttonConfig.chip
                || new.buttonConfig.bias != config.buttonConfig.bias || new.buttonConfig.activeLow != config.buttonConfig.activeLow {
                kept.buttonConfig = config.buttonConfig
                changed.append("button lines")
            }
            // The chime's line was opened at start: its patterns reload, the line waits for a restart.
            let oldChime = config.buttonConfig.chime
            if new.buttonConfig.chime.line != oldChime.line || new.buttonConfig.chime.chip != oldChime.chip
                || new.buttonConfig.chime.activeLow != oldChime.activeLow {
                kept.buttonConfig.chime.line = oldChime.line
                kept.buttonConfig.chime.chip = oldChime.chip
                kept.buttonConfig.chime.activeLow = oldChime.activeLow
                changed.append("chime line")
            }
            config = kept
            log.threshold = config.logLevel
            interpreter = ButtonInterpreter(config: config.buttonConfig)
            log.limited(.notice, topic: "reloaded", intervalMs: 10_000, nowMs: Posix.bootMilliseconds(),
                        "configuration reloaded" + (changed.isEmpty ? "" : "; \(changed.joined(separator: ", ")) changes take effect at restart"))
        } catch {
            // Rate-limited: a script that sends SIGHUP in a loop must not flood the journal.
            log.limited(.error, topic: "reload", intervalMs: 10_000, nowMs: Posix.bootMilliseconds(),
                        "configuration not reloaded, the old one stays in force: \(error)")
        }
        notifier.send("READY=1\nSTATUS=\(statusText())")
    }

    private func handleKeys() {
        var byte: UInt8 = 0
        let n = read(0, &byte, 1)
        if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
            // The demo's terminal is gone (closed window, EOF): stop, rather than spin on a
            // descriptor that is readable forever.
            log.info("the terminal closed; stopping the demo")
            running = false
            return
        }
        guard n == 1 else { return }
        let now = clock.now()
        let key = Character(Unicode.Scalar(byte))
        switch key {
        case "q": running = false
        case "w":
            var s = StartRequest()
            s.stopwatch = true
            _ = perform(.start(s.attributes(timer: nil, defaults: config.session)), timer: nil, now: now)
        default:
            guard let m = mockButtons,
                  let (button, hold) = MockButtons.keyPress(for: key, buttons: m.buttons,
                                                            longPressMilliseconds: config.buttonConfig.longPressMilliseconds) else { return }
            try? m.press(button: button, holdMilliseconds: hold)
        }
    }

    // MARK: buttons and chime

    private func readButtons() {
        guard let source = buttonSource else { return }
        do {
            let edges = try source.readEdges()
            for c in interpreter.handle(edges) { act(on: c) }
        } catch {
            log.limited(.warning, topic: "buttons", nowMs: Posix.bootMilliseconds(), "reading the buttons failed: \(error)")
        }
    }

    private func advanceButtonsAndChime() {
        let ns = monotonicNanoseconds()
        if let d = interpreter.nextDeadline, d <= ns {
            for c in interpreter.advance(to: ns) { act(on: c) }
        }
        if let d = chime.nextDeadline, d <= ns, let level = chime.advance(to: ns) { setChime(level) }
    }

    private func act(on command: ButtonCommand) {
        let now = clock.now()
        let defaults = config.session.attributes
        guard let timer = command.target(activities: activities, defaultSession: defaults) else {
            log.debug("\(command): nothing to act on")
            return
        }
        var attrs = defaults
        attrs.timerID = timer
        if case .failure(let e) = perform(command.action.intent(defaultSession: attrs), timer: timer, now: now) {
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
    private func retryGPIO(mono: Int64) {
        guard let at = gpioRetryAtMs, mono >= at else { return }
        log.debug("trying the GPIO lines again")
        var failed = false
        if config.buttons == .gpio, buttonSource == nil {
            do {
                buttonSource = try Self.openButtons(config)
                log.notice("buttons ready")
            } catch {
                failed = true
                log.limited(.warning, topic: "gpio-buttons", nowMs: mono, "buttons still unavailable (retrying): \(error)")
            }
        }
        if chimeOutput == nil, !config.buttonConfig.chime.isMock, config.buttonConfig.chime.line != nil {
            do {
                chimeOutput = try Self.openChime(config)
                log.notice("chime ready")
            } catch {
                failed = true
                log.limited(.warning, topic: "gpio-chime", nowMs: mono, "chime still unavailable (retrying): \(error)")
            }
        }
        gpioBackoffMs = min(gpioBackoffMs * 2, 60_000)
        gpioRetryAtMs = failed ? mono + gpioBackoffMs : nil
    }

    private func chimeFor(_ t: Transition, timer: String) {
        guard !chimeQuiet, let cue = ChimeCue.decide(effects: t.effects, phase: t.phase) else { return }
        // A pause or reset silences its own timer's chime, not one another timer is sounding.
        if cue == .silence, chimeTimer != timer { return }
        guard let level = chime.handle(cue, config: config.buttonConfig.chime, at: monotonicNanoseconds()) else { return }
        chimeTimer = cue == .silence ? nil : timer
        setChime(level)
    }

    private func setChime(_ level: Bool) {
        guard let out = chimeOutput else { return }
        if level { chimePulses += 1 }
        do { try out.set(active: level) }
        catch { log.limited(.warning, topic: "chime", nowMs: Posix.bootMilliseconds(), "the chime line failed: \(error)") }
    }

    private func armClockChangeWatch() {
        let fd = linux_timerfd_create(CLOCK_REALTIME, O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        var spec = itimerspec()
        spec.it_value.tv_sec = Int.max / 2
        // TFD_TIMER_CANCEL_ON_SET: the read fails with ECANCELED whenever the wall clock is set.
        // TFD_TIMER_ABSTIME is 1, TFD_TIMER_CANCEL_ON_SET is 2.
        if linux_timerfd_settime(fd, 1 | 2, &spec, nil) != 0 { close(fd); return }
        clockChangeFD = fd
    }

    private func handleClockChange() {
        var expirations: UInt64 = 0
        _ = read(clockChangeFD, &expirations, 8)
        close(clockChangeFD)
        clockChangeFD = -1
        guard let behind = clockBehindUntil else { return }
        if clock.rawNow() < behind, Posix.wallMilliseconds() >= behind.milliseconds {
            // The clock was wrong at start and has been set: the timeline follows it this once.
            clock.rebase()
            log.notice("the wall clock was set; the timeline follows it")
        }
        if clockBehindUntil != nil { armClockChangeWatch() }
    }

    /// Clears the stale marks the daemon set itself once its clock has caught up.
    private func clearClockStaleIfCaughtUp(_ now: Instant) {
        guard let behind = clockBehindUntil, clock.rawNow() >= behind else { return }
        clockBehindUntil = nil
        clock.setFloor(nil)
        if clockChangeFD >= 0 { close(clockChangeFD); clockChangeFD = -1 }
        // Only the marks this daemon set itself: staleness from an activity's own stale-after
        // interval is the core's business and stays.
        for id in markedStale.sorted() { _ = perform(.markFresh, timer: id, now: now) }
        markedStale = []
        log.notice("the clock has caught up with the last save; activities are no longer stale")
        broadcastChange(now: now)
    }

    // MARK: clients

    /// A request line must be finished within ControlServer.lineTimeoutMs of its first byte.
    private func dropOverdueClients() {
        for c in server.overdue(nowMs: Posix.bootMilliseconds()).late {
            c.queue(JSONLines.encode(ControlResponse.failure(ProtocolError("request_timeout",
                "a request line must be finished within \(ControlServer.lineTimeoutMs / 1000) s of its first byte; the connection is closed"))))
            c.closing = true
            c.input = []
            c.partialSinceMs = nil
            if !server.flush(c) { drop(c) }
        }
    }

    private func service(_ c: ClientConnection, readable: Bool = true) {
        switch server.readLines(c, readable: readable) {
        case .lines(let lines):
            for l in lines { answer(l, to: c) }
        case .tooLong(let lines):
            for l in lines { answer(l, to: c) }
            c.queue(JSONLines.encode(ControlResponse.failure(ProtocolError("line_too_long",
                "a request line is limited to \(ControlRequest.maximumLineBytes) bytes; the connection is closed"))))
            c.closing = true
            c.input = []
        case .closed(let lines):
            // The client is done sending: answer what it sent, then close once that is out.
            for l in lines { answer(l, to: c) }
            c.closing = true
            c.input = []
            if !server.flush(c) { drop(c) }
        }
    }

    private func drop(_ c: ClientConnection) {
        log.debug("client \(c.id) left")
        server.drop(c)
    }

    private func answer(_ line: [UInt8], to c: ClientConnection) {
        let now = clock.now()
        let response: ControlResponse
        do {
            let req = try ControlRequest.parse(line)
            response = try handle(req, client: c, now: now)
        } catch {
            response = .failure(error)
        }
        c.queue(JSONLines.encode(response))
    }

    private func handle(_ req: ControlRequest, client: ClientConnection, now: Instant) throws(ProtocolError) -> ControlResponse {
        switch req.op {
        case .status:
            var r = snapshot(now: now)
            // `timer` narrows the answer to that timer (none when it has no activity).
            if let t = req.timer { r.activities = r.activities?.filter { $0.activity.timerID == t } }
            r.status = daemonStatus()
            return r
        case .watch:
            client.watching = true
            var r = snapshot(now: now)
            r.event = "snapshot"
            return r
        case .press:
            guard config.buttons == .mock else {
                throw ProtocolError("not_supported", "press works only with mock buttons (isletd --buttons mock)")
            }
            guard let m = mockButtons else { throw ProtocolError("not_supported", "mock buttons are not set up") }
            do { try m.press(button: req.button ?? "", holdMilliseconds: UInt64(req.holdMilliseconds)) }
            catch {
                switch error {
                case .unknownButton: throw ProtocolError("unknown_button", error.description)
                case .timer: throw ProtocolError("internal", error.description)
                }
            }
        case .start:
            try perform(.start(req.start.attributes(timer: req.timer, defaults: config.session)), timer: req.timer, now: now).get()
        case .toggle:
            var attrs = config.session.attributes
            if let t = req.timer { attrs.timerID = t }
            try perform(.toggle(default: attrs), timer: req.timer, now: now).get()
        case .pause: try perform(.pause, timer: req.timer, now: now).get()
        case .resume: try perform(.resume, timer: req.timer, now: now).get()
        case .reset: try perform(.reset, timer: req.timer, now: now).get()
        case .expand: try perform(.expand, timer: req.timer, now: now).get()
        case .testPattern:
            testPatternUntilMs = req.patternSeconds == 0 ? nil : Posix.bootMilliseconds() + Int64(req.patternSeconds) * 1000
            log.info(req.patternSeconds == 0 ? "test pattern ended" : "test pattern for \(req.patternSeconds) s")
            broadcastChange(now: now)
            refreshDisplay(now: now)
        case .end: try perform(.end(req.dismissal.policy(now: now)), timer: req.timer, now: now).get()
        }
        return snapshot(now: clock.now())
    }

    /// Applies an intent through the manager, then updates watchers and the panel.
    private func perform(_ intent: Intent, timer: String?, now: Instant) -> Result<Void, ProtocolError> {
        let m = manager
        let outcome = runBlocking { () async -> Result<ManagerChange, Rejection> in
            do throws(Rejection) { return .success(try await m.apply(intent, timer: timer, now: now)) }
            catch { return .failure(error) }
        }
        syncActivities()
        switch outcome {
        case .success(let change)?:
            if change.transition.effects.contains(.expanded) {
                policy.expandedUntil = now + .seconds(config.expandSeconds)
                policy.expandedTimer = change.timerID
            }
            if change.transition.effects.contains(.started) { markedStale.remove(change.timerID) }
            chimeFor(change.transition, timer: change.timerID)
            log.debug("\(intent.name) on \(change.timerID): now \(change.transition.phase.rawValue)")
            broadcastChange(now: now)
            refreshDisplay(now: clock.now())
            return .success(())
        case .failure(let r)?:
            return .failure(.from(r))
        case nil:
            return .failure(ProtocolError("internal", "the activity manager did not answer"))
        }
    }

    private func syncActivities() {
        let m = manager
        guard let (list, storeError) = runBlocking({ await (m.activities, m.lastStoreError) }) else { return }
        activities = list
        // A failing state file is logged, not only shown in status (rate-limited: a full disk
        // fails every save), and its recovery once.
        if let storeError {
            log.limited(.error, topic: "store", nowMs: Posix.bootMilliseconds(),
                        "the state file could not be saved (the timers stay right in memory; the next change retries): \(storeError)")
            storeFailing = true
        } else if storeFailing {
            storeFailing = false
            log.reset(topic: "store")
            log.notice("the state file is saved again")
        }
    }

    private func snapshot(now: Instant) -> ControlResponse {
        ControlResponse(ok: true, event: nil, activities: activities.map { ActivityReport(activity: $0, now: now) },
                        presentation: presentationName(now: now),
                        status: nil, error: nil, now: now)
    }

    private func broadcastChange(now: Instant) {
        var r = snapshot(now: now)
        r.event = "change"
        let line = JSONLines.encode(r)
        for c in server.clients.values where c.watching && !c.closing {
            c.queue(line)
            if !server.flush(c) {
                log.notice("client \(c.id) does not read its watch stream; dropped")
                drop(c)
            }
        }
        let s = statusText()
        if s != lastStatusText { lastStatusText = s; notifier.status(s) }
    }

    private func daemonStatus() -> DaemonStatus {
        let m = manager
        let storeError = runBlocking { await m.lastStoreError } ?? nil
        return DaemonStatus(pid: Int(getpid()), version: IsletVersion.string,
                            uptimeSeconds: Double(Posix.bootMilliseconds() - startedMono) / 1000,
                            wakeups: wakeups, frames: frames, busBytes: busBytes, busErrors: busErrors,
                            panelPresent: panelReady, panelOn: displayOn, bus: config.bus.description,
                            size: "\(config.width)x\(config.height)",
                            presentation: presentationName(now: clock.now()),
                            clients: server.clients.count, storeError: storeError,
                            clockBehind: clockBehindUntil != nil,
                            chimePulses: chimeOutput == nil ? nil : chimePulses, panel: panel.visibleImage)
    }

    private func statusText() -> String {
        guard let a = activities.last else { return "idle" }
        var s = "\(a.timerID) \(a.phase.rawValue)"
        if activities.count > 1 { s += " (+\(activities.count - 1) more)" }
        if a.content.isStale { s += ", stale" }
        return s
    }

    // MARK: time and the panel

    private func advanceAndRefresh() {
        let now = clock.now()
        clearClockStaleIfCaughtUp(now)
        let due = activities.contains { a in ShownTime.nextDeadline(of: a, after: now).map { $0.at <= now && $0.reason != .shownSecondChanges } ?? false }
        if due {
            let m = manager
            let changes = runBlocking { await m.advance(to: now) } ?? []
            syncActivities()
            for c in changes { chimeFor(c.transition, timer: c.timerID) }
            if !changes.isEmpty { broadcastChange(now: now) }
        }
        if let until = policy.expandedUntil, until <= now {
            policy.expandedUntil = nil
            policy.expandedTimer = nil
            // The presentation changed: watchers learn it from here, not from a guess of their own.
            broadcastChange(now: now)
        }
        refreshDisplay(now: now)
    }

    private func refreshDisplay(now: Instant) {
        let mono = Posix.bootMilliseconds()
        if let until = testPatternUntilMs, mono >= until {
            testPatternUntilMs = nil
            broadcastChange(now: now)
        }
        let scene = policy.scene(of: activities, now: now)
        let pattern = testPatternUntilMs != nil
        if !panelReady {
            guard scene != nil || pattern || displayOn, mono >= panelRetryAtMs else { updateScreen(); return }
            guard bringUpPanel(mono: mono) else { updateScreen(); return }
        }
        do {
            if scene != nil || pattern {
                var frame: Bitmap
                if let scene, !pattern {
                    frame = Bitmap(width: config.width, height: config.height)
                    var options = RenderOptions()
                    options.shift = PixelShiftSchedule(periodMinutes: config.pixelShiftMinutes).offset(at: now)
                    renderer.render(scene, options: options, into: &frame)
                } else {
                    frame = TestPattern.frame(width: config.width, height: config.height)
                }
                if frame != lastFrame {
                    busBytes += try panel.show(frame)
                    frames += 1
                    lastFrame = frame
                    if let e = (panel as? DriverPanel)?.mock?.captureError {
                        log.limited(.error, topic: "capture", intervalMs: .max, nowMs: mono, "the capture stopped: \(e)")
                    }
                }
                if !displayOn {
                    busBytes += try panel.setDisplay(on: true)
                    displayOn = true
                }
            } else if displayOn {
                busBytes += try panel.setDisplay(on: false)
                displayOn = false
            }
        } catch {
            panelFailed(error, mono: mono)
        }
        updateScreen()
    }

    @discardableResult
    private func bringUpPanel(mono: Int64) -> Bool {
        do {
            busBytes += try panel.initialize()
            panelReady = true
            panelBackoffMs = 250
            lastFrame = nil
            displayOn = false
            log.reset(topic: "panel")
            log.notice("panel \(panel.name) answers")
            return true
        } catch {
            panelFailed(error, mono: mono)
            return false
        }
    }

    private func panelFailed(_ error: PanelError, mono: Int64) {
        busErrors += 1
        panelReady = false
        displayOn = false
        lastFrame = nil
        panelRetryAtMs = mono + panelBackoffMs
        log.limited(.warning, topic: "panel", nowMs: mono,
                    "panel not answering (\(error)); the timer keeps running, retrying with backoff")
        panelBackoffMs = min(panelBackoffMs * 2, 8000)
    }

    private func updateScreen() {
        guard let screen else { return }
        let now = clock.now()
        let line = activities.last.map { "\($0.timerID): \($0.phase.rawValue) \(ShownTime.format(ShownTime.seconds(of: $0, at: now)))" } ?? "idle"
        screen.show(panel.visibleImage, status: line + (panelReady || busErrors == 0 ? "" : "  (panel not answering)"))
    }

    private func pingWatchdogIfDue() {
        guard let next = nextWatchdogMs, let interval = notifier.watchdogIntervalMs else { return }
        let mono = Posix.bootMilliseconds()
        if mono >= next {
            notifier.watchdog()
            nextWatchdogMs = mono + interval
        }
    }

    private func shutdown() {
        notifier.stopping()
        for c in server.clients.values where c.pendingOutput > 0 { _ = server.flush(c) }
        if config.onExit == .off, panelReady, displayOn { _ = try? panel.setDisplay(on: false) }
        try? store.saveNow(activities)
        if chime.isPlaying { setChime(false) }
        (panel as? DriverPanel)?.stopCapture()
        server.shutdown()
        screen?.restore()
        log.info("stopped")
    }
}

/// signalfd(2): the Glibc module does not import <sys/signalfd.h>.
@_silgen_name("signalfd")
private func linux_signalfd(_ fd: Int32, _ mask: UnsafePointer<sigset_t>, _ flags: Int32) -> Int32

@_silgen_name("timerfd_create")
private func linux_timerfd_create(_ clock: Int32, _ flags: Int32) -> Int32
@_silgen_name("timerfd_settime")
private func linux_timerfd_settime(_ fd: Int32, _ flags: Int32, _ new: UnsafePointer<itimerspec>, _ old: UnsafeMutablePointer<itimerspec>?) -> Int32

/// A start-up failure with the exit status to leave with.
public struct DaemonStartError: Error, CustomStringConvertible {
    public var message: String
    public var status: Int32
    public init(_ message: String, status: Int32) { self.message = message; self.status = status }
    public var description: String { message }
}



extension Intent {
    /// The intent's name for the log (the attributes are in the state file).
    var name: String {
        switch self {
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .toggle: "toggle"
        case .reset: "reset"
        case .end: "end"
        case .expand: "expand"
        case .markStale: "mark stale"
        case .markFresh: "mark fresh"
        }
    }
}
