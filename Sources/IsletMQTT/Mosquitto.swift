import CMosquitto
import IsletErrno

/// What a session needs to reach its broker. Secrets stay here; nothing prints them.
public struct MQTTOptions: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    public var password: String?
    public var clientID: String
    public var keepaliveSeconds: Int
    /// The last will: published by the broker when the connection dies without a goodbye.
    public var willTopic: String?
    public var willPayload: [UInt8]

    public init(host: String, port: Int, tls: Bool, clientID: String, keepaliveSeconds: Int) {
        self.host = host
        self.port = port
        self.tls = tls
        self.clientID = clientID
        self.keepaliveSeconds = keepaliveSeconds
        willPayload = []
    }
}

/// A libmosquitto failure: its code and a text for people (errno's or the resolver's text,
/// and the library's last error line, which carries OpenSSL's reason for a TLS failure).
public struct MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public init(code: Int32, message: String) { self.code = code; self.message = message }
    public var description: String { message }
}

/// What the broker said, collected while libmosquitto runs a read, write or misc step and
/// handed to the owner afterwards (the callbacks never call back into the library).
public enum MQTTEvent: Sendable, Hashable {
    /// CONNACK: reason code 0 is success; otherwise the broker's reason.
    case connected(reasonCode: Int32, reason: String)
    case disconnected(reasonCode: Int32)
    case message(topic: String, payload: [UInt8], retained: Bool, correlation: [UInt8]?)
    /// A QoS 1 publish was acknowledged (a reason code of 0x80 or more: the broker refused it).
    case published(mid: Int32, reasonCode: Int32)
    /// SUBACK: one granted QoS per topic, 0x80 or more for a refusal.
    case subscribed(mid: Int32, granted: [Int32])
}

/// The callbacks' mailbox. One `mosquitto_loop_read` may read thousands of packets (it reads
/// as many as libmosquitto has messages queued), so messages past `maximumMessages` in one
/// step are dropped here and counted, never held: a flood costs bounded memory.
private final class EventSink {
    var events: [MQTTEvent] = []
    var messages = 0
    var dropped = 0
    var lastLog: String?
    /// The broker's Maximum Packet Size (CONNACK), 0 for none.
    var brokerMaximumPacket: UInt32 = 0
    static let maximumMessages = 1024

    func add(_ e: MQTTEvent) {
        if case .message = e {
            guard messages < Self.maximumMessages else { dropped += 1; return }
            messages += 1
        }
        events.append(e)
    }
}

/// One libmosquitto client, driven from outside: its socket goes in the owner's descriptor
/// table and the owner calls `read`, `write` and `misc` when they are due. Not thread-safe:
/// one thread at a time (the connector's, then the loop's) uses it.
public final class MQTTSession: @unchecked Sendable {
    private let handle: OpaquePointer
    private let sink = EventSink()
    public let options: MQTTOptions

