import CMosquitto

/// What the library reported from inside `loop_read`/`loop_write`/`loop_misc`, as Swift values.
public enum MQTTEvent: Sendable, Equatable {
    /// CONNACK: `code` 0 is accepted, else the broker's reason.
    case connected(code: Int32)
    /// The connection ended: `code` 0 after our own `disconnect`, else unexpected.
    case disconnected(code: Int32)
    /// A message on a subscribed topic.
    case message(topic: String, payload: [UInt8], qos: Int32, retained: Bool)
    /// A publish completed (PUBACK for QoS 1, sent for QoS 0): its message id.
    case published(id: Int32)
    /// SUBACK for a subscribe's message id, with the granted QoS.
    case subscribed(id: Int32, granted: [Int32])
}

/// One libmosquitto client driven by the caller's loop: no thread of the library's
/// (`mosquitto_loop_start` and `mosquitto_loop` are never called). The owner polls ``socket``,
/// calls ``loopRead()`` when readable, ``loopWrite()`` when writable and ``wantWrite`` says so,
/// ``loopMisc()`` about once a second, then takes the callbacks' events with
/// ``takeEvents(into:)`` (``takeEvents()`` leaves the client a buffer without capacity).
/// Not thread-safe: one thread (the loop's) uses it.
public final class MQTTClient {
    private let handle: OpaquePointer
    /// Appended by libmosquitto's callbacks, which run inside the owner's `loop*` calls on its
    /// one thread: no run-time exclusivity check (it cost several hundred instructions a message).
    @exclusivity(unchecked) private var events: [MQTTEvent] = []

