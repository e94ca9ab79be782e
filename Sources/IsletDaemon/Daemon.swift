import IsletInput
import IsletSystem
import IsletProtocol
import IsletCore
import IsletMQTT
import IsletSync
import IsletClock
import IsletStore
import IsletConfig

/// The daemon: one thread, one event loop over a table of descriptors, one owner of the state.
/// It holds a few parts, each owning its state, and routes events between them: a request, a
/// button's command or a due deadline becomes an intent for the book (`perform`); what
/// follows goes out: the frame to the panel first, then the durable write (on the writer's
/// thread), the chime, the watchers' events and systemd's status. docs/ARCHITECTURE.md draws
/// it. A new capability is one more part and one line of wiring in `init`.
///
/// This file sets up and wires; DaemonLoop runs the loop; DaemonRequests answers clients.
public final class Daemon {
    let ctx: DaemonContext
    let loop: EventLoop
    let lifecycle: Lifecycle
    /// The activities and their durable copy.
    let book: DurableBook
    /// The panel and what it presents.
    let panel: Panel
    let buttons: Buttons
    let chime: Chime
    let clients: Clients
    let clockWatch: ClockWatch
    /// The MQTT bridge, with `[mqtt]` only.
    let mqtt: MQTTBridge?
    let systemd = Systemd()

    /// Ends `run()` from another thread (an embedding host, tests), as SIGTERM does.
    public var stopper: DaemonStopper { lifecycle.stopper }

    /// Sets everything up; throws a message for the log and an exit status. `clock` and
    /// `storeSystem` are for tests (a manual clock, a slow or failing disk).
    public init(config: DaemonConfig, reload: @escaping () throws(ConfigError) -> DaemonConfig, log: Logger,
                clock loopClock: any LoopClock = SystemLoopClock(),
                storeSystem: any StoreSystem = LiveStoreSystem()) throws(DaemonStartError) {
        let ctx = DaemonContext(config: config, log: log, loopClock: loopClock)
        self.ctx = ctx
        let paths = try DaemonPaths.prepare(config)
        let lock = try FileLock.stateDirectory(paths.stateDir)
        let store = FileStore(directory: paths.stateDir, system: storeSystem, timeline: ctx.clock)

        // Signals arrive through a descriptor in the table; they are blocked before any thread
        // (the writer's) starts, so that thread inherits the mask.
        StopAndReloadSignals.ignoreBrokenPipe()
        let loaded: LoadedState
        do {
            lifecycle = try Lifecycle(reload: reload)
            loop = try EventLoop(clock: loopClock)
            loaded = store.load()
            book = try DurableBook(store: store, lock: lock, restoring: loaded.activities, log: log,
                                   mono: { loopClock.monotonic() })
        } catch { throw DaemonStartError("\(error)", status: 71) }
        if let problem = loaded.problem { log.warning(problem) }

        let preview = config.preview == .terminal ? TerminalScreen(legend: Buttons.legend(config)) : nil
        panel = try Panel(ctx, preview: preview)
        buttons = try Buttons(ctx)
        chime = Chime(ctx)
        clockWatch = ClockWatch(ctx, loop: loop)
        if let settings = config.mqtt {
            let id = settings.clientID ?? MQTTPlan.defaultClientID(machineID: MQTTPlan.readMachineID())
            let device = HomeAssistantDiscovery.Device(name: "Islet \(id)",
                                                       model: "\(config.controller.rawValue.uppercased()) \(config.width)x\(config.height)",
                                                       version: IsletVersion.string)
            mqtt = try MQTTBridge(ctx, loop: loop, plan: Daemon.mqttPlan(settings, origin: config.origins), device: device)
        } else {
            mqtt = nil
        }
        if let settings = config.sync, let bridge = mqtt {
            bridge.group = SyncGroup(ctx, settings: settings, device: settings.deviceName ?? bridge.plan.clientID,
                                     link: bridge.link, restoring: loaded.sync)
        }
        // The socket last: a start-up failure above leaves no socket file behind.
        clients = try Clients(ctx, loop: loop, socket: paths.socket)

        restoreTimeline(loaded)
        sync?.adoptLocal(book.activities, now: ctx.clock.now())
        do { try wire() }
        catch { throw DaemonStartError("\(error)", status: 71) }
        log.info("serving \(paths.socket), state in \(paths.stateDir), panel \(config.bus) \(config.controller.rawValue) \(config.width)x\(config.height)"
                 + (sync.map { ", in sync group \($0.settings.group ?? "") as \($0.device)" } ?? ""))
    }

    /// Each part's descriptors in the table, and its events routed here.
    private func wire() throws(SystemError) {
        try loop.register(lifecycle.signals.fd.raw) { [unowned self] _ in handleSignals() }
        try loop.register(lifecycle.stopper.counter.fd.raw) { [unowned self] _ in
            ctx.log.info("stopping on request")
            lifecycle.stop()
        }
        try loop.register(book.completionsFD) { [unowned self] _ in takeWriteCompletions() }
        clients.delegate = self
        try clients.attach()
        mqtt?.delegate = self
        sync?.delegate = self
        try mqtt?.attach()
        buttons.attach(to: loop) { [unowned self] command in act(on: command) }
        if panel.readsKeys {
            do { try loop.register(0) { [unowned self] _ in handleKey() } }
            catch { ctx.log.warning("the demo cannot read keys from this terminal: \(error)") }
        }
    }

