import CShims
@preconcurrency import Glibc

/// The credentials of the process at the other end of a Unix socket, as of its `connect`.
public struct PeerCredentials: Hashable, Sendable {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t
}

/// Server-side Unix stream sockets for the daemon's control socket.
///
/// Every descriptor made here is close-on-exec; listeners and accepted connections are
/// non-blocking, ready for `Epoll`.
public enum UnixSocket {
    /// The longest path (in UTF-8 bytes) that fits `sun_path` with its terminating NUL: 107.
    public static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Creates a listening socket at `path`.
    ///
    /// - A path longer than `maxPathLength` is refused before anything is touched.
    /// - A stale socket file at `path` is removed; any other file type is an error and is left
    ///   alone, and so is a socket some process still accepts on (`EADDRINUSE`).
    /// - The mode is applied without a window where the socket is more open than asked: `fchmod`
    ///   on the socket before `bind` (Linux creates the file with that mode minus the umask,
    ///   never more), then `chmod` to add any bits the umask removed. `umask` itself is not
    ///   touched, as it is process-wide and racy with other threads.
    /// The corresponding C functions are `socket`, `fchmod`, `bind`, `chmod` and `listen`.
    /// - Parameters:
    ///   - path: the socket file's path.
    ///   - mode: permission bits, e.g. `0o600` (or `0o660` for a client group).
    ///   - backlog: pending connections queued by the kernel (raised to at least 512).
    /// - Returns: the non-blocking, close-on-exec listener.
    /// - Throws: `SystemError` naming the path.
    public static func listen(path: String, mode: mode_t = 0o600, backlog: CInt = 512) throws(SystemError) -> OwnedFD {
        var address = try makeAddress(path, operation: "listen on")
        try removeStaleSocket(path)
        let raw: CInt
        do throws(Errno) {
            raw = try retryingEINTR {
                socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
            }
        } catch { throw error.with("create a socket for", path) }
        let fd = OwnedFD(taking: raw)
        do throws(Errno) {
            _ = try retryingEINTR { fchmod(fd.rawValue, mode) }
        } catch { throw error.with("set the mode of", path) }
        do throws(Errno) {
            _ = try retryingEINTR {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        } catch { throw error.with("bind", path) }
        var st = stat()
        if stat(path, &st) == 0 && st.st_mode & 0o7777 != mode {
            do throws(Errno) {
                _ = try retryingEINTR { chmod(path, mode) }
            } catch { throw error.with("set the mode of", path) }
        }
        do throws(Errno) {
            _ = try retryingEINTR { Glibc.listen(fd.rawValue, max(backlog, 512)) }
        } catch { throw error.with("listen on", path) }
        return fd
    }

    /// Takes over a listening socket passed by systemd socket activation (`LISTEN_FDS`):
    /// checks it is a listening socket, then sets `O_NONBLOCK` and `FD_CLOEXEC` (systemd passes
    /// them blocking and inheritable). The corresponding C functions are `getsockopt` and `fcntl`.
    /// - Throws: `SystemError` (`ENOTSOCK`/`EINVAL` if `fd` is not a listening socket).
    public static func adoptListener(_ fd: CInt) throws(SystemError) -> OwnedFD {
        let name = "descriptor \(fd)"
        var accepting: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) != 0 {
            throw Errno.current.with("adopt listening socket", name)
        }
        if accepting == 0 {
            throw SystemError(Errno(EINVAL), operation: "adopt listening socket", path: name, detail: "not a listening socket")
        }
        do throws(Errno) {
            try FD.setNonBlocking(fd)
            try FD.setCloseOnExec(fd)
        } catch { throw error.with("adopt listening socket", name) }
        return OwnedFD(taking: fd)
    }

