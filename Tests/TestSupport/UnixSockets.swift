@preconcurrency import Glibc

/// Calls `body` with a `sockaddr_un` for `path` (NUL-terminated, the rest zero), as `bind` and
/// `connect` take it: the one place tests fill in a Unix socket address.
public func withUnixAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) throws -> T {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        throw TestFailure("socket path \(path) is \(bytes.count) bytes; sun_path holds at most 107")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return try withUnsafePointer(to: &address) {
        try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// A new `AF_UNIX` socket of `type` (`SOCK_STREAM`, `SOCK_DGRAM`), bound to `path` when given and
/// then listening when `listening`: a stand-in for a socket of systemd's (`NOTIFY_SOCKET`, the
/// journal's, one it passes) or of a fake server. The caller closes the descriptor.
/// - Parameter closeOnExec: false for a socket that must look as systemd hands them over
///   (inheritable), true otherwise so children the tests start do not hold it.
public func makeUnixSocket(
    _ type: __socket_type, boundTo path: String? = nil, listening: Bool = false, closeOnExec: Bool = true
) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(type.rawValue) | (closeOnExec ? Int32(SOCK_CLOEXEC.rawValue) : 0), 0)
    guard fd >= 0 else { throw TestFailure("socket(AF_UNIX): errno \(errno)") }
    do {
        if let path {
            let bound = try withUnixAddress(path) { bind(fd, $0, $1) }
            guard bound == 0 else { throw TestFailure("bind \(path): errno \(errno)") }
        }
        if listening, listen(fd, 8) != 0 { throw TestFailure("listen \(path ?? ""): errno \(errno)") }
    } catch {
        close(fd)
        throw error
    }
    return fd
}

/// Waits until `fd` is readable (or hung up); false after `timeoutMs`. The C function is `poll`.
@discardableResult
public func waitReadable(_ fd: Int32, timeoutMs: Int32 = 5000) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let rc = poll(&entry, 1, timeoutMs)
        if rc < 0 && errno == EINTR { continue }
        return rc > 0
    }
}

/// The next datagram on `fd` as raw bytes, or nil after `timeoutMs` without one (0: only one
/// already queued).
public func receiveDatagram(_ fd: Int32, timeoutMs: Int32 = 2000) -> [UInt8]? {
    guard waitReadable(fd, timeoutMs: timeoutMs) else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
    return count >= 0 ? Array(buffer[0..<count]) : nil
}
