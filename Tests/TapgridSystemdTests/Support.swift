@preconcurrency import Glibc
import Testing

import TapgridSystem
import TapgridTestSupport

/// Every test here changes this process's environment (`NOTIFY_SOCKET`, `LISTEN_*`,
/// `WATCHDOG_*`, `JOURNAL_STREAM`) or descriptor 3, which libsystemd reads process-wide, so they
/// run one at a time and restore what they changed.
@Suite(.serialized) struct SystemdTests {}

/// Sets (or with `nil` unsets) environment variables for `body`, then restores the old values.
func withEnvironment<T>(_ variables: [String: String?], _ body: () throws -> T) throws -> T {
    let old = variables.keys.map { ($0, CurrentProcess.environment($0)) }
    for (name, value) in variables {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    defer {
        for (name, value) in old {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    return try body()
}

/// A socket from `makeUnixSocket` (`TapgridTestSupport`), owned: closed when the test lets go of it.
func unixSocket(_ type: __socket_type, boundTo path: String? = nil, listening: Bool = false) throws -> OwnedFD {
    OwnedFD(taking: try makeUnixSocket(type, boundTo: path, listening: listening))
}
