import CShims
@preconcurrency import Glibc

/// Reads signals as data from a descriptor instead of running handlers.
///
/// Created `SFD_CLOEXEC | SFD_NONBLOCK`. The signals must also be blocked with
/// `Signals.block(_:)` before any thread exists, or they may be delivered normally.
public struct SignalFD: ~Copyable {
    /// The signalfd descriptor.
    public let fd: OwnedFD

    /// Creates a signalfd for `signals`. The corresponding C function is `signalfd`.
    /// - Throws: `Errno` from `signalfd`.
    public init(signals: [CInt]) throws(Errno) {
        var set = Signals.makeSet(signals)
        fd = OwnedFD(taking: try retryingEINTR { cshims_signalfd(&set) })
    }

    /// Reads every pending signal (the `ssi_signo` of each `signalfd_siginfo`).
    /// Standard signals coalesce: one SIGCHLD may stand for several exits.
    /// The corresponding C function is `read`.
    /// - Returns: the signal numbers in arrival order; empty if none is pending.
    /// - Throws: `Errno` other than `EAGAIN`.
    public func readPending() throws(Errno) -> [CInt] {
        var result: [CInt] = []
        var signos = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        while true {
            let outcome = try withUnsafeMutablePointer(to: &signos) { tuple throws(Errno) in
                try tuple.withMemoryRebound(to: UInt32.self, capacity: 8) { signos throws(Errno) in
                    try SystemCall.nonBlocking { cshims_signalfd_read(fd.rawValue, signos, 8) }
                }
            }
            guard case .value(let n) = outcome else { return result }
            withUnsafeBytes(of: &signos) { raw in
                for i in 0..<Int(n) { result.append(CInt(raw.load(fromByteOffset: i * 4, as: UInt32.self))) }
            }
            if n < 8 { return result }
        }
    }
}
