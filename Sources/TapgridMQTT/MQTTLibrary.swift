import CMosquitto
import Synchronization

/// `mosquitto_lib_init` once per process and `mosquitto_lib_cleanup` at exit. libmosquitto
/// requires the first before any client (it sets up its random numbers and, with TLS, OpenSSL):
/// `MQTTClient.init` refuses to make a client until it ran.
public enum MQTTLibrary {
    private static let initialized = Mutex(false)

    /// Calls `mosquitto_lib_init` the first time (later calls do nothing), before the first client.
    public static func initialize() throws(MQTTError) {
        try initialized.withLock { (done: inout Bool) throws(MQTTError) in
            guard !done else { return }
            try check(mosquitto_lib_init(), "mosquitto_lib_init")
            done = true
        }
    }

    /// Whether `initialize()` ran (and `cleanup()` did not since).
    public static var isInitialized: Bool { initialized.withLock { $0 } }

    /// Calls `mosquitto_lib_cleanup`, after the last client is destroyed.
    public static func cleanup() {
        initialized.withLock { done in
            guard done else { return }
            mosquitto_lib_cleanup()
            done = false
        }
    }

    /// `2.0.11`: `mosquitto_lib_version`.
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// An MQTT 5 reason code in words (`mosquitto_reason_string`): a CONNACK's `Not authorized`
    /// (135), `Bad user name or password` (134).
    public static func connackReason(_ code: Int32) -> String {
        String(cString: mosquitto_reason_string(code))
    }

    /// A `MOSQ_ERR_*` code in words (`mosquitto_strerror`), as the disconnect callback gives it.
    public static func reasonText(_ code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }
}
