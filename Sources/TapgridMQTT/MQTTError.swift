import CMosquitto

/// A libmosquitto call that failed: the C function and its `MOSQ_ERR_*` code.
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `mosquitto_connect_async`.
    public var function: String
    /// The `MOSQ_ERR_*` value it returned.
    public var code: Int32

    public init(_ function: String, code: Int32) {
        self.function = function
        self.code = code
    }

    /// `function` called without a connection (`MOSQ_ERR_NO_CONN`).
    public static func notConnected(_ function: String) -> MQTTError { MQTTError(function, code: Int32(MOSQ_ERR_NO_CONN.rawValue)) }

    /// `MOSQ_ERR_NO_CONN`: not connected (a publish is still queued by the library).
    public var isNotConnected: Bool { code == Int32(MOSQ_ERR_NO_CONN.rawValue) }

    /// The connection is gone (`MOSQ_ERR_CONN_LOST`, `MOSQ_ERR_NO_CONN`, `MOSQ_ERR_KEEPALIVE`,
    /// `MOSQ_ERR_ERRNO` from the socket): reconnect.
    public var isConnectionLost: Bool {
        [MOSQ_ERR_CONN_LOST, MOSQ_ERR_NO_CONN, MOSQ_ERR_KEEPALIVE, MOSQ_ERR_ERRNO].map { Int32($0.rawValue) }.contains(code)
    }

    /// The library's words for the code (`mosquitto_strerror`).
    public var description: String { "\(function): \(String(cString: mosquitto_strerror(code)))" }
}

/// Throws unless `rc` is `MOSQ_ERR_SUCCESS`.
@inline(__always)
func check(_ rc: Int32, _ function: String) throws(MQTTError) {
    if rc != Int32(MOSQ_ERR_SUCCESS.rawValue) { throw MQTTError(function, code: rc) }
}