    /// Accepts one pending connection, non-blocking and close-on-exec.
    ///
    /// Call in a loop until it returns `nil`. `ECONNABORTED` (the client gave up while queued)
    /// and `EINTR` are skipped. On `EMFILE`/`ENFILE` back off rather than spin: the listener
    /// stays readable. The corresponding C function is `accept4`.
    /// - Returns: the connection, or `nil` when no connection is pending (`EAGAIN`).
    /// - Throws: `Errno`, e.g. `EMFILE`.
    public static func accept(_ listener: CInt) throws(Errno) -> OwnedFD? {
        switch try SystemCall.nonBlocking(alsoRetrying: ECONNABORTED, { cshims_accept4(listener) }) {
        case .value(let fd): return OwnedFD(taking: fd)
        case .wouldBlock: return nil
        }
    }

    /// The peer's pid, uid and gid, recorded by the kernel at `connect`.
    /// The corresponding C function is `getsockopt(SO_PEERCRED)`.
    /// - Throws: `Errno` from `getsockopt`.
    public static func peerCredentials(_ fd: CInt) throws(Errno) -> PeerCredentials {
        var cred = cshims_ucred()
        _ = try retryingEINTR { cshims_peercred(fd, &cred) }
        return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid)
    }

    /// The peer's supplementary group IDs at `connect` (to admit members of a client group).
    /// The corresponding C function is `getsockopt(SO_PEERGROUPS)` (Linux 4.13+).
    /// - Throws: `Errno` from `getsockopt`.
    public static func peerGroups(_ fd: CInt) throws(Errno) -> [gid_t] {
        var capacity = 64
        while true {
            var gids = [UInt32](repeating: 0, count: capacity)
            let n = try retryingEINTR { gids.withUnsafeMutableBufferPointer { cshims_peergroups(fd, $0.baseAddress, CInt(capacity)) } }
            if Int(n) <= capacity { return Array(gids.prefix(Int(n))) }
            capacity = Int(n)
        }
    }

    /// Builds a `sockaddr_un` for `path`, or throws a `SystemError` naming the path and limit.
    static func makeAddress(_ path: String, operation: String) throws(SystemError) -> sockaddr_un {
        let bytes = Array(path.utf8)
        if bytes.isEmpty || bytes.contains(0) {
            throw SystemError(Errno(EINVAL), operation: operation, path: path, detail: "not a valid socket path")
        }
        if bytes.count > maxPathLength {
            throw SystemError(
                Errno(ENAMETOOLONG), operation: operation, path: path,
                detail: "path is \(bytes.count) bytes; a Unix socket path may have at most \(maxPathLength)")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return address
    }

    /// Removes `path` if it is a socket nobody listens on; refuses any other file type.
    private static func removeStaleSocket(_ path: String) throws(SystemError) {
        var st = stat()
        if lstat(path, &st) != 0 {
            let err = errno
            if err == ENOENT { return }
            throw Errno(err).with("listen on", path)
        }
        guard st.st_mode & S_IFMT == S_IFSOCK else {
            throw SystemError(
                Errno(EEXIST), operation: "listen on", path: path,
                detail: "the path exists and is not a socket; refusing to remove it")
        }
        // A socket someone still accepts on is not stale: taking it over would cut off a running
        // daemon. Only "connection refused" (nobody listening) proves it stale; a timeout (full
        // backlog) or EACCES leaves it alone.
        do throws(SystemError) {
            let probe = try UnixClient(path: path, timeoutSeconds: 1)
            _ = consume probe
            throw SystemError(
                Errno(EADDRINUSE), operation: "listen on", path: path,
                detail: "another process is listening on this socket")
        } catch where error.errno.rawValue == ECONNREFUSED || error.errno.rawValue == ENOENT {
            // stale: remove it below
        } catch where error.errno.rawValue == EADDRINUSE {
            throw error
        } catch {
            throw SystemError(
                error.errno, operation: "listen on", path: path,
                detail: "cannot tell whether the existing socket is in use: \(error.errno)")
        }
        if unlink(path) != 0 && errno != ENOENT {
            throw Errno.current.with("remove stale socket", path)
        }
    }
}