    /// libmosquitto loaded (only now: a display without [mqtt] never maps it, nor OpenSSL) and
    /// its global set-up, once per process; why not, when it failed.
    private static let initialized: String? = {
        var why = [CChar](repeating: 0, count: 300)
        guard islet_mosquitto_load(&why, why.count) == 0 else {
            return "cannot load libmosquitto: " + String(decoding: why.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return mosquitto_lib_init() == islet_mosq_ok() ? nil : "libmosquitto could not be initialised"
    }()

    public init(_ options: MQTTOptions) throws(MQTTError) {
        self.options = options
        if let why = Self.initialized { throw MQTTError(code: -1, message: why) }
        guard let h = mosquitto_new(options.clientID, true, nil) else {
            throw MQTTError(code: -1, message: "mosquitto_new failed: \(Errno.current)")
        }
        handle = h
        mosquitto_user_data_set(h, Unmanaged.passUnretained(sink).toOpaque())
        do { try configure() } catch { mosquitto_destroy(h); throw error }
        installCallbacks()
    }

    deinit { mosquitto_destroy(handle) }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == islet_mosq_ok() else { throw error(rc, what) }
    }

    private func configure() throws(MQTTError) {
        // MQTT 5: correlation data on answers, reason codes on refusals.
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, islet_mqtt_v5()), "set MQTT 5")
        // A turn writes several small packets (a sync record, the activity, the answer). With
        // Nagle, one written while the previous is unacknowledged waits for the broker's
        // delayed ACK (40 ms on Linux): a press reached the other displays up to 47 ms late.
        try check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "disable Nagle (TCP_NODELAY)")
        if let topic = options.willTopic {
            try check(options.willPayload.withUnsafeBytes { b in
                mosquitto_will_set(handle, topic, Int32(b.count), b.baseAddress, 1, true)
            }, "set the last will")
        }
        if let user = options.username {
            try check(mosquitto_username_pw_set(handle, user, options.password), "set the user name")
        }
        if options.tls {
            if options.caFile == nil {
                try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "use the system's CA certificates")
            }
            // With no CA file, the OS certificates above are the trust store; capath stays nil.
            if options.caFile != nil || options.certFile != nil {
                try check(mosquitto_tls_set(handle, options.caFile, nil, options.certFile, options.keyFile, nil), "set up TLS")
            }
        }
    }

    private func installCallbacks() {
        mosquitto_log_callback_set(handle) { _, obj, level, text in
            guard let obj, let text, level & islet_log_warnings_and_errors() != 0 else { return }
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().lastLog = String(cString: text)
        }
        mosquitto_connect_v5_callback_set(handle) { _, obj, rc, _, props in
            guard let obj else { return }
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().brokerMaximumPacket = UInt32(islet_connack_maximum_packet_size(props))
            let reason = rc == 0 ? "" : String(cString: mosquitto_reason_string(rc))
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().add(.connected(reasonCode: rc, reason: reason))
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, obj, rc, _ in
            guard let obj else { return }
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().add(.disconnected(reasonCode: rc))
        }
        mosquitto_publish_v5_callback_set(handle) { _, obj, mid, rc, _ in
            guard let obj else { return }
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().add(.published(mid: mid, reasonCode: rc))
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, obj, mid, count, granted, _ in
            guard let obj else { return }
            let list = granted.map { g in (0..<Int(max(0, count))).map { g[$0] } } ?? []
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().add(.subscribed(mid: mid, granted: list))
        }
        mosquitto_message_v5_callback_set(handle) { _, obj, message, props in
            guard let obj, let m = message?.pointee, let topicPointer = m.topic else { return }
            let payload: [UInt8] = m.payload.map { p in
                Array(UnsafeRawBufferPointer(start: p, count: Int(max(0, m.payloadlen))))
            } ?? []
            var correlation: [UInt8]?
            var value: UnsafeMutableRawPointer?
            var length: UInt16 = 0
            if mosquitto_property_read_binary(props, islet_prop_correlation_data(), &value, &length, false) != nil, let value {
                correlation = Array(UnsafeRawBufferPointer(start: value, count: Int(length)))
                islet_mosq_free_property_value(value)
            }
            let event = MQTTEvent.message(topic: String(cString: topicPointer), payload: payload, retained: m.retain, correlation: correlation)
            Unmanaged<EventSink>.fromOpaque(obj).takeUnretainedValue().add(event)
        }
    }

    /// The error for a return code, read at once (errno, the resolver's code, the last log line).
    private func error(_ rc: Int32, _ what: String) -> MQTTError {
        let saved = islet_mosq_errno()
        var text: String
        if rc == islet_mosq_err_errno() {
            text = Errno(saved).description
            // The unit's sandbox without the MQTT drop-in: say how to open it.
            if saved == EAFNOSUPPORT || saved == EPERM {
                text += " (the service may not use the network: after adding [mqtt], run `systemctl daemon-reload` and restart isletd; docs/MQTT.md)"
            }
        } else if rc == islet_mosq_err_eai() {
            text = "cannot resolve the broker's name: " + String(cString: gai_strerror(saved))
        } else {
            text = String(cString: mosquitto_strerror(rc))
        }
        if let log = sink.lastLog, rc != islet_mosq_err_errno() {
            text += " (\(log))"
        }
        sink.lastLog = nil
        return MQTTError(code: rc, message: "\(what): \(text)")
    }

    /// Resolves, connects and sends CONNECT: blocking, so it runs on the connector's thread,
    /// never on the loop's. The socket is non-blocking afterwards (libmosquitto sets it so).
    public func connect() -> MQTTError? {
        // MQTT 5's Maximum Packet Size: the broker sends nothing larger (it drops such a
        // message for us), so one message costs at most this much memory here.
        var props: OpaquePointer?
        defer { mosquitto_property_free_all(&props) }
        _ = mosquitto_property_add_int32(&props, islet_prop_maximum_packet_size(), Self.maximumIncomingPacket)
        let rc = mosquitto_connect_bind_v5(handle, options.host, Int32(options.port), Int32(options.keepaliveSeconds), nil, props)
        return rc == islet_mosq_ok() ? nil : error(rc, "connect to \(options.host):\(options.port)")
    }

    /// The largest packet the broker may send us (a command or a record is at most 16 KiB).
    public static let maximumIncomingPacket: UInt32 = 64 * 1024

    /// Whether a failed publish was larger than the broker's Maximum Packet Size (CONNACK).
    public static func isOversize(_ e: MQTTError) -> Bool { e.code == islet_mosq_err_oversize_packet() }

    /// The connection's descriptor, -1 when there is none.
    public var socket: Int32 { mosquitto_socket(handle) }
    public var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// Each step returns nil, or the error that ended the connection.
    public func read() -> MQTTError? { step(mosquitto_loop_read(handle, 64), "read from the broker") }
    public func write() -> MQTTError? { step(mosquitto_loop_write(handle, 64), "write to the broker") }
    /// Keep-alive: sends PINGREQ when due, notices a broker that stopped answering.
    public func misc() -> MQTTError? { step(mosquitto_loop_misc(handle), "keep the connection alive") }

    private func step(_ rc: Int32, _ what: String) -> MQTTError? {
        rc == islet_mosq_ok() || rc == islet_mosq_err_conn_pending() ? nil : error(rc, what)
    }

    /// Queues a QoS 1 publish; its message id, or the error. `expirySeconds` (MQTT 5): the
    /// broker drops the message (a retained one too) after that long.
    public func publish(_ topic: String, _ payload: [UInt8], retain: Bool, correlation: [UInt8]? = nil,
                        expirySeconds: UInt32? = nil) -> Result<Int32, MQTTError> {
        // Never hand libmosquitto a packet past the broker's maximum: 2.0.11 then drops it later,
        // from its queue, through a log call that asserts (isletd died in CI).
        let size = Self.packetSize(topic, payloadBytes: payload.count, correlation: correlation, expirySeconds: expirySeconds)
        if !fits(size) {
            return .failure(MQTTError(code: islet_mosq_err_oversize_packet(),
                                      message: "publish to \(topic): about \(size) bytes, over the broker's maximum packet size (\(sink.brokerMaximumPacket))"))
        }
        var mid: Int32 = 0
        var props: OpaquePointer?
        defer { mosquitto_property_free_all(&props) }
        if let expirySeconds {
            _ = mosquitto_property_add_int32(&props, islet_prop_message_expiry_interval(), expirySeconds)
        }
        if let correlation, !correlation.isEmpty, correlation.count <= Int(UInt16.max) {
            _ = correlation.withUnsafeBytes { b in
                mosquitto_property_add_binary(&props, islet_prop_correlation_data(), b.baseAddress, UInt16(b.count))
            }
        }
        let rc = payload.withUnsafeBytes { b in
            mosquitto_publish_v5(handle, &mid, topic, Int32(b.count), b.baseAddress, 1, retain, props)
        }
        return rc == islet_mosq_ok() ? .success(mid) : .failure(error(rc, "publish to \(topic)"))
    }

    /// A PUBLISH's size, over-estimated: fixed header 5, topic 2 + n, packet id 2, properties 4 +
    /// expiry 5 + correlation 3 + n, and the payload.
    public static func packetSize(_ topic: String, payloadBytes: Int, correlation: [UInt8]? = nil, expirySeconds: UInt32? = nil) -> Int {
        5 + 2 + topic.utf8.count + 2 + 4 + (expirySeconds == nil ? 0 : 5) + (correlation.map { 3 + $0.count } ?? 0) + payloadBytes
    }

    /// Whether a packet of `size` bytes is within the broker's Maximum Packet Size (CONNACK; none: any).
    public func fits(_ size: Int) -> Bool { sink.brokerMaximumPacket == 0 || size <= Int(sink.brokerMaximumPacket) }

    /// Subscribes to one topic filter at QoS 1; the message id of the SUBSCRIBE.
    /// `retainAsPublished` (MQTT 5): a live message keeps its retain flag, so a retained
    /// publish is recognisable as one even while we are subscribed.
    public func subscribe(_ filter: String, retainAsPublished: Bool = false) -> Result<Int32, MQTTError> {
        var mid: Int32 = 0
        let options = retainAsPublished ? islet_sub_opt_retain_as_published() : 0
        let rc = mosquitto_subscribe_v5(handle, &mid, filter, 1, options, nil)
        return rc == islet_mosq_ok() ? .success(mid) : .failure(error(rc, "subscribe to \(filter)"))
    }

    /// Sends DISCONNECT (the broker then does not publish the last will).
    public func disconnect() { _ = mosquitto_disconnect(handle) }

    public func takeEvents() -> [MQTTEvent] {
        defer { sink.events = []; sink.messages = 0 }
        return sink.events
    }

    /// Messages dropped since the last call because one step read more than the sink holds.
    public func takeDropped() -> Int {
        defer { sink.dropped = 0 }
        return sink.dropped
    }

    /// The broker's reason for a refused CONNECT, in words.
    public static func reason(_ code: Int32) -> String { String(cString: mosquitto_reason_string(code)) }
}
