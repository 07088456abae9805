import TapgridSystem

/// A libsystemd call that failed, or whose answer we refuse: the C function, the error number
/// and, when our own check failed, what was wrong.
///
/// libsystemd reports failure as a negative error number (`-errno`) instead of `-1` + `errno`,
/// so these wrappers cannot use `retryingEINTR`; they convert the result here. `description`
/// reads like `sd_notify: Connection refused (errno 111)`, or with a detail
/// `sd_is_socket_unix: descriptor 3 ("tapgridd.socket") is not a Unix socket`.
public struct SystemdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The libsystemd function that failed or whose answer was refused, e.g. `"sd_notify"`.
    public let function: String
    /// The error number (for our own checks the closest one, e.g. `ENOTSOCK`).
    public let errno: Errno
    /// Replaces the `strerror` text in `description` when our own check failed.
    public let detail: String?

    /// Creates an error for `function`; `detail` replaces the `strerror` text when given.
    public init(_ function: String, _ errno: Errno, detail: String? = nil) {
        self.function = function
        self.errno = errno
        self.detail = detail
    }

    /// `<function>: <detail or strerror (errno N)>`.
    public var description: String { function + ": " + (detail ?? errno.description) }

    /// Maps a libsystemd result: negative is `-errno` and throws, anything else is returned.
    @inline(__always)
    static func check(_ result: CInt, _ function: String) throws(SystemdError) -> CInt {
        if result < 0 { throw SystemdError(function, Errno(-result)) }
        return result
    }
}
