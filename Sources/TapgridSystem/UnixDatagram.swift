@preconcurrency import Glibc

/// Unix datagram sockets that never wait: journald's native protocol (`TapgridSystemd`'s
/// `JournalSocket`), where a full or gone receiver must be an error at once.
public enum UnixDatagram {
    /// A new unbound datagram socket, close-on-exec and non-blocking. The corresponding C
    /// functions are `socket` and `setsockopt(SO_SNDBUF)`.
    /// - Parameter sendBufferBytes: `SO_SNDBUF` to ask for (the kernel caps it at `wmem_max`; a
    ///   refusal is not an error).
    /// - Throws: `Errno` from `socket`.
    public static func open(sendBufferBytes: CInt) throws(Errno) -> OwnedFD {
        let fd = OwnedFD(taking: try SystemCall.blocking {
            socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
        })
        var size = sendBufferBytes
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<CInt>.size))
        return fd
    }

    /// Sends one datagram as `header` describes it, with `MSG_DONTWAIT` (never waits, whatever
    /// the socket) and `MSG_NOSIGNAL`. The corresponding C function is `sendmsg`.
    /// - Returns: `.transferred(n)` or `.wouldBlock` (the receiver's queue is full).
    /// - Throws: `Errno` for errors other than `EINTR`/`EAGAIN` (e.g. `ENOENT`, `ECONNREFUSED`,
    ///   `EMSGSIZE`).
    public static func send(_ fd: CInt, _ header: UnsafePointer<msghdr>) throws(Errno) -> FD.IOResult {
        FD.IOResult(try SystemCall.nonBlocking { Glibc.sendmsg(fd, header, CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL)) })
    }
}
