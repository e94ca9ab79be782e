import IsletClock
import IsletSettings
import IsletSystem
import IsletProtocol
import IsletCore
import IsletStore

/// One part of the daemon (docs/ARCHITECTURE.md "Parts"): a source of inputs (descriptors in
/// the loop's table, deadlines), a sink of changes, or both. The daemon holds its parts as a
/// list and runs every step below as a loop over it, in the list's order; a part meets only
/// what it needs, the rest has defaults. A new capability is one folder and one line in the
/// daemon's registry (docs/ARCHITECTURE.md "Adding a part").
package protocol DaemonPart: AnyObject {
    /// The activities restored from the state file, once every part is attached and before the
    /// loop starts; what it asks for goes to the inbox it was given.
    func restored(_ restored: Restored)
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
    func reload(_ config: PartConfig)
    /// A request of an op this part owns (`press`, `brightness`): its answer; nil when the op is
    /// not its own. Refusals are thrown.
    func answer(_ request: ControlRequest, _ turn: TurnView) throws(ProtocolError) -> Reply?
    /// The service's lifecycle (readiness, reloads, the stop), for the service manager.
    func lifecycle(_ event: LifecycleEvent)
    /// A key of the demo's terminal that the daemon does not use itself.
    func demoKey(_ key: Character)
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
    package func restored(_ restored: Restored) {}
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
    package func reload(_ config: PartConfig) {}
    package func answer(_ request: ControlRequest, _ turn: TurnView) throws(ProtocolError) -> Reply? { nil }
    package func lifecycle(_ event: LifecycleEvent) {}
    package func demoKey(_ key: Character) {}
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
    /// The start-up catch-up: the changes are events that fell due while the daemon was down
    /// (their moments have passed: nothing sounds for them).
    package let catchingUp: Bool

    package init(activities: [Activity], now: Instant, mono: MonotonicInstant, catchingUp: Bool = false) {
        self.activities = activities
        self.now = now
        self.mono = mono
        self.catchingUp = catchingUp
    }
}

/// What the state file gave back at start, for every part.
package struct Restored {
    package let activities: [Activity]
    package let now: Instant
    /// The timeline instant of the last save (nil: no file).
    package let savedAt: Instant?

    package init(activities: [Activity], now: Instant, savedAt: Instant?) {
        self.activities = activities
        self.now = now
        self.savedAt = savedAt
    }
}

/// The configuration as a part reads it on a reload: each part's own section by its settings
/// type, and the core's settings (`DaemonConfig`, read by the parts that know it) by type.
package struct PartConfig {
    package let sections: PartSections
    private let core: [ObjectIdentifier: any Sendable]

    package init(sections: PartSections, core: [any Sendable]) {
        self.sections = sections
        var c: [ObjectIdentifier: any Sendable] = [:]
        for v in core { c[ObjectIdentifier(type(of: v))] = v }
        self.core = c
    }

    package subscript<T: Sendable>(_ type: T.Type) -> T? { core[ObjectIdentifier(type)] as? T }
}

/// The service's lifecycle, as the service manager learns it.
package enum LifecycleEvent {
    /// Serving, the panel known; `status` is the one-line state.
    case ready(status: String, mono: MonotonicInstant)
    case reloading
    case reloaded(status: String)
    case stopping
}

/// What a part asks of the panel for this turn (night mode): a contrast (nil: the module's day
/// contrast) and whether a panel with nothing running shows nothing. The core sends a changed
/// contrast as one 81h command, no redraw.
package struct PanelAsk: Equatable {
    package var contrast: UInt8?
    package var darkWhenIdle: Bool

    package init(contrast: UInt8?, darkWhenIdle: Bool) {
        self.contrast = contrast
        self.darkWhenIdle = darkWhenIdle
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
    /// The write of the page's settings (settings.json) the answer waits for (0: none).
    package var settingsWrite: UInt64 = 0
    /// A start whose outcome (saved, or rolled back) the answer reports.
    package var ticket: StartTicket?
    package var shape: AnswerShape = .state

    package init(generation: UInt64 = 0, ticket: StartTicket? = nil, shape: AnswerShape = .state, settingsWrite: UInt64 = 0) {
        self.generation = generation
        self.settingsWrite = settingsWrite
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
    /// A settings change: the settings in force, or the failure of the write that held it.
    case settings
}

/// Answers ready to go: those whose write is done, made from one snapshot of the turn.
package struct Answers {
    package let durable: UInt64
    /// Every settings.json write up to this generation has landed (or failed).
    package let settingsDurable: UInt64
    package let make: (PendingAnswer) -> ControlResponse

    package init(durable: UInt64, settingsDurable: UInt64 = 0, make: @escaping (PendingAnswer) -> ControlResponse) {
        self.durable = durable
        self.settingsDurable = settingsDurable
        self.make = make
    }

    /// Whether the writes this answer waits for are done.
    package func ready(_ p: PendingAnswer) -> Bool { p.generation <= durable && p.settingsWrite <= settingsDurable }
}
