#if canImport(Glibc)
import Glibc
#endif
import IsletInput
import IsletSystem
import IsletProtocol
import IsletFrame
import IsletCore
import IsletDisplay
import IsletLinux
import IsletRender

/// The daemon: one thread, one event loop over a table of descriptors, one owner of the state.
/// Events (a request, a button edge, a deadline, a signal, a finished write) go in; the state
/// changes in one place (`ActivityBook`, through `perform` and `advanceAndRefresh`); what follows
/// goes out: the frame to the panel first, then the durable write (on the writer's thread),
/// the chime, the watchers' events and systemd's status. docs/ARCHITECTURE.md draws it.
///
/// The jobs are split by file: this one sets up; DaemonLoop runs the loop and its deadlines;
/// DaemonRequests answers clients and carries the writes; DaemonInputs takes signals, keys,
/// buttons, the chime and the wall clock; DaemonPanel keeps the panel.
public final class Daemon {
    var config: DaemonConfig
    let reload: () throws(ConfigError) -> DaemonConfig
    let log: Logger
    let loopClock: any LoopClock
    /// The timeline (wall clock at start + CLOCK_BOOTTIME since), shared with the writer.
    let clock: HostClock
    /// The one owner of the activities.
    var book: ActivityBook
    let store: FileStore
    let writer: StoreWriter
    let loop: EventLoop
    let deadline: any DeadlineTimer
    var armedDeadline: MonotonicInstant?
    /// The last answer of FrameSchedule and what it was computed for.
    var frameWake: (activities: [Activity], expandedUntil: Instant?, expandedTimer: String?, at: Instant?)?
    let signals: StopAndReloadSignals
    let server: ControlServer
    let panel: any PanelOutput
    let renderer: any FrameRenderer
    let notifier = SystemdNotifier()
    var policy = PresentationPolicy()
    var screen: TerminalScreen?
    var running = true
    /// Ends `run()` from another thread (an embedding host, tests), as SIGTERM does.
    public let stopper: DaemonStopper

    // The durable state: the generation last handed to the writer, whether the book changed
    // since, the starts waiting for their write, and what the last write said.
    var submittedGeneration: UInt64 = 0
    var dirty = false
    var startsAwaitingWrite: [(generation: UInt64, ticket: StartTicket)] = []
    var finishedStarts: [StartTicket: (end: ActivityBook.StartEnd, error: String?)] = [:]
    /// Every snapshot up to this generation has been written (or failed).
    var durableGeneration: UInt64 = 0
    /// Clients whose requests were read in this turn of the loop (each gets one turn).
    var servedThisTurn: Set<Int32> = []
    var storeError: String?
    var storeFailing = false

    // Buttons and chime (the input module's pure interpreter and player, driven from here).
    var buttonSource: (any ButtonSource)?
    var mockButtons: MockButtons?
    var interpreter: ButtonInterpreter
    var chime = ChimePlayer()
    var chimeOutput: (any ChimeOutput)?
    /// Times the chime output was switched on (a pattern of three beeps counts three).
    var chimePulses = 0
    /// Set while the start-up catch-up applies events that fell due before this process ran.
    var chimeQuiet = false
    /// The timer whose cycle end or completion the chime is sounding.
    var chimeTimer: String?
    /// When to try the GPIO buttons or chime line again after they failed to open.
    var gpioRetryAt: MonotonicInstant?
    var gpioBackoffMs: Int64 = 1000

    // Counters for `status`.
    var wakeups = 0
    var frames = 0
    var busBytes = 0
    var busErrors = 0
    let startedAt: MonotonicInstant

    // Panel bookkeeping: a missing panel is retried with backoff and logged once. Whether the
    // display is on and the last frame are the driver's to know (PanelOutput), not kept here.
    var panelReady = false
    var panelRetryAt: MonotonicInstant
    var panelBackoffMs: Int64 = 250
    var nextWatchdog: MonotonicInstant?
    var lastStatusText = ""
    /// The test pattern shows instead of the activities until this instant.
    var testPatternUntil: MonotonicInstant?

    // A restart whose clock is behind the last save shows the restored activities stale.
    var clockBehindUntil: Instant?
    var markedStale: Set<String> = []
    var clockWatch: WallClockChangeWatch?

