import IsletSettings
import IsletParts
import IsletSystem
import IsletProtocol
import IsletCore
import IsletClock
import IsletStore
import IsletConfig

/// The daemon: one thread, one event loop over a table of descriptors, one owner of the state.
/// Its core is the book (the activities and their durable copy) and the panel; everything
/// else is a part in `parts` (`DaemonPart`): sources hand what they hear to the daemon as
/// values (`Inbox`), changes come back as effects (`DaemonEffect`), and what goes out runs once at
/// the end of the turn, in the list's order: the frame first, then the answers and watchers,
/// then the network, then systemd. docs/ARCHITECTURE.md draws it. A new capability is one
/// part and one entry in `parts`.
///
/// This file sets up; DaemonLoop runs the turn; DaemonRequests turns inputs into changes.
public final class Daemon {
    let env: PartEnvironment
    /// The configuration in force (a reload replaces it; each part takes its own slice).
    var config: DaemonConfig
    let loop: EventLoop
    let lifecycle: Lifecycle
    /// The activities and their durable copy.
    let book: DurableBook
    /// The panel and what it presents.
    let panel: Panel
    /// Every part, from the registry, in the order the turn's outcome reaches them.
    let parts: [any DaemonPart]
    /// The turn under way: its instant, and whether watchers must hear of it.
    var turn = TurnState()
    /// The page's settings over the config file's (Settings/).
    let settings: SettingsDesk

    /// Ends `run()` from another thread (an embedding host, tests), as SIGTERM does.
    public var stopper: DaemonStopper { lifecycle.stopper }

    /// Sets everything up; throws a message for the log and an exit status. `clock` and
    /// `storeSystem` are for tests (a manual clock, a slow or failing disk).
    public init(config: DaemonConfig, reload: @escaping () throws(ConfigError) -> DaemonConfig, log: Logger,
                clock loopClock: any LoopClock = SystemLoopClock(),
                storeSystem: any StoreSystem = LiveStoreSystem()) throws(DaemonStartError) {
        let env = PartEnvironment(log: log, loopClock: loopClock)
        self.env = env
        let paths = try DaemonPaths.prepare(config)
        let lock = try FileLock.stateDirectory(paths.stateDir)
        // The page's settings are read once the directory is ours, before anything uses them.
        do { settings = try SettingsDesk(directory: paths.stateDir, file: config, log: log, system: storeSystem) }
        catch { throw DaemonStartError("\(error)", status: 71) }
        let config = settings.inForce
        self.config = config
        let store = FileStore(directory: paths.stateDir, system: storeSystem, timeline: env.clock, slices: PartRegistry.slices)

        // Signals arrive through a descriptor in the table; they are blocked before any thread
        // (the writer's) starts, so that thread inherits the mask.
        StopAndReloadSignals.ignoreBrokenPipe()
        let loaded: LoadedState
        do {
            lifecycle = try Lifecycle(reload: reload)
            loop = try EventLoop(clock: loopClock)
            loaded = store.load()
            book = try DurableBook(store: store, lock: lock, restoring: loaded.activities, slices: loaded.slices, log: log,
                                   mono: { loopClock.monotonic() })
        } catch { throw DaemonStartError("\(error)", status: 71) }
        if let problem = loaded.problem { log.warning(problem) }

        let preview = config.preview == .terminal ? TerminalScreen(legend: config.demoLegend) : nil
        panel = try Panel(env, config: config, preview: preview)
        parts = try PartRegistry.build(PartBuild(config: config, env: env, paths: paths, slices: loaded.slices))

        do { try wire() }
        catch { throw DaemonStartError("\(error)", status: 71) }
        restoreTimeline(loaded)
        let restored = Restored(activities: book.activities, now: env.clock.now(), savedAt: loaded.savedAt)
        for p in parts { p.restored(restored) }
        log.info("serving \(paths.socket), state in \(paths.stateDir), panel \(config.bus) \(config.controller.rawValue) \(config.width)x\(config.height)"
                 + parts.compactMap(\.summary).map { ", \($0)" }.joined())
    }

