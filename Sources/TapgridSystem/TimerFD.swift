import CShims
@preconcurrency import Glibc

/// A monotonic-clock timer delivered as a readable descriptor (timeouts, watchdog pings).
///
/// Created on `CLOCK_MONOTONIC` with `TFD_CLOEXEC | TFD_NONBLOCK`, so wall-clock jumps do not
/// move deadlines.
public struct TimerFD: ~Copyable {
    /// The timerfd descriptor.
    public let fd: OwnedFD

    /// Creates a disarmed timer. The corresponding C function is `timerfd_create`.
    /// - Throws: `Errno` from `timerfd_create`.
    public init() throws(Errno) {
        fd = OwnedFD(taking: try retryingEINTR { cshims_timerfd_create() })
    }

    /// Arms the timer relative to now, replacing any earlier setting.
    /// The corresponding C function is `timerfd_settime`.
    /// - Parameters:
    ///   - afterNanoseconds: first expiry from now (values < 1 are raised to 1 ns, since 0 disarms).
    ///   - intervalNanoseconds: period after the first expiry; 0 for one-shot.
    /// - Throws: `Errno` from `timerfd_settime`.
    public func set(afterNanoseconds: UInt64, intervalNanoseconds: UInt64 = 0) throws(Errno) {
        let first = max(afterNanoseconds, 1)
        _ = try retryingEINTR { cshims_timerfd_settime(fd.rawValue, first, intervalNanoseconds) }
    }

    /// Stops the timer. The corresponding C function is `timerfd_settime`.
    /// - Throws: `Errno` from `timerfd_settime`.
    public func disarm() throws(Errno) {
        _ = try retryingEINTR { cshims_timerfd_settime(fd.rawValue, 0, 0) }
    }

    /// Consumes the expirations so the descriptor stops being readable.
    /// The corresponding C function is `read`.
    /// - Returns: expirations since the last read (0 if none).
    public func readExpirations() -> UInt64 {
        var value: UInt64 = 0
        let n = withUnsafeMutableBytes(of: &value) { raw in (try? FD.read(fd.rawValue, into: raw)) ?? .wouldBlock }
        return n == .transferred(8) ? value : 0
    }
}
