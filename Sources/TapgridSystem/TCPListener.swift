@preconcurrency import Glibc

/// A listening TCP socket for a `host:port` (the panel's `listen`).
public enum TCPListener {
    /// Binds and listens on the first address `host` resolves to (numeric addresses need no
    /// lookup; a name is resolved once, at start), non-blocking and close-on-exec, with
    /// `SO_REUSEADDR` so a restarted daemon rebinds at once, and `TCP_NODELAY`. An IPv6 socket is `IPV6_V6ONLY`:
    /// `[::]` listens on IPv6 alone, as written. The corresponding C functions are
    /// `getaddrinfo`, `socket`, `setsockopt`, `bind` and `listen`.
    /// - Throws: `SystemError` naming the address and the call that failed (`EADDRINUSE`, ...).
    public static func listen(host: String, port: Int, backlog: CInt = 128) throws(SystemError) -> OwnedFD {
        let name = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let reason = rc == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(rc))
            throw SystemError(Errno(EADDRNOTAVAIL), operation: "resolve", path: name, detail: reason)
        }
        defer { freeaddrinfo(list) }
        let raw: CInt
        do throws(Errno) {
            raw = try retryingEINTR {
                socket(first.pointee.ai_family, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
            }
        } catch { throw error.with("create a socket for", name) }
        let fd = OwnedFD(taking: raw)
        var one: CInt = 1
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
        // Accepted sockets inherit it: small replies and events go out at once, not after
        // Nagle's wait for the peer's delayed ACK (40 ms per request on loopback).
        TCPSocketOptions.noDelay(fd.rawValue)
        if first.pointee.ai_family == AF_INET6 {
            _ = setsockopt(fd.rawValue, CInt(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<CInt>.size))
        }
        do throws(Errno) {
            _ = try retryingEINTR { bind(fd.rawValue, first.pointee.ai_addr, first.pointee.ai_addrlen) }
        } catch { throw error.with("bind", name) }
        do throws(Errno) {
            _ = try retryingEINTR { Glibc.listen(fd.rawValue, backlog) }
        } catch { throw error.with("listen on", name) }
        return fd
    }

    /// The port a listening socket is bound to (`getsockname`): the one the kernel chose for port 0.
    public static func boundPort(_ fd: CInt) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return nil }
        switch CInt(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default: return nil
        }
    }
}
