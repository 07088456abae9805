import CShims
@preconcurrency import Glibc

/// A counter descriptor that other threads write to wake the event loop.
///
/// Created `EFD_CLOEXEC | EFD_NONBLOCK`. The loop registers `fd` for `.readable` and calls
/// `drain()` when it fires; other threads call `notifier.signal()`.
public struct EventFD: ~Copyable {
    /// The eventfd descriptor.
    public let fd: OwnedFD

    /// Creates an eventfd. The corresponding C function is `eventfd`.
    /// - Throws: `Errno` from `eventfd`.
    public init() throws(Errno) {
        fd = OwnedFD(taking: try retryingEINTR { cshims_eventfd() })
    }

    /// A copyable, `Sendable` handle for waking the loop from another thread. It holds the raw
    /// descriptor only: it must not be used after the `EventFD` is destroyed.
    public var notifier: Notifier { Notifier(rawValue: fd.rawValue) }

    /// Wakes the loop (see `Notifier.signal`).
    public func signal() { notifier.signal() }

    /// Resets the counter after a wake-up. The corresponding C function is `read`.
    /// - Returns: the number of `signal()` calls since the last drain (0 if none).
    public func drain() -> UInt64 {
        var value: UInt64 = 0
        let n = withUnsafeMutableBytes(of: &value) { raw in
            (try? FD.read(fd.rawValue, into: raw)) ?? .wouldBlock
        }
        return n == .transferred(8) ? value : 0
    }

    /// Wakes an `EventFD` from any thread.
    /// Waits until the eventfd was signalled or `timeoutMilliseconds` passed (it is not drained).
    /// The corresponding C function is `poll`.
    /// - Returns: whether it was signalled.
    public func wait(timeoutMilliseconds: CInt) -> Bool {
        var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        let ready = (try? retryingEINTR { poll(&entry, 1, timeoutMilliseconds) }) ?? 0
        return ready > 0
    }

    public struct Notifier: Sendable {
        /// The eventfd descriptor (not owned).
        public let rawValue: CInt

        /// Adds 1 to the counter, making the descriptor readable. `EAGAIN` (counter saturated)
        /// is ignored: the loop is awake anyway. The corresponding C function is `write`.
        public func signal() {
            var one: UInt64 = 1
            _ = withUnsafeBytes(of: &one) { raw in try? FD.write(rawValue, raw) }
        }
    }
}
