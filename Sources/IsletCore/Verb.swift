/// The one table of what a person can ask of a timer. The control protocol's ops, the button
/// actions, Home Assistant's buttons and the sync group's shared changes are all read from here,
/// so a new verb is one case: each switch below then asks what it means for it.
public enum Verb: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    // The raw values are the wire names (the `op` of a request, a button's action in the config);
    // the order is the order the protocol lists its ops in.
    case start, pause, resume, toggle, reset, end, expand, update

    public var description: String { rawValue }

    /// What a person gives with the verb besides the timer.
    public enum Argument: Hashable, Sendable {
        case none
        /// The session to start (a request's own fields over the config's session).
        case session
        /// How the ended activity leaves the pill.
        case dismissal
        /// The new content a source pushes.
        case content
    }

    public var argument: Argument {
        switch self {
        case .start: .session
        case .end: .dismissal
        case .update: .content
        case .pause, .resume, .toggle, .reset, .expand: .none
        }
    }

    /// Whether the change is shared with the display's sync group. Every verb is a person's
    /// change, and the group shows one state; the host's own marks (stale, fresh) are no verbs.
    public var isSharedWithGroup: Bool {
        switch self {
        case .start, .pause, .resume, .toggle, .reset, .end, .expand, .update: true
        }
    }

    /// Where a button may be bound to the verb, its place in the list the config's errors and
    /// docs give (toggle first: the button that does most); nil when no button may. A gesture
    /// carries nothing, so start and end, which need a session or a dismissal, are no buttons.
    public var buttonOrder: Int? {
        switch self {
        case .toggle: 0
        case .pause: 1
        case .resume: 2
        case .reset: 3
        case .expand: 4
        case .start, .end, .update: nil
        }
    }

    /// Whether Home Assistant gets a button entity for it; start has a number entity instead
    /// (its minutes), and end none (reset ends and dismisses at once).
    public var hasHomeAssistantButton: Bool {
        switch self {
        case .pause, .resume, .toggle, .reset, .expand: true
        case .start, .end, .update: false
        }
    }

    /// The verbs a button may do, in the config's order.
    public static var buttonActions: [Verb] {
        allCases.compactMap { v in v.buttonOrder.map { (v, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
    }
}

extension Intent {
    /// The intent a verb asks for: `session` is what a start begins and what a toggle begins from
    /// idle; `dismissal` is how an end leaves the pill. Verbs that take neither ignore them.
    public init(_ verb: Verb, session: ActivityAttributes, dismissal: DismissalPolicy, update: ContentUpdate = ContentUpdate()) {
        switch verb {
        case .start: self = .start(session)
        case .pause: self = .pause
        case .resume: self = .resume
        case .toggle: self = .toggle(default: session)
        case .reset: self = .reset
        case .end: self = .end(dismissal)
        case .expand: self = .expand
        case .update: self = .update(update)
        }
    }

    /// The person's verb this intent is; nil for the host's own marks of its clock.
    public var verb: Verb? {
        switch self {
        case .start: .start
        case .pause: .pause
        case .resume: .resume
        case .toggle: .toggle
        case .reset: .reset
        case .end: .end
        case .expand: .expand
        case .update: .update
        case .markStale, .markFresh: nil
        }
    }
}