    /// Sets everything up; throws a message for the log and an exit status. `clock` and
    /// `storeSystem` are for tests (a manual clock, a slow or failing disk).
    public init(config: DaemonConfig, reload: @escaping () throws(ConfigError) -> DaemonConfig, log: Logger,
                clock loopClock: any LoopClock = SystemLoopClock(),
                storeSystem: any StoreSystem = LiveStoreSystem()) throws(DaemonStartError) {
        self.config = config
        self.reload = reload
        self.log = log
        self.loopClock = loopClock
        let clock = HostClock(loopClock)
        self.clock = clock
        startedAt = loopClock.monotonic()
        panelRetryAt = startedAt
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
        let store = FileStore(directory: paths.stateDir, system: storeSystem, timeline: clock)
        self.store = store

        // Signals arrive through a descriptor in the table; they are blocked before any thread
        // (the writer's) starts, so that thread inherits the mask.
        signal(SIGPIPE, SIG_IGN)
        do {
            signals = try StopAndReloadSignals()
            loop = try EventLoop()
            deadline = try loopClock.makeDeadlineTimer()
            writer = try StoreWriter(save: { try store.saveNow($0) })
            stopper = DaemonStopper(try EventCounter())
        } catch { throw DaemonStartError("\(error)", status: 71) }

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
            testPatternUntil = startedAt.adding(milliseconds: Int64(config.testPatternSeconds) * 1000)
        }
        do { renderer = try Renderer() }
        catch { throw DaemonStartError("cannot load the fonts: \(error); install xfonts-terminus and xfonts-unifont or set $ISLET_FONT_DIR", status: 72) }

        interpreter = ButtonInterpreter(config: config.buttonConfig)
        // The socket last: a start-up failure above leaves no socket file behind.
        do {
            server = try ControlServer(path: paths.socket, mode: config.socketMode, group: config.socketGroup,
                                       nowMs: { loopClock.bootMilliseconds() })
        }
        catch { throw DaemonStartError("cannot serve the control socket: \(error)", status: 69) }

        let loaded = store.load()
        book = ActivityBook(restoring: loaded.activities)
        if let problem = loaded.problem { log.warning(problem) }
        try setUpInputs()
        restoreTimeline(loaded)
        do { try registerDescriptors() }
        catch { throw DaemonStartError("\(error)", status: 71) }
        log.info("serving \(paths.socket), state in \(paths.stateDir), panel \(config.bus) \(config.controller.rawValue) \(config.width)x\(config.height)")
        if config.preview == .terminal {
            screen = TerminalScreen(legend: Self.legend(config))
            if screen?.readsKeys == true {
                do { try loop.register(0) { [unowned self] _ in handleKeys() } }
                catch { log.warning("the demo cannot read keys from this terminal: \(error)") }
            }
        }
    }

    /// The restart rule (docs/DAEMON.md, "Time"): in the same boot the time since the save is
    /// CLOCK_BOOTTIME's, whatever the wall clock says; after a reboot only the wall clock is
    /// left, and while it is behind the save, time stands at the save.
    private func restoreTimeline(_ loaded: LoadedState) {
        if let saved = loaded.timeline, let id = loaded.bootID, id == BootID.current {
            if clock.continueTimeline(after: saved) {
                let skew = loopClock.wallMilliseconds() - clock.now().milliseconds
                if abs(skew) > 2000 {
                    log.notice("restarted in the same boot: timers continue from the last save by the boot clock; the wall clock differs from that by \(skew / 1000) s")
                }
            }
        }
        let now = clock.now()
        if let savedAt = loaded.savedAt, now < savedAt, !book.activities.isEmpty {
            clock.setFloor(savedAt)
            clockBehindUntil = savedAt
            log.warning("the wall clock (\(now)) is behind the last save (\(savedAt)); restored activities show stale until it catches up")
            for a in book.activities { _ = perform(.markStale, timer: a.timerID, now: now); markedStale.insert(a.timerID) }
            armClockChangeWatch()
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
}

/// A thread-safe way to stop a running daemon.
public final class DaemonStopper: Sendable {
    let counter: EventCounter
    init(_ counter: EventCounter) { self.counter = counter }
    public func stop() { counter.signal() }
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
}