    /// The daemon's own descriptors in the table, then each part's.
    private func wire() throws(SystemError) {
        try loop.register(lifecycle.signals.fd.descriptor) { [unowned self] _ in handleSignals() }
        try loop.register(lifecycle.stopper.counter.fd.descriptor) { [unowned self] _ in
            env.log.info("stopping on request")
            lifecycle.stop()
        }
        try loop.register(book.completionsFD) { [unowned self] _ in takeWriteCompletions() }
        try loop.register(settings.completionsFD) { [unowned self] _ in
            // A failed write is undone: the last saved settings go back in force, and the
            // activities a restore replaced come back (a refused restore changes nothing).
            if let undo = settings.takeWrites() {
                _ = putInForce(undo.config)
                if let activities = undo.activities { putBack(activities) }
                announce()
            }
        }
        for p in parts { try p.attach(to: loop, inbox: self) }
        if panel.readsKeys {
            do { try loop.register(.standardInput) { [unowned self] _ in handleKey() } }
            catch { env.log.warning("the demo cannot read keys from this terminal: \(error)") }
        }
    }

    /// The restart rule (docs/DAEMON.md, "Time"): in the same boot the time since the save is
    /// CLOCK_BOOTTIME's, whatever the wall clock says; after a reboot only the wall clock is
    /// left (a clock behind the save is the clock watch's, `restored`).
    private func restoreTimeline(_ loaded: LoadedState) {
        let clock = env.clock
        guard let saved = loaded.timeline, let id = loaded.bootID, id == BootID.current else { return }
        if let why = clock.refusal(toContinue: saved) {
            env.log.warning("restarted in the same boot, but the timeline does not continue from the last save: \(why)")
        } else {
            let skew = env.loopClock.wallMilliseconds().subtractingReportingOverflow(clock.now().milliseconds).partialValue
            if skew > 2000 || skew < -2000 {
                env.log.notice("restarted in the same boot: timers continue from the last save by the boot clock; the wall clock differs from that by \(skew / 1000) s")
            }
        }
    }

    // MARK: routing the inputs

    private func handleSignals() {
        for s in lifecycle.pendingRequests() {
            switch s {
            case .reload: reloadConfig()
            case .stop(let signo):
                env.log.info("stopping on signal \(signo)")
                lifecycle.stop()
            }
        }
    }

    private func reloadConfig() {
        for p in parts { p.lifecycle(.reloading) }
        let nowMs = env.mono.milliseconds
        do {
            let changed = putInForce(settings.fileReloaded(try lifecycle.reload()))
            // One topic for success and failure, each line logged when it differs from the last:
            // a fixed file is confirmed after its error; only a SIGHUP loop's repeats are held.
            env.log.limited(.notice, topic: "reload", intervalMs: 10_000, nowMs: nowMs, distinct: true,
                            "configuration reloaded" + (changed.isEmpty ? "" : "; \(changed.joined(separator: ", ")) changes take effect at restart"))
        } catch {
            // Rate-limited: a script that sends SIGHUP in a loop must not flood the journal.
            env.log.limited(.error, topic: "reload", intervalMs: 10_000, nowMs: nowMs, distinct: true,
                            "configuration not reloaded, the old one stays in force: \(error)")
        }
        let status = statusText()
        for p in parts { p.lifecycle(.reloaded(status: status)) }
    }

    /// A new configuration (a reload's, the page's settings): what the running daemon can
    /// change takes effect now; the names of what waits for a restart.
    func putInForce(_ new: DaemonConfig) -> [String] {
        let (kept, changed) = config.reloaded(with: new)
        config = kept
        env.log.threshold = kept.logLevel
        panel.reload(kept)
        let partConfig = PartConfig(sections: kept.parts, core: [kept])
        for p in parts { p.reload(partConfig) }
        turn.redraw = true
        return changed
    }

    /// The demo's keys: `q` quits, `w` starts a stopwatch, a button's letter presses it.
    private func handleKey() {
        switch Terminal.readKey(from: 0) {
        case .nothing: return
        case .closed:
            // The demo's terminal is gone (closed window, EOF): stop, rather than spin on a
            // descriptor that is readable forever.
            env.log.info("the terminal closed; stopping the demo")
            loop.unregister(.standardInput)
            lifecycle.stop()
        case .byte(let byte):
            let key = Character(Unicode.Scalar(byte))
            switch key {
            case "q": lifecycle.stop()
            case "w":
                var s = StartRequest()
                s.stopwatch = true
                perform(.start(s.attributes(timer: nil, defaults: config.session)), timer: nil)
            default: for p in parts { p.demoKey(key) }
            }
        }
    }
}
