@preconcurrency import Glibc

/// An error number from a failed system call.
///
/// Kept as a small value (swift-system's `Errno`) so the syscall layer can use typed throws: the
/// error set of a libc call really is closed. `description` is the C library's `strerror` text
/// plus the number, e.g. `No such file or directory (errno 2)`.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The raw `errno` value, e.g. `ENOENT`.
    public let rawValue: CInt

    /// Wraps a raw error number.
    public init(_ rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(errno) }

    /// `EMFILE`: this process has no descriptor left.
    public static let noFileDescriptors = Errno(EMFILE)
    /// `EMSGSIZE`: a message longer than allowed.
    public static let messageTooLong = Errno(EMSGSIZE)
    /// `ENFILE`: the system has no descriptor left.
    public static let systemFileTableFull = Errno(ENFILE)

    /// `strerror` text plus the number. The corresponding C function is `strerror`.
    public var description: String { String(cString: strerror(rawValue)) + " (errno \(rawValue))" }
}

/// A failed system operation, with what was being done and on which path.
///
/// `description` reads like `cannot connect to /run/x.sock: No such file or directory (errno 2)`,
/// so the CLI can print `Error: \(error)` as is (NIO's "reason" idea).
public struct SystemError: Error, Sendable, CustomStringConvertible {
    /// The underlying error number (for errors found by our own checks, the closest one, e.g.
    /// `ENAMETOOLONG` for a socket path that does not fit, `EFBIG` for a file over a size limit).
    public let errno: Errno
    /// What was attempted, phrased to follow "cannot": `"connect to"`, `"read"`, `"spawn"`.
    public let operation: String
    /// The path or name the operation was about, if any.
    public let path: String?
    /// A replacement for the `strerror` text when our own check failed (e.g. names a limit).
    public let detail: String?

    /// Creates an error; `detail` replaces the `strerror` text in `description` when given.
    public init(_ errno: Errno, operation: String, path: String? = nil, detail: String? = nil) {
        self.errno = errno
        self.operation = operation
        self.path = path
        self.detail = detail
    }

    /// `cannot <operation> <path>: <detail or strerror (errno N)>`.
    public var description: String {
        var text = "cannot " + operation
        if let path { text += " " + path }
        return text + ": " + (detail ?? errno.description)
    }
}

extension SystemError {
    /// Whether the file (or a folder on its path) does not exist (`ENOENT`).
    public var isMissingFile: Bool { errno.rawValue == ENOENT }
}

extension Errno {
    /// Wraps this error number with the operation and path it came from.
    func with(_ operation: String, _ path: String? = nil) -> SystemError {
        SystemError(self, operation: operation, path: path)
    }
}
