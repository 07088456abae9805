import TapgridMQTT

/// The connection to the broker as the `Fleet` uses it: whether it is up, publishing and
/// subscribing on it, and starting and stopping it. The daemon's is a `FleetLink`
/// (libmosquitto on the loop); the fleet's in-process tests give it a fake that records what
/// is published and acknowledges by hand, so commands and publishing are tested without a broker.
protocol BrokerConnection: AnyObject {
    var isConnected: Bool { get }
    /// Why it is not connected, for `status`.
    var lastError: String? { get }
    /// Bytes wait to be written to the broker.
    var wantsWrite: Bool { get }
    func start()
    /// At shutdown: `lastWords` published, a clean DISCONNECT.
    func stop(lastWords: (topic: String, payload: [UInt8])?)
    /// Writes what the publishing round queued.
    func flush()
    /// Publishes (QoS 1 messages are acknowledged through `FleetLinkDelegate.linkAcknowledged`).
    /// - Returns: the message id.
    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool, expirySeconds: UInt32?) throws(MQTTError) -> Int32
    /// Subscribes with retain-as-published (acknowledged through `FleetLinkDelegate.linkSubscribed`).
    func subscribe(_ pattern: String, qos: Int32) throws(MQTTError) -> Int32
}

extension FleetLink: BrokerConnection {
    var wantsWrite: Bool { client?.wantWrite == true }

    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool, expirySeconds: UInt32?) throws(MQTTError) -> Int32 {
        guard let client else { throw MQTTError.notConnected("mosquitto_publish") }
        if let expirySeconds {
            return try client.publish(topic: topic, bytes: payload, qos: qos, retain: retain, expirySeconds: expirySeconds)
        }
        return try client.publish(topic: topic, bytes: payload, qos: qos, retain: retain)
    }

    func subscribe(_ pattern: String, qos: Int32) throws(MQTTError) -> Int32 {
        guard let client else { throw MQTTError.notConnected("mosquitto_subscribe_v5") }
        return try client.subscribeRetainAsPublished(pattern, qos: qos)
    }
}
