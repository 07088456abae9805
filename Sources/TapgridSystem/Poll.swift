@preconcurrency import Glibc

extension FD {
    /// Waits until `fd` can be read without blocking (data, end of stream or an error to
    /// collect), for a client that must also wake at a time of its own, such as
    /// `tapgrid replay --dispatch` between one reply and the next tap due.
    /// The corresponding C function is `poll`.
    /// - Parameter timeoutMilliseconds: how long to wait at most; 0 only looks, -1 waits forever.
    /// - Returns: whether `fd` is readable (false: the time ran out).
    /// - Throws: `Errno` from `poll` (`EINTR` is retried with the same timeout).
    public static func waitReadable(_ fd: CInt, timeoutMilliseconds: CInt) throws(Errno) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return try retryingEINTR { poll(&entry, 1, timeoutMilliseconds) } > 0
    }
}
