import IsletClock
import IsletParts
import IsletSystem
import IsletMQTT
import IsletProtocol
import IsletCore
import IsletConfig

/// The MQTT bridge: one more part of the loop (docs/MQTT.md). Its link's socket is one
/// descriptor in the table. Commands become requests through the same parser and `perform` as
/// the socket's; every change of the activities is pushed, retained; Home Assistant's
/// announcements follow the timers.
package final class MQTTBridge: DaemonPart, MQTTLinkListener {
    private let env: PartEnvironment
    package let plan: MQTTPlan
    package let link: MQTTLink
    private var discovery: HomeAssistantDiscovery
    /// What the broker holds retained for each timer, as published in this connection.
    private var published: [String: Activity] = [:]
    /// The timers announced in this connection, and whether the device's own entity (the pill's image) is.
    private var announced = Announced()
    /// Answers waiting for their change to be durable, in arrival order.
    private var held: [(pending: PendingAnswer, id: String?, correlation: [UInt8]?)] = []
    private var ledger = RequestLedger()
    /// Commands done at most 20 a second (a burst of 40); the rest are dropped and counted.
    /// What keeps a flood from the broker bounded (docs/MQTT.md "Threat model and bounds").
    private var guards = Guards()
    /// This process's token on the instance topic, and when it first connected (wall ms).
    private var instance = Instance()
    private weak var inbox: (any Inbox)?
    /// What the bridge needs of the configuration: the timers Home Assistant keeps by default.
    private var defaultTimers: [String]
    /// The activities as the last turn left them (announcements follow them).
    private var activities: [Activity] = []
    /// The panel's picture, and what of it goes to Home Assistant's image.
    private var pill = PillImage()
    /// Night mode and the contrast: the latest, and what the broker holds retained (this connection).
    private var brightness = Retained()

    private struct Announced {
        var timers: Set<String> = []
        var device = false
    }

    /// This run's token on the instance topic, and when it first connected (wall clock).
    private struct Instance {
        let token = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        var firstConnectedWallMs: Int64?
    }

    /// A retained payload: the latest, and what the broker holds.
    private struct Retained {
        var latest: [UInt8]?
        var published: [UInt8]?
    }

    private struct Guards {
        /// Commands done at most 20 a second (a burst of 40); the rest are dropped and counted.
        var commandLimit = RateLimit(perSecond: MQTTBridge.commandsPerSecond, burst: MQTTBridge.commandBurst)
        var commandsDropped = 0
        /// Home Assistant's birth messages: one announcement for any number of them within
        /// `announceIntervalMs` (a flapping or flooding `homeassistant/status`).
        var announceDue: MonotonicInstant?
        var lastAnnounce: MonotonicInstant?
    }

    package static let commandsPerSecond: Int64 = 20
    package static let commandBurst: Int64 = 40
    package static let announceIntervalMs: Int64 = 10_000

    package init(_ env: PartEnvironment, config: DaemonConfig, plan: MQTTPlan, link: MQTTLink, device: HomeAssistantDiscovery.Device) {
        self.env = env
        self.plan = plan
        self.link = link
        discovery = HomeAssistantDiscovery(prefix: plan.settings.discoveryPrefix, node: plan.clientID, topics: plan.topics,
                                           device: device, defaultMinutes: config.session.minutes)
        defaultTimers = Self.defaultTimers(config)
    }

    /// Without `[mqtt] timers`: the default session's timer and every timer a button names.
    private static func defaultTimers(_ config: DaemonConfig) -> [String] {
        [config.session.attributes.timerID] + config.buttonConfig.map.bindings.compactMap(\.timerID)
    }

    package func reload(_ config: PartConfig) { if let c = config[DaemonConfig.self] { defaultTimers = Self.defaultTimers(c) } }

    package func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {
        self.inbox = inbox
        link.listen(self)
        link.optionalTopics = [plan.topics.instance: "two displays with one client id will not be named",
                               plan.topics.image: "Home Assistant's image of the pill will not change",
                               plan.topics.brightness: "Home Assistant's contrast and night mode will not show their state"]
        try link.attach(to: loop)
    }

    package func afterEvents(_ turn: TurnView) {
        activities = turn.activities
        link.afterEvents()
        if let due = guards.announceDue, turn.mono >= due {
            guards.announceDue = nil
            guards.lastAnnounce = turn.mono
            guard link.isUp else { return }
            env.log.info("mqtt: Home Assistant is online; announcing again")
            announced = Announced()
            announce(turn.activities)
        }
        if let due = pill.due, turn.mono >= due { publishPicture() }
    }
    // MARK: MQTTLinkListener

    /// Its own topics, and Home Assistant's (the sync group's go to that part).
    package func handles(_ topic: String) -> Bool {
        topic.hasPrefix(plan.topics.prefix + "/") || topic == discovery.statusTopic || discovery.isConfigTopic(topic)
    }

    package func linkConnected() {
        // The config topics are read back to clear what an earlier run announced and this one does not.
        // Commands keep their retain flag as published, so a retained command is refused even
        // when it arrives live (it would act again at every reconnect).
        link.subscribe(plan.topics.command, retainAsPublished: true)
        for filter in [plan.topics.activityFilter, discovery.statusTopic, discovery.configFilter] {
            link.subscribe(filter)
        }
        link.send(plan.topics.availability, Array("online".utf8), retain: true)
        // Another process with our client id (a cloned SD card) kicks us off without a word
        // from mosquitto; its token on the instance topic, newer than our first connection, names it.
        let wall = env.loopClock.wallMilliseconds()
        if instance.firstConnectedWallMs == nil { instance.firstConnectedWallMs = wall }
        link.subscribe(plan.topics.instance)
        link.send(plan.topics.instance, Array("\(instance.token) \(wall)".utf8), retain: true)
        publishChanges(activities, now: env.clock.now())
        publishBrightness()
        pill.reconnected()
        // Without discovery there is no image entity: a picture left from when there was one goes.
        if plan.settings.discovery { publishPicture() } else { link.send(plan.topics.image, [], retain: true) }
    }

    package func linkLost() {
        // A new connection publishes everything again.
        published = [:]
        announced = Announced()
        brightness.published = nil
    }

    package func linkReceived(topic: String, payload: [UInt8], retained: Bool, correlation: [UInt8]?) {
        if topic == plan.topics.instance {
            heardInstance(payload)
            return
        }
        if topic == plan.topics.command {
            // Every message on the topic counts against the rate, the refused ones too (a
            // retained or oversized one is answered, so a flood of them would be ours too).
            guard admitted() else { return }
            // A retained command would act again at every reconnect: refused, not done.
            if retained {
                respond(.failure(ProtocolError("retained_command", "a command must not be retained; publish it without -r")), id: nil, correlation: correlation)
                return
            }
            command(payload, correlation: correlation)
        } else if topic == discovery.statusTopic {
            if payload == Array("online".utf8), plan.settings.discovery, guards.announceDue == nil {
                // Coalesced: the first birth is answered at once, later ones within the
                // interval share one announcement at its end.
                let mono = env.mono
                guards.announceDue = max(mono, guards.lastAnnounce.map { $0.adding(milliseconds: Self.announceIntervalMs) } ?? mono)
            }
        } else if retained, !payload.isEmpty, let timer = plan.topics.timer(ofActivityTopic: topic) {
            // Left from an earlier run (an activity dismissed while the daemon was away).
            if published[timer] == nil, !activities.contains(where: { $0.timerID == timer }) {
                link.send(topic, [], retain: true)
            }
        } else if retained, !payload.isEmpty, discovery.isConfigTopic(topic) {
            if !wantedConfigTopics(activities).contains(topic) { link.send(topic, [], retain: true) }
        }
    }

    /// `<token> <wall ms>` on the instance topic: another process's, written since we first
    /// connected, means two clients share our client id.
    private func heardInstance(_ payload: [UInt8]) {
        guard payload.count <= 64 else { return }
        let parts = String(decoding: payload, as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let stamp = Int64(parts[1]), parts[0] != instance.token[...],
              let first = instance.firstConnectedWallMs, stamp > first else { return }
        link.name("another client connected with the same client id \(plan.clientID) (it wrote the instance topic after this one connected; two displays with one id: a cloned SD card shares /etc/machine-id; set [mqtt] client_id, or give the clone a new machine id: docs/MQTT.md)")
    }

    // MARK: commands

    /// Whether a message on the command topic is within the rate (20 a second, a burst of 40);
    /// one beyond it is dropped, counted, and not answered: an answer per dropped command would
    /// make the flood ours too.
    private func admitted() -> Bool {
        if guards.commandLimit.take(at: env.mono) { return true }
        guards.commandsDropped += 1
        env.log.limited(.warning, topic: "mqtt-commands", nowMs: env.mono.milliseconds,
                        "mqtt: commands on \(plan.topics.command) come faster than \(Self.commandsPerSecond) a second (burst \(Self.commandBurst)); the excess is dropped (\(guards.commandsDropped) so far)")
        return false
    }

    private func command(_ payload: [UInt8], correlation: [UInt8]?) {
        guard payload.count <= ControlRequest.maximumLineBytes else {
            respond(.failure(ProtocolError("payload_too_large", "a command is limited to \(ControlRequest.maximumLineBytes) bytes (got \(payload.count))")),
                    id: nil, correlation: correlation)
            return
        }
        // Parsed once: the id answers also a command that does not parse.
        let read = ControlRequest.read(payload)
        let id = read.requestID
        guard plan.settings.commands else {
            respond(.failure(ProtocolError("forbidden", "this display takes no commands over MQTT ([mqtt] commands = off)")), id: id, correlation: correlation)
            return
        }
        if let id {
            if let previous = ledger.answer(for: id, nowMs: env.mono.milliseconds) {
                link.send(plan.topics.response, previous, retain: false, correlation: correlation)
                return
            }
            // The first one waits for its write; its answer will come. This is no second request.
            if held.contains(where: { $0.id == id }) { return }
        }
        let request: ControlRequest
        switch read.request {
        case .success(let r): request = r
        case .failure(let error):
            respond(.failure(error), id: id, correlation: correlation)
            return
        }
        guard let reply = inbox?.request(request) else { return }
        switch reply {
        case .now(let r): respond(r, id: id, correlation: correlation)
        case .later(let pending): held.append((pending, id, correlation))
        }
    }

    private func respond(_ response: ControlResponse, id: String?, correlation: [UInt8]?) {
        var r = response
        r.requestID = id
        let bytes = Array(JSONLines.encode(r).dropLast())
        if let id { ledger.record(id, answer: bytes, nowMs: env.mono.milliseconds) }
        link.send(plan.topics.response, bytes, retain: false, correlation: correlation)
    }

    /// Sends the held answers whose write is done (the socket's rule: an answer to a change
    /// goes out once the change is durable).
    package func releaseAnswers(_ answers: Answers) {
        while let first = held.first, answers.ready(first.pending) {
            held.removeFirst()
            respond(answers.make(first.pending), id: first.id, correlation: first.correlation)
        }
    }

    // MARK: pushing state

    /// After the frame: the turn's change, retained.
    package func publish(_ outcome: TurnOutcome) {
        activities = outcome.view.activities
        if let p = outcome.picture { pill.picture = p }
        if outcome.change != nil { publishChanges(outcome.view.activities, now: outcome.view.now) }
        if let night = outcome.values[NightStatus.self] { brightness.latest = night.brightnessPayload }
        let page = outcome.values[ConfigurationPage.self]?.url
        if page != discovery.device.configurationURL {
            // The page's address reached the bridge (or changed): Home Assistant's device is announced anew.
            discovery.device.configurationURL = page
            announced.device = false
        }
        publishBrightness()
        publishPicture()
    }

    /// Night mode and the contrast, retained, when they changed.
    private func publishBrightness() {
        guard link.isUp, let latest = brightness.latest, latest != brightness.published else { return }
        link.send(plan.topics.brightness, latest, retain: true)
        brightness.published = latest
    }

    /// The panel's picture as PNG, retained on the image topic, when it changed (at most once a
    /// second: `PillImage`); only with discovery, whose image entity shows it.
    private func publishPicture() {
        guard plan.settings.discovery, link.isUp else { return }
        let topic = plan.topics.image
        switch pill.step(at: env.mono, fits: { link.fits(topic, payloadBytes: $0) }) {
        case .none: break
        case .send(let png): link.send(topic, png, retain: true)
        case .tooLarge(let bytes):
            env.log.limited(.warning, topic: "mqtt-image", intervalMs: 3_600_000, nowMs: env.mono.milliseconds,
                            "mqtt: the pill's picture (\(bytes) bytes as PNG) is larger than the broker's maximum packet size; Home Assistant's image of it is not updated (raise max_packet_size on the broker)")
        }
    }

    /// Publishes each activity that changed since it was last published (retained), clears
    /// the retained message of each one that is gone, and keeps the announcements in step.
    package func publishChanges(_ activities: [Activity], now: Instant) {
        guard link.isUp else { return }
        for a in activities where published[a.timerID] != a {
            published[a.timerID] = a
            link.send(plan.topics.activity(a.timerID), Array(JSONLines.encode(ActivityReport(activity: a, now: now)).dropLast()), retain: true)
        }
        for timer in published.keys where !activities.contains(where: { $0.timerID == timer }) {
            published.removeValue(forKey: timer)
            link.send(plan.topics.activity(timer), [], retain: true)
        }
        announce(activities)
    }

    /// The timers whose entities Home Assistant keeps: the configured ones, and any with an activity.
    private func wantedTimers(_ activities: [Activity]) -> Set<String> {
        guard plan.settings.discovery else { return [] }
        return Set(plan.settings.timers ?? defaultTimers).union(activities.map(\.timerID))
    }

    private func wantedConfigTopics(_ activities: [Activity]) -> Set<String> {
        Set(wantedTimers(activities).flatMap { discovery.configTopics(timer: $0) })
            .union(plan.settings.discovery ? discovery.deviceConfigTopics : [])
    }

    private func announce(_ activities: [Activity]) {
        if plan.settings.discovery, !announced.device {
            for a in discovery.deviceAnnouncements { link.send(a.topic, a.payload, retain: true) }
            announced.device = true
        }
        let wanted = wantedTimers(activities)
        for timer in wanted.subtracting(announced.timers).sorted() {
            for a in discovery.announcements(timer: timer) { link.send(a.topic, a.payload, retain: true) }
        }
        for timer in announced.timers.subtracting(wanted).sorted() {
            for topic in discovery.configTopics(timer: timer) { link.send(topic, [], retain: true) }
        }
        announced.timers = wanted
    }

    // MARK: status and stop

    package func report(into status: inout DaemonStatus, _ turn: TurnView) {
        let r = link.report
        let (state, reason): (String, String?) = switch r.state {
        case .connecting: ("connecting", nil)
        case .connected: ("connected", nil)
        case .refused(let why): ("refused", why)
        }
        status.set("mqtt", MQTTStatus(state: state, since: r.since, broker: plan.url.description, clientID: plan.clientID,
                          topicPrefix: plan.topics.prefix, reason: reason, lastError: r.lastError, attempts: r.attempts,
                          commandsDropped: guards.commandsDropped, messagesDropped: r.messagesDropped))
    }

    /// The last state goes out, then a clean stop says `offline` itself.
    package func shutdown(_ turn: TurnView) {
        publishChanges(turn.activities, now: turn.now)
        link.shutdown(last: (plan.topics.availability, Array("offline".utf8)))
    }

    package var nextDeadline: MonotonicInstant? { [link.nextDeadline, guards.announceDue, pill.due].compactMap { $0 }.min() }
    /// Messages wait for a later turn: the loop takes them without sleeping.
    package var hasBacklog: Bool { link.hasBacklog }
}
