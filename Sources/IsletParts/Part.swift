import IsletClock
import IsletConfig
import IsletSystem
import IsletProtocol
import IsletCore
import IsletStore

/// One part of the daemon (docs/ARCHITECTURE.md "Parts"): a source of inputs (descriptors in
/// the loop's table, deadlines), a sink of changes, or both. The daemon holds its parts as a
/// list and runs every step below as a loop over it, in the list's order; a part meets only
/// what it needs, the rest has defaults. A new capability is one type that meets this and one
/// entry in `Daemon.parts`.
package protocol DaemonPart: AnyObject {
    /// The activities restored from the state file, before the loop starts.
    func restored(_ activities: [Activity], now: Instant)
    /// A few words for the start-up line of the log ("in sync group …"), if it has any.
    var summary: String? { get }
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
    /// What it lends the other parts for this turn (night mode's state, the page's address),
    /// before the frame and the outcome.
    func lend(to values: inout TurnValues)
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
    /// Whether the timeline stands at the last save (the wall clock is behind it): nothing of
    /// the activities falls due, and no timer is marked fresh by another part meanwhile.
    var timeStands: Bool { get }
    /// What it keeps in the state file beside the activities, when that changed.
    func save(into state: any SavedBeside)
    /// At stop: what is queued goes out.
    func shutdown(_ turn: TurnView)
}

extension DaemonPart {
    package func restored(_ activities: [Activity], now: Instant) {}
    package var summary: String? { nil }
    package func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {}
    package func afterEvents(_ turn: TurnView) {}
    package func prepareToWait() {}
    package var nextDeadline: MonotonicInstant? { nil }
    package var hasBacklog: Bool { false }
    package func take(_ effect: DaemonEffect, _ turn: TurnView) {}
    package func lend(to values: inout TurnValues) {}
    package func publish(_ outcome: TurnOutcome) {}
    package func releaseAnswers(_ answers: Answers) {}
    package func report(into status: inout DaemonStatus, _ turn: TurnView) {}
    package func reload(_ config: DaemonConfig) {}
    package var holdsFrames: Bool { false }
    package var timeStands: Bool { false }
    package func save(into state: any SavedBeside) {}
    package func shutdown(_ turn: TurnView) {}
}

/// What the state file keeps beside the activities: each part's own slice, under its own key.
package protocol SavedBeside: AnyObject {
    /// The part's slice changed: the next save writes it under `type(of: slice).key`.
    func keep(_ slice: any SavedSlice)
}

/// The one way from a part to the book: requests and what else it heard, as values.
package protocol Inbox: AnyObject {
    /// A request (the socket's, the broker's): its answer, now or at the end of the turn.
    func request(_ request: ControlRequest) -> Reply
    /// Anything else heard that changes the activities.
    func post(_ event: PartEvent)
}

/// What a part hears that is not a request. No case names a part: whatever a part hears
/// becomes one of these general changes.
package enum PartEvent {
    /// An intent heard outside a request (a button's gesture; a clock that disagrees with its
    /// group, or caught up: `markStale`, `markFresh`). A refusal is logged under `source`
    /// (nil: quietly, the part's own judgement that may no longer apply). A `markFresh` waits
    /// while a part holds the timeline at the last save (`timeStands`).
    case intent(Intent, timer: String?, source: String?)
    /// A timer's state made elsewhere (another display's change), taken as it is now.
    case outside(OutsideChange)
    /// A client left before its starts were saved: they are cancelled.
    case abandoned([StartTicket])
    /// The panel's contrast or whether idle is dark changed: watchers learn it.
    case displayChanged
}

/// A timer's state made elsewhere: the activity as it was changed there (nil: ended), the
/// expanded view it asked for, and who made it (for the log).
package struct OutsideChange: Equatable {
    package var timer: String
    package var activity: Activity?
    package var expandedUntil: Instant?
    package var origin: String

    package init(timer: String, activity: Activity?, expandedUntil: Instant?, origin: String) {
        self.timer = timer
        self.activity = activity
        self.expandedUntil = expandedUntil
        self.origin = origin
    }
}