    /// The restart rule (docs/DAEMON.md, "Time"): in the same boot the time since the save is
    /// CLOCK_BOOTTIME's, whatever the wall clock says; after a reboot only the wall clock is
    /// left, and while it is behind the save, time stands at the save.
    private func restoreTimeline(_ loaded: LoadedState) {
        let clock = ctx.clock
        if let saved = loaded.timeline, let id = loaded.bootID, id == BootID.current {
            if let why = clock.refusal(toContinue: saved) {
                ctx.log.warning("restarted in the same boot, but the timeline does not continue from the last save: \(why)")
            } else {
                let skew = ctx.loopClock.wallMilliseconds().subtractingReportingOverflow(clock.now().milliseconds).partialValue
                if skew > 2000 || skew < -2000 {
                    ctx.log.notice("restarted in the same boot: timers continue from the last save by the boot clock; the wall clock differs from that by \(skew / 1000) s")
                }
            }
        }
        let now = clock.now()
        if let savedAt = loaded.savedAt, now < savedAt, !book.activities.isEmpty {
            for id in clockWatch.fellBehind(savedAt: savedAt, now: now, timers: book.activities.map(\.timerID)) {
                perform(.markStale, timer: id, now: now)
            }
        }
    }

    /// `[mqtt]` with its password read; a problem is a config error (exit 78, no restart loop).
    private static func mqttPlan(_ s: MQTTSettings, origin: [String: String]) throws(DaemonStartError) -> MQTTPlan {
        guard let url = s.url else { throw DaemonStartError("[mqtt] needs url", status: ConfigError.exitStatus) }
        var password: String?
        if let file = s.passwordFile {
            do { password = try MQTTSettings.secret(file, origin: origin["mqtt.password_file"] ?? "mqtt.password_file", what: "password_file") }
            catch { throw DaemonStartError("\(error)", status: ConfigError.exitStatus) }
        }
        return MQTTPlan(s, url: url, password: password, machineID: MQTTPlan.readMachineID())
    }

    /// The sync group (several displays, one session), with `[sync]` only: held by the MQTT
    /// bridge, whose link it rides.
    var sync: SyncGroup? { mqtt?.group }

    // MARK: routing the inputs

    private func handleSignals() {
        for s in lifecycle.pendingRequests() {
            switch s {
            case .reload: reloadConfig()
            case .stop(let signo):
                ctx.log.info("stopping on signal \(signo)")
                lifecycle.stop()
            }
        }
    }

    private func reloadConfig() {
        systemd.reloading()
        let nowMs = ctx.mono.milliseconds
        do {
            let new = try lifecycle.reload()
            let (kept, changed) = ctx.config.reloaded(with: new)
            ctx.config = kept
            ctx.log.threshold = kept.logLevel
            buttons.reconfigure()
            ctx.log.limited(.notice, topic: "reloaded", intervalMs: 10_000, nowMs: nowMs,
                            "configuration reloaded" + (changed.isEmpty ? "" : "; \(changed.joined(separator: ", ")) changes take effect at restart"))
        } catch {
            // Rate-limited: a script that sends SIGHUP in a loop must not flood the journal.
            ctx.log.limited(.error, topic: "reload", intervalMs: 10_000, nowMs: nowMs, distinct: true,
                            "configuration not reloaded, the old one stays in force: \(error)")
        }
        systemd.reloaded(status: statusText())
    }

    /// The demo's keys: `q` quits, `w` starts a stopwatch, a button's letter presses it.
    private func handleKey() {
        switch Terminal.readKey(from: 0) {
        case .nothing: return
        case .closed:
            // The demo's terminal is gone (closed window, EOF): stop, rather than spin on a
            // descriptor that is readable forever.
            ctx.log.info("the terminal closed; stopping the demo")
            loop.unregister(0)
            lifecycle.stop()
        case .byte(let byte):
            let key = Character(Unicode.Scalar(byte))
            switch key {
            case "q": lifecycle.stop()
            case "w":
                var s = StartRequest()
                s.stopwatch = true
                perform(.start(s.attributes(timer: nil, defaults: ctx.config.session)), timer: nil, now: ctx.clock.now())
            default: buttons.pressKey(key)
            }
        }
    }

    /// A gesture's command: its timer is the map's, else the book resolves it (the most
    /// recently started); a toggle with no activity starts the default session (the table).
    private func act(on command: ButtonCommand) {
        var attrs = ctx.config.session.attributes
        if let t = command.timerID { attrs.timerID = t }
        if case .failure(let e) = perform(command.action.intent(defaultSession: attrs), timer: command.timerID, now: ctx.clock.now()) {
            ctx.log.info("button \(command.event.button) \(command.event.gesture): \(e.message)")
        }
    }
}

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

    /// Whether the intent is a person's change, shared with a sync group (marking stale is
    /// each display's own judgement of its clock).
    var isSharedChange: Bool {
        switch self {
        case .start, .pause, .resume, .toggle, .reset, .end, .expand: true
        case .markStale, .markFresh: false
        }
    }
}

extension MonotonicInstant {
    /// Whole milliseconds, for the log's rate limits and the client bookkeeping.
    var milliseconds: Int64 { Int64(nanoseconds / 1_000_000) }
}
