import CMosquitto

/// `mosquitto_lib_init` once per process and `mosquitto_lib_cleanup` at exit.
public enum MQTTLibrary {
    /// Calls `mosquitto_lib_init`; call once before the first client.
    public static func initialize() throws(MQTTError) {
        try check(mosquitto_lib_init(), "mosquitto_lib_init")
    }

    /// Calls `mosquitto_lib_cleanup`, after the last client is destroyed.
    public static func cleanup() {
        mosquitto_lib_cleanup()
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
