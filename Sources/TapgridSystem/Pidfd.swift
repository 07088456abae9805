import CShims
@preconcurrency import Glibc

/// A descriptor referring to one process: readable once it exits, and a race-free way to signal
/// it (a pid can be reused after the process is reaped; a pidfd cannot point elsewhere).
public struct Pidfd: ~Copyable {
    /// The pidfd descriptor (close-on-exec, as pidfds always are).
    public let fd: OwnedFD

    /// Opens a pidfd for `pid`, which must be our unreaped child (or otherwise still alive).
    /// The corresponding C function is `pidfd_open` (called through `syscall`).
    /// - Throws: `Errno` (`ESRCH` if there is no such process).
    public init(pid: pid_t) throws(Errno) {
        fd = OwnedFD(taking: try retryingEINTR { cshims_pidfd_open(pid) })
    }

    /// Adopts an already open pidfd.
    public init(taking fd: consuming OwnedFD) { self.fd = fd }

    /// Sends `signal` to the process. The corresponding C function is `pidfd_send_signal`.
    /// - Throws: `Errno` (`ESRCH` once the process has exited).
    public func sendSignal(_ signal: CInt) throws(Errno) {
        _ = try retryingEINTR { cshims_pidfd_send_signal(fd.rawValue, signal) }
    }

    /// Sends `signal` through a raw pidfd, for callers storing plain descriptors.
    /// The corresponding C function is `pidfd_send_signal`.
    /// - Throws: `Errno` (`ESRCH` once the process has exited).
    public static func sendSignal(_ signal: CInt, toPidfd pidfd: CInt) throws(Errno) {
        _ = try retryingEINTR { cshims_pidfd_send_signal(pidfd, signal) }
    }
}
