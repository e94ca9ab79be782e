import IsletClock
import IsletConfig
import IsletInput
import IsletSystem
import IsletProtocol
import IsletCore
import IsletSync

/// One part of the daemon (docs/ARCHITECTURE.md "Parts"): a source of inputs (descriptors in
/// the loop's table, deadlines), a sink of changes, or both. The daemon holds its parts as a
/// list and runs every step below as a loop over it, in the list's order; a part meets only
/// what it needs, the rest has defaults. A new capability is one type that meets this and one
/// entry in `Daemon.parts`.
protocol DaemonPart: AnyObject {
    /// Puts its descriptors in the loop's table; what it hears goes to `inbox`, as values.
    func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError)
    /// After the handlers ran: its own deadlines, retries and queues.
    func afterEvents(_ turn: TurnView)
    /// Before the loop sleeps: its interest in each of its descriptors.
    func prepareToWait()
    /// When it must run again, whatever its descriptors do.
    var nextDeadline: MonotonicInstant? { get }
    /// Work left for a later turn (the loop then does not sleep).
    var hasBacklog: Bool { get }
    /// A change of the activities, as it happens (in order, before the next one): the
    /// sync group records a person's change before a record heard later in the same turn.
    func take(_ effect: DaemonEffect, _ turn: TurnView)
    /// The turn's outcome, once the frame is on the bus: watchers, the network, systemd.
    func publish(_ outcome: TurnOutcome)
    /// Sends the answers that waited for their write or the end of the turn.
    func releaseAnswers(_ answers: Answers)
    /// What it adds to `status`.
    func report(into status: inout DaemonStatus, _ turn: TurnView)
    /// A reloaded configuration: the part takes its own settings from it.
    func reload(_ config: DaemonConfig)
    /// Whether the panel must wait (a display joining its group shows nothing until it has
    /// the group's state).
    var holdsFrames: Bool { get }
    /// What it keeps in the state file beside the activities, when that changed.
    func save(into book: DurableBook)
    /// At stop: what is queued goes out.
    func shutdown(_ turn: TurnView)
}

extension DaemonPart {
    func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {}
    func afterEvents(_ turn: TurnView) {}
    func prepareToWait() {}
    var nextDeadline: MonotonicInstant? { nil }
    var hasBacklog: Bool { false }
    func take(_ effect: DaemonEffect, _ turn: TurnView) {}
    func publish(_ outcome: TurnOutcome) {}
    func releaseAnswers(_ answers: Answers) {}
    func report(into status: inout DaemonStatus, _ turn: TurnView) {}
    func reload(_ config: DaemonConfig) {}
    var holdsFrames: Bool { false }
    func save(into book: DurableBook) {}
    func shutdown(_ turn: TurnView) {}
}

/// The one way from a part to the book: requests and what else it heard, as values.
protocol Inbox: AnyObject {
    /// A request (the socket's, the broker's): its answer, now or at the end of the turn.
    func request(_ request: ControlRequest) -> Reply
    /// Anything else heard that changes the activities.
    func post(_ event: PartEvent)
}

/// What a part hears that is not a request.
enum PartEvent {
    /// A button's gesture.
    case gesture(ButtonCommand)
    /// Another display's record, newer than the one held: the timer's state now.
    case adopt(SyncRecord)
    /// This display's clock disagrees with its group (stale), or agrees again.
    case groupClock(timer: String, stale: Bool)
    /// The clock caught up with the last save: these timers are fresh again.
    case clockCaughtUp([String])
    /// A client left before its starts were saved: they are cancelled.
    case abandoned([StartTicket])
}

/// What every part sees of the turn: the activities, and the instants read once for it.
struct TurnView {
    let activities: [Activity]
    let now: Instant
    let mono: MonotonicInstant
}

/// The turn's outcome, for the sinks.
struct TurnOutcome {
    let view: TurnView
    /// What watchers get (the `change` event), when the activities or their presentation changed.
    let change: ControlResponse?
    /// systemd's one-line status.
    let statusText: String
}

/// How a request is answered.
enum Reply {
    /// At once (a refusal, whose text does not depend on the turn).
    case now(ControlResponse)
    /// At the end of the turn, after the frame, from the turn's one snapshot; a change's
    /// answer also waits for its write (`generation`).
    case later(PendingAnswer)
}

/// An answer held until its write is durable and the turn's frame is out.
struct PendingAnswer {
    /// The write the answer waits for (0: none).
    var generation: UInt64 = 0
    /// A start whose outcome (saved, or rolled back) the answer reports.
    var ticket: StartTicket?
    var shape: AnswerShape = .state
}

/// What an answer holds beside the activities and their presentation.
enum AnswerShape {
    case state
    /// `status`: the daemon's status, the activities narrowed to one timer when named.
    case status(timer: String?)
    /// `watch`: the stream's first message.
    case watch
    /// `press`: the two edges' instants on CLOCK_MONOTONIC.
    case press(pressMicroseconds: UInt64, releaseMicroseconds: UInt64)
}

/// Answers ready to go: those whose write is done, made from one snapshot of the turn.
struct Answers {
    let durable: UInt64
    let make: (PendingAnswer) -> ControlResponse
}
