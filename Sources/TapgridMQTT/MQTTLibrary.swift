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
}
