import IsletParts
import IsletInput
import IsletSystem
import IsletCore
import IsletLinux
import IsletProtocol
import IsletConfig

/// The buttons: their source (GPIO lines, or the mock that the demo's keys, `isletctl press`
/// and tests press), the gesture interpreter, and the retry of GPIO lines that did not open.
/// What it reads becomes `ButtonCommand`s for the daemon; it changes no activity itself.
final class Buttons: DaemonPart {
    private let env: PartEnvironment
    /// The button settings in force (the map and gestures reload; the lines wait for a restart).
    private var settings: ButtonConfig
    /// What a toggle with no activity starts.
    private var session: SessionDefaults
    private let mode: ButtonsMode
    private var source: (any ButtonSource)?
    private(set) var mock: MockButtons?
    private var interpreter: ButtonInterpreter
    private var retry = LineRetry("buttons")
    /// Registers the source's descriptor in the loop once it is open (set by `attach`).
    private var register: (any ButtonSource) -> Void = { _ in }

    init(_ env: PartEnvironment, config: DaemonConfig) throws(DaemonStartError) {
        self.env = env
        settings = config.buttonConfig
        session = config.session
        mode = config.buttons
        interpreter = ButtonInterpreter(config: config.buttonConfig)
        switch config.buttons {
        case .none: break
        case .mock:
            do {
                let m = try MockButtons(buttons: config.buttonConfig.buttons, clock: env.loopClock)
                mock = m
                source = m
            } catch { throw DaemonStartError("cannot set up the mock buttons: \(error)", status: 71) }
        case .gpio:
            // Missing buttons are not fatal: the timer still runs and the socket still serves,
            // and the lines are tried again with backoff (udev may not yet have given
            // /dev/gpiochip* to the gpio group at boot; a chip may probe late).
            do { source = try Self.open(config.buttonConfig) } catch { retry.failedAtStart(error, env) }
        }
    }

    /// Gets each gesture's command (set by `attach`).
    private weak var inbox: (any Inbox)?

    /// Puts the source's descriptor in the loop; the inbox gets each gesture's command.
    func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {
        self.inbox = inbox
        // Each line's descriptor is in the loop (a source of several lines has one per line).
        register = { [unowned self, unowned loop] source in
            for fd in source.descriptors {
                do { try loop.register(fd) { [unowned self] _ in read(fd) } }
                catch { env.log.error("cannot watch the buttons: \(error)") }
            }
        }
        if let source { register(source) }
    }

    /// A reload's new button settings take effect for the next gesture.
    func reload(_ config: PartConfig) {
        guard let config = config[DaemonConfig.self] else { return }
        settings = config.buttonConfig
        session = config.session
        interpreter = ButtonInterpreter(config: settings)
    }

    /// A gesture's intent. Its timer is the map's, else the book resolves it (the most recently
    /// started); a toggle with no activity starts the default session (the table).
    private func act(_ command: ButtonCommand) {
        var attrs = session.attributes
        if let t = command.timerID { attrs.timerID = t }
        inbox?.post(.intent(command.action.intent(defaultSession: attrs), timer: command.timerID,
                            source: "button \(command.event.button) \(command.event.gesture)"))
    }

    private func read(_ fd: Descriptor) {
        guard let source else { return }
        do {
            for c in interpreter.handle(try source.readEdges(from: fd)) { act(c) }
        } catch {
            env.log.limited(.warning, topic: "buttons", nowMs: env.mono.milliseconds, "reading the buttons failed: \(error)")
        }
    }

    /// Gestures that time out (a long press held, a press that no second press followed) and
    /// the retry of GPIO lines that failed to open.
    func afterEvents(_ turn: TurnView) {
        let mono = turn.mono
        if let d = interpreter.nextDeadline, d <= mono.nanoseconds {
            for c in interpreter.advance(to: mono.nanoseconds) { act(c) }
        }
        let lines = settings
        if let s = retry.attempt(mono: mono, env, { () throws(GPIOError) in try Self.open(lines) }) {
            source = s
            register(s)
        }
    }

    var nextDeadline: MonotonicInstant? {
        earliest(interpreter.nextDeadline.map { MonotonicInstant(nanoseconds: $0) }, retry.retryAt)
    }

    /// `press` is the buttons' op: answered once the edges are in, with their instants.
    func answer(_ request: ControlRequest, _ turn: TurnView) throws(ProtocolError) -> Reply? {
        guard request.op == .press else { return nil }
        let edges = try press(request.button ?? "", holdMilliseconds: UInt64(request.holdMilliseconds))
        return .later(PendingAnswer(shape: .press(pressMicroseconds: edges.pressNanoseconds / 1000,
                                                  releaseMicroseconds: edges.releaseNanoseconds / 1000)))
    }

    /// A mock press (`isletctl press`): the two edges' instants on the loop's clock.
    func press(_ button: String, holdMilliseconds: UInt64) throws(ProtocolError) -> (pressNanoseconds: UInt64, releaseNanoseconds: UInt64) {
        guard mode == .mock else {
            throw ProtocolError("not_supported", "press works only with mock buttons (isletd --buttons mock)")
        }
        guard let mock else { throw ProtocolError("not_supported", "mock buttons are not set up") }
        do { return try mock.press(button: button, holdMilliseconds: holdMilliseconds) }
        catch {
            switch error {
            case .unknownButton: throw ProtocolError("unknown_button", error.description)
            case .timer: throw ProtocolError("internal", error.description)
            }
        }
    }

    /// The demo's key: a button's letter presses it (capital: holds it past a long press).
    func demoKey(_ key: Character) {
        guard let mock,
              let (button, hold) = MockButtons.keyPress(for: key, buttons: mock.buttons,
                                                        longPressMilliseconds: settings.longPressMilliseconds) else { return }
        _ = try? mock.press(button: button, holdMilliseconds: hold)
    }

    private static func open(_ c: ButtonConfig) throws(GPIOError) -> GPIOButtons {
        try GPIOButtons(lines: c.gpioLines(), bias: c.bias, activeLow: c.activeLow)
    }
}

extension DaemonConfig {
    /// The demo's one-line legend: each mock button's key (lower case: press, upper case:
    /// long press) with the action the button map gives it.
    var demoLegend: String {
        let config = self
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