/// What every part sees of the turn: the activities, and the instants read once for it.
package struct TurnView {
    package let activities: [Activity]
    package let now: Instant
    package let mono: MonotonicInstant

    package init(activities: [Activity], now: Instant, mono: MonotonicInstant) {
        self.activities = activities
        self.now = now
        self.mono = mono
    }
}

/// The turn's outcome, for the sinks.
package struct TurnOutcome {
    package let view: TurnView
    /// What watchers get (the `change` event), when the activities or their presentation changed.
    package let change: ControlResponse?
    /// systemd's one-line status.
    package let statusText: String
    /// What the glass shows, for the sinks that show it elsewhere (the page, Home Assistant).
    package let picture: (any PanelPicture)?
    /// What the parts lent one another this turn.
    package let values: TurnValues

    package init(view: TurnView, change: ControlResponse?, statusText: String, picture: (any PanelPicture)? = nil,
                 values: TurnValues = TurnValues()) {
        self.view = view
        self.change = change
        self.statusText = statusText
        self.picture = picture
        self.values = values
    }
}

/// What parts lend one another through the turn, by type: a part reads the values it knows
/// and names no other part (night mode's state for Home Assistant, the page's address).
package struct TurnValues {
    private var values: [ObjectIdentifier: Any] = [:]

    package init() {}

    package subscript<T>(_ type: T.Type) -> T? {
        get { values[ObjectIdentifier(type)] as? T }
        set { values[ObjectIdentifier(type)] = newValue }
    }
}

/// Where a person configures this display: a page's address, for Home Assistant's "Visit".
package struct ConfigurationPage: Equatable {
    package var url: String
    package init(url: String) { self.url = url }
}

/// The panel's picture for parts that show it elsewhere: read only when they need it.
package protocol PanelPicture: AnyObject {
    /// What the glass shows: the emulated panel's RAM on the mock bus, the frame the driver last
    /// sent on real glass (nil before the first).
    var image: PanelImage? { get }
    /// Grows whenever the image may have changed (a frame sent, the display switched).
    var version: Int { get }
    /// The image as a PNG, each panel pixel `scale`×`scale` (1…16); nil without an image.
    func png(scale: Int) -> [UInt8]?
}

/// How a request is answered.
package enum Reply {
    /// At once (a refusal, whose text does not depend on the turn).
    case now(ControlResponse)
    /// At the end of the turn, after the frame, from the turn's one snapshot; a change's
    /// answer also waits for its write (`generation`).
    case later(PendingAnswer)
}

/// An answer held until its write is durable and the turn's frame is out.
package struct PendingAnswer {
    /// The write the answer waits for (0: none).
    package var generation: UInt64 = 0
    /// A start whose outcome (saved, or rolled back) the answer reports.
    package var ticket: StartTicket?
    package var shape: AnswerShape = .state

    package init(generation: UInt64 = 0, ticket: StartTicket? = nil, shape: AnswerShape = .state) {
        self.generation = generation
        self.ticket = ticket
        self.shape = shape
    }
}

/// What an answer holds beside the activities and their presentation.
package enum AnswerShape {
    case state
    /// `status`: the daemon's status, the activities narrowed to one timer when named.
    case status(timer: String?)
    /// `watch`: the stream's first message.
    case watch
    /// `press`: the two edges' instants on CLOCK_MONOTONIC.
    case press(pressMicroseconds: UInt64, releaseMicroseconds: UInt64)
}

/// Answers ready to go: those whose write is done, made from one snapshot of the turn.
package struct Answers {
    package let durable: UInt64
    package let make: (PendingAnswer) -> ControlResponse

    package init(durable: UInt64, make: @escaping (PendingAnswer) -> ControlResponse) {
        self.durable = durable
        self.make = make
    }
}
