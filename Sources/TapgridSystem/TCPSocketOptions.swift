@preconcurrency import Glibc

/// TCP options set on a socket someone else writes (libmosquitto's, libmicrohttpd's
/// connections). Each is ignored on a socket that is not TCP (a broker or a panel on a Unix
/// socket): the call fails and nothing changes.
public enum TCPSocketOptions {
    /// `setsockopt(IPPROTO_TCP, TCP_CORK)`: while corked, the kernel holds partial segments, so
    /// the many small packets one wakeup writes go out in a few full segments instead of one
    /// each (with `TCP_NODELAY` every `send` would be a segment, and a broker a wakeup per
    /// segment). Uncorking sends what is held at once.
    public static func cork(_ fd: CInt, _ on: Bool) {
        var value: CInt = on ? 1 : 0
        _ = setsockopt(fd, CInt(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<CInt>.size))
    }

    /// `setsockopt(IPPROTO_TCP, TCP_QUICKACK)`: acknowledge what was just read at once instead
    /// of up to 40 ms later. A broker that keeps Nagle's algorithm on (mosquitto does unless
    /// `set_tcp_nodelay true`) holds each small PUBACK until the previous one is acknowledged,
    /// so delayed ACKs turn the end of a drain into one message per 40 ms; a browser that writes
    /// a POST's headers and body apart waits for the headers' ACK. Linux clears the flag again
    /// by itself: it is set after every read.
    public static func quickAck(_ fd: CInt) {
        var value: CInt = 1
        _ = setsockopt(fd, CInt(IPPROTO_TCP), TCP_QUICKACK, &value, socklen_t(MemoryLayout<CInt>.size))
    }

    /// `setsockopt(IPPROTO_TCP, TCP_NODELAY)`: small writes go out at once instead of waiting
    /// for the previous segment's (delayed, up to 40 ms) ACK. Set on a listening socket, the
    /// sockets it accepts inherit it.
    public static func noDelay(_ fd: CInt) {
        var value: CInt = 1
        _ = setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &value, socklen_t(MemoryLayout<CInt>.size))
    }
}
