import CSystemd
import TapgridSystem

/// One assignment of the service manager's notification protocol (`sd_notify(3)`).
public enum NotifyField: Hashable, Sendable {
    /// `READY=1`: start-up (or a reload) is finished; for `Type=notify` the unit becomes active.
    case ready
    /// `RELOADING=1` plus `MONOTONIC_USEC=`: a reload began (systemd 253 needs the timestamp for
    /// `Type=notify-reload`; 252 ignores it). Follow with `.ready` whether the reload worked or not.
    case reloading(monotonicMicroseconds: UInt64)
    /// `STOPPING=1`: shutdown began.
    case stopping
    /// `STATUS=`: one line shown by `systemctl status` (`StatusText`). Line breaks become spaces,
    /// so text from an error message cannot start another assignment.
    case status(String)
    /// `WATCHDOG=1`: the keep-alive ping; send every half `ServiceNotifier.watchdogMicroseconds()`.
    case watchdog
    /// `EXTEND_TIMEOUT_USEC=`: ask for this much more time to start, reload or stop from now.
    case extendTimeout(microseconds: UInt64)

    /// `.reloading` stamped with the current `CLOCK_MONOTONIC` time, as systemd expects it.
    public static var reloadingNow: NotifyField {
        .reloading(monotonicMicroseconds: Clock.monotonicNanos() / 1_000)
    }

    /// The `KEY=value` text of this assignment (`.reloading` is two lines).
    public var text: String {
        switch self {
        case .ready: return "READY=1"
        case .reloading(let usec): return "RELOADING=1\nMONOTONIC_USEC=\(usec)"
        case .stopping: return "STOPPING=1"
        case .status(let text):
            var line = "STATUS="
            line.unicodeScalars.append(contentsOf: text.unicodeScalars.lazy.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
            return line
        case .watchdog: return "WATCHDOG=1"
        case .extendTimeout(let usec): return "EXTEND_TIMEOUT_USEC=\(usec)"
        }
    }
}

/// Talks to the service manager that started us: readiness, reload, stop, status, watchdog.
///
/// Every call is a no-op returning `false` when `NOTIFY_SOCKET` is unset (started by hand, in
/// tests). It passes `unset_environment = 0`, so every later call still finds `NOTIFY_SOCKET`;
/// children never see it because the daemon gives them an allow-listed environment.
/// Each call opens, sends on and closes one datagram socket: cheap enough for the event loop.
public enum ServiceNotifier {
    /// Sends the fields in one datagram, in order, one per line.
    /// The corresponding C function is `sd_notify(0, ...)`.
    /// - Returns: `true` if sent, `false` if `NOTIFY_SOCKET` is unset.
    /// - Throws: `SystemdError` naming `sd_notify` (e.g. the socket is gone: `ECONNREFUSED`).
    @discardableResult
    public static func notify(_ fields: [NotifyField]) throws(SystemdError) -> Bool {
        var text = ""
        for field in fields {
            if !text.isEmpty { text += "\n" }
            text += field.text
        }
        return try notify(state: text)
    }

    /// Sends `state` as it is (several `KEY=value` lines), for fields `NotifyField` lacks, such as
    /// `ERRNO=` or `X_...`. The corresponding C function is `sd_notify(0, state)`.
    /// - Returns: `true` if sent, `false` if `NOTIFY_SOCKET` is unset.
    /// - Throws: `SystemdError` naming `sd_notify`.
    @discardableResult
    public static func notify(state: String) throws(SystemdError) -> Bool {
        try SystemdError.check(sd_notify(0, state), "sd_notify") > 0
    }

    /// The watchdog timeout systemd set for us (`WatchdogSec=`), in microseconds, or `nil` when
    /// there is none or it is meant for another process (`WATCHDOG_PID`). Ping with
    /// `.watchdog` every half of it, from the event loop itself so a stalled loop is noticed.
    /// The corresponding C function is `sd_watchdog_enabled(0, &usec)`.
    /// - Throws: `SystemdError` naming `sd_watchdog_enabled` when `WATCHDOG_USEC` or
    ///   `WATCHDOG_PID` cannot be parsed.
    public static func watchdogMicroseconds() throws(SystemdError) -> UInt64? {
        var usec: UInt64 = 0
        let enabled = try SystemdError.check(sd_watchdog_enabled(0, &usec), "sd_watchdog_enabled")
        return enabled > 0 ? usec : nil
    }
}