    /// `mosquitto_new` with a clean session; `id` nil lets the library pick one.
    /// - Throws: `mosquitto_lib_init` (`MOSQ_ERR_NOT_SUPPORTED`) before `MQTTLibrary.initialize()` ran.
    public init(id: String?, cleanSession: Bool = true) throws(MQTTError) {
        guard MQTTLibrary.isInitialized else { throw MQTTError("mosquitto_lib_init", code: Int32(MOSQ_ERR_NOT_SUPPORTED.rawValue)) }
        guard let made = mosquitto_new(id, cleanSession, nil) else { throw MQTTError("mosquitto_new", code: Int32(MOSQ_ERR_NOMEM.rawValue)) }
        handle = made
        mosquitto_user_data_set(made, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(made) { _, object, rc in
            MQTTClient.withClient(object) { $0.events.append(.connected(code: rc)) }
        }
        mosquitto_disconnect_callback_set(made) { _, object, rc in
            MQTTClient.withClient(object) { $0.events.append(.disconnected(code: rc)) }
        }
        mosquitto_publish_callback_set(made) { _, object, mid in
            MQTTClient.withClient(object) { $0.events.append(.published(id: mid)) }
        }
        mosquitto_subscribe_callback_set(made) { _, object, mid, count, granted in
            let levels = (0..<Int(count)).map { granted![$0] }
            MQTTClient.withClient(object) { $0.events.append(.subscribed(id: mid, granted: levels)) }
        }
        mosquitto_message_callback_set(made) { _, object, message in
            guard let message = message?.pointee else { return }
            let payload = message.payloadlen > 0
                ? Array(UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen))) : []
            MQTTClient.withClient(object) {
                $0.events.append(.message(
                    topic: String(cString: message.topic), payload: payload, qos: message.qos, retained: message.retain))
            }
        }
    }

    deinit {
        for properties in expiryProperties.values {
            var list: OpaquePointer? = properties
            mosquitto_property_free_all(&list)
        }
        mosquitto_destroy(handle)
    }

    /// The message-expiry property list of each expiry used so far (`mosquitto_property_add_int32`
    /// once per value, not once per message: libmosquitto copies it into each packet).
    private var expiryProperties: [UInt32: OpaquePointer] = [:]
    /// Expiries kept at most (a `maxAgeSeconds` of hours has that many values; the rest are made per message).
    static let keptExpiries = 4096

    /// The client a callback's user data points to, borrowed for `body` (it is alive: it made the
    /// call that runs the callback). No retain and release per PUBACK, as `takeUnretainedValue` cost.
    @inline(__always)
    private static func withClient(_ object: UnsafeMutableRawPointer?, _ body: (MQTTClient) -> Void) {
        Unmanaged<MQTTClient>.fromOpaque(object!)._withUnsafeGuaranteedRef(body)
    }

    /// The callbacks' events since the last call, in order.
    public func takeEvents() -> [MQTTEvent] {
        var taken: [MQTTEvent] = []
        takeEvents(into: &taken)
        return taken
    }

    /// The callbacks' events since the last call, in order, into `taken` (what it held is
    /// dropped, and its buffer takes the next events): two buffers handed back and forth, so a
    /// wakeup's PUBACKs cost no allocation (returning the array and emptying it here allocated a
    /// new buffer on every read).
    public func takeEvents(into taken: inout [MQTTEvent]) {
        taken.removeAll(keepingCapacity: true)
        swap(&taken, &events)
    }

    /// MQTT 5 (`mosquitto_int_option` `MOSQ_OPT_PROTOCOL_VERSION`), before connecting.
    public func useMQTT5() throws(MQTTError) {
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "mosquitto_int_option")
    }

    /// `mosquitto_username_pw_set`.
    public func setCredentials(username: String, password: String?) throws(MQTTError) {
        try check(mosquitto_username_pw_set(handle, username, password), "mosquitto_username_pw_set")
    }

    /// `mosquitto_tls_set`: CA file, and a client certificate with its key (both or neither).
    public func setTLS(caFile: String?, certFile: String?, keyFile: String?) throws(MQTTError) {
        try check(mosquitto_tls_set(handle, caFile, nil, certFile, keyFile, nil), "mosquitto_tls_set")
    }

    /// `mosquitto_will_set`: what the broker publishes when it sees us vanish (not on a clean
    /// DISCONNECT). Before connecting.
    public func setWill(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MQTTError) {
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto_will_set(handle, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
        }
        try check(rc, "mosquitto_will_set")
    }

    /// `mosquitto_connect_async`: starts a non-blocking connect to an address that needs no
    /// name resolution (an IP address, or a Unix socket path with port 0); ``socket`` is the
    /// new descriptor afterwards, and CONNACK arrives as ``MQTTEvent/connected(code:)``.
    public func connectAsync(host: String, port: Int32, keepaliveSeconds: Int32) throws(MQTTError) {
        try check(mosquitto_connect_async(handle, host, port, keepaliveSeconds), "mosquitto_connect_async")
    }

    /// `mosquitto_disconnect`: a clean DISCONNECT (the will is discarded).
    public func disconnect() throws(MQTTError) {
        try check(mosquitto_disconnect(handle), "mosquitto_disconnect")
    }

    /// The connection's descriptor (`mosquitto_socket`), or nil when there is none. It changes
    /// with every connect: register the new one, take the old out of epoll first.
    public var socket: Int32? {
        let fd = mosquitto_socket(handle)
        return fd >= 0 ? fd : nil
    }

    /// `mosquitto_want_write`: whether unsent data waits (watch for writable only then).
    public var wantWrite: Bool { mosquitto_want_write(handle) }

    /// `mosquitto_loop_read`, when the socket is readable.
    public func loopRead() throws(MQTTError) {
        try check(mosquitto_loop_read(handle, 1), "mosquitto_loop_read")
    }

    /// `mosquitto_loop_write`, when the socket is writable and ``wantWrite``.
    public func loopWrite() throws(MQTTError) {
        try check(mosquitto_loop_write(handle, 1), "mosquitto_loop_write")
    }

    /// `mosquitto_loop_misc`, about once a second: keepalive PINGs and retries.
    public func loopMisc() throws(MQTTError) {
        try check(mosquitto_loop_misc(handle), "mosquitto_loop_misc")
    }

    /// `mosquitto_publish`; returns the message id (see ``MQTTEvent/published(id:)``).
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MQTTError) -> Int32 {
        try payload.withUnsafeBytes { bytes in
            Result { () throws(MQTTError) in try publish(topic: topic, bytes: bytes, qos: qos, retain: retain) }
        }.get()
    }

    /// `mosquitto_publish` of bytes the caller holds (libmosquitto copies them into its packet).
    @discardableResult
    public func publish(topic: String, bytes: UnsafeRawBufferPointer, qos: Int32, retain: Bool) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        // withCString reads a native string's own bytes; passing the String itself made a C copy.
        let rc = topic.withCString { mosquitto_publish(handle, &mid, $0, Int32(bytes.count), bytes.baseAddress, qos, retain) }
        try check(rc, "mosquitto_publish")
        return mid
    }

    /// `mosquitto_publish_v5` of bytes the caller holds, with a message expiry interval
    /// (`mosquitto_property_add_int32`, `MQTT_PROP_MESSAGE_EXPIRY_INTERVAL`): the broker drops the
    /// message for a subscriber that has not taken it within `expirySeconds` (an action must
    /// never arrive late). Needs MQTT 5.
    @discardableResult
    public func publish(topic: String, bytes: UnsafeRawBufferPointer, qos: Int32, retain: Bool, expirySeconds: UInt32) throws(MQTTError) -> Int32 {
        var properties = expiryProperties[expirySeconds]
        let kept = properties != nil || expiryProperties.count < Self.keptExpiries
        if properties == nil {
            try check(mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expirySeconds),
                      "mosquitto_property_add_int32")
            if kept { expiryProperties[expirySeconds] = properties }
        }
        defer { if !kept { mosquitto_property_free_all(&properties) } }
        var mid: Int32 = 0
        let rc = topic.withCString { mosquitto_publish_v5(handle, &mid, $0, Int32(bytes.count), bytes.baseAddress, qos, retain, properties) }
        try check(rc, "mosquitto_publish_v5")
        return mid
    }

    /// `mosquitto_threaded_set(true)`: a publish only queues its packet (unthreaded, libmosquitto
    /// writes each at once, in the middle of the caller's work); the owner writes them all with
    /// ``loopWrite()`` once per wakeup. No thread is started.
    public func queueWrites() throws(MQTTError) {
        try check(mosquitto_threaded_set(handle, true), "mosquitto_threaded_set")
    }

    /// `mosquitto_int_option` `MOSQ_OPT_TCP_NODELAY`: small messages go out at once (taps are
    /// small and each is worth its latency).
    public func setNoDelay() throws(MQTTError) {
        try check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option")
    }

    /// `mosquitto_subscribe_v5` with `MQTT_SUB_OPT_RETAIN_AS_PUBLISHED`: a message its sender
    /// published retained arrives flagged retained even when it is delivered live, so a
    /// retained command is told apart however it arrives. Needs MQTT 5. Returns the message id
    /// (see ``MQTTEvent/subscribed(id:granted:)``).
    @discardableResult
    public func subscribeRetainAsPublished(_ pattern: String, qos: Int32) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let options = Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue)
        try check(mosquitto_subscribe_v5(handle, &mid, pattern, qos, options, nil), "mosquitto_subscribe_v5")
        return mid
    }
}
