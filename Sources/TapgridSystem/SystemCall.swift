@preconcurrency import Glibc

/// The one funnel for system calls that report failure as `-1` + `errno`: `EINTR` is retried
/// here (and nowhere else), `EAGAIN`/`EWOULDBLOCK` becomes `.wouldBlock`, any other error number
/// is thrown as `Errno`.
///
/// Every wrapper in this module (and `TapgridSystemd`'s, through the wrappers) goes through it,
/// so the rule lives in one place. It sits on the tap path (`read`, `send`, `accept4`), so it is
/// `@inlinable` and always inlined: no closure context is allocated and the check is the same
/// two compares a hand-written loop makes.
///
/// Not for `close` (never retried: the descriptor is gone even on `EINTR`) nor for calls that
/// *return* an error number (`posix_spawn`, `pthread_*`, libsystemd's `-errno`).
public enum SystemCall {
    /// What a call on a possibly non-blocking descriptor came to.
    public enum Outcome<Value: FixedWidthInteger>: Equatable {
        /// The call's result (never `-1`).
        case value(Value)
        /// The descriptor is non-blocking and not ready (`EAGAIN`/`EWOULDBLOCK`).
        case wouldBlock
    }

    /// Calls `body` until it stops failing with `EINTR` (or with `alsoRetrying`, e.g.
    /// `ECONNABORTED` for `accept4`).
    /// - Parameters:
    ///   - alsoRetrying: one more error number to call again on; `EINTR` (no other) by default.
    ///   - body: the system call; evaluated again after each retried error.
    /// - Returns: `.value` with the call's non-`-1` result, or `.wouldBlock` for `EAGAIN`.
    /// - Throws: `Errno` for any other failure.
    @inlinable @inline(__always)
    public static func nonBlocking<T: FixedWidthInteger>(alsoRetrying: CInt = EINTR, _ body: () -> T) throws(Errno) -> Outcome<T> {
        while true {
            let result = body()
            if result != -1 { return .value(result) }
            let err = errno
            if err == EINTR || err == alsoRetrying { continue }
            if err == EAGAIN || err == EWOULDBLOCK { return .wouldBlock }
            throw Errno(err)
        }
    }

    /// `nonBlocking` for calls that do not wait on a descriptor (or wait on a blocking one):
    /// `EAGAIN` is an error like any other.
    /// - Returns: the call's non-`-1` result.
    /// - Throws: `Errno` for any failure other than `EINTR`, `EAGAIN` included.
    @inlinable @inline(__always)
    public static func blocking<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T {
        switch try nonBlocking(body) {
        case .value(let result): return result
        case .wouldBlock: throw Errno(EAGAIN)
        }
    }

    /// Calls `body` once, for waits whose caller must see an interruption (`epoll_wait`: the loop
    /// re-checks its deadlines and state before it waits again, with a new timeout).
    /// - Returns: the call's non-`-1` result, or nil when it was interrupted (`EINTR`).
    /// - Throws: `Errno` for any other failure.
    @inlinable @inline(__always)
    public static func interruptible<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T? {
        let result = body()
        if result != -1 { return result }
        let err = errno
        if err == EINTR { return nil }
        throw Errno(err)
    }
}

/// `SystemCall.blocking`: calls `body` until it stops failing with `EINTR`, mapping a `-1`
/// result to the current `errno` (the name most wrappers here use).
/// - Parameter body: the system call; evaluated again after each `EINTR`.
/// - Returns: the call's non-`-1` result.
/// - Throws: `Errno` for any failure other than `EINTR`.
@inlinable @inline(__always)
public func retryingEINTR<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T {
    try SystemCall.blocking(body)
}
