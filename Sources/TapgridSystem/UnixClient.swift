@preconcurrency import Glibc

/// A blocking Unix stream client for the CLI: connect, send request lines, read reply lines.
///
/// Blocking keeps the CLI simple; the optional timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`) bounds
/// `connect` when the daemon's backlog is full, every send, and every read.
public struct UnixClient: ~Copyable {
    /// The connected, blocking, close-on-exec socket.
    public let fd: OwnedFD
    /// The path connected to, for error messages.
    public let path: String

    /// Connects to the socket at `path`.
    /// The corresponding C functions are `socket`, `setsockopt` and `connect`.
    /// - Parameters:
    ///   - path: the daemon's socket.
    ///   - timeoutSeconds: limit for each blocking step; `nil` waits forever.
    /// - Throws: `SystemError` like `cannot connect to /run/x.sock: No such file or directory (errno 2)`.
    public init(path: String, timeoutSeconds: Double? = nil) throws(SystemError) {
        var address = try UnixSocket.makeAddress(path, operation: "connect to")
        let raw: CInt
        do throws(Errno) {
            raw = try retryingEINTR { socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }
        } catch { throw error.with("connect to", path) }
        let fd = OwnedFD(taking: raw)
        if let timeoutSeconds, timeoutSeconds > 0 {
            let whole = timeoutSeconds.rounded(.down)
            var tv = timeval(tv_sec: Int(whole), tv_usec: max(Int((timeoutSeconds - whole) * 1_000_000), whole == 0 ? 1 : 0))
            let size = socklen_t(MemoryLayout<timeval>.size)
            if setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &tv, size) != 0
                || setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &tv, size) != 0
            {
                throw Errno.current.with("connect to", path)
            }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        // A connect interrupted by a signal keeps going in the kernel: do not retry it.
        if rc != 0 {
            let err = errno
            throw Self.timeoutAware(Errno(err)).with("connect to", path)
        }
        self.fd = fd
        self.path = path
    }

    /// Sends all of `bytes` (`MSG_NOSIGNAL`: a daemon that went away gives `EPIPE`, no signal).
    /// The corresponding C function is `send`.
    /// - Throws: `SystemError` (`ETIMEDOUT` when the timeout passed).
    public func send(_ bytes: some Collection<UInt8>) throws(SystemError) {
        do throws(Errno) { try FD.writeAll(fd.rawValue, bytes) } catch {
            throw Self.timeoutAware(error).with("write to", path)
        }
    }

    /// Shuts down the writing side, so the daemon sees the end of the request stream (a final
    /// line without `\n` is still a request). The corresponding C function is `shutdown`.
    /// - Throws: `SystemError` from `shutdown`.
    public func shutdownWrite() throws(SystemError) {
        if shutdown(fd.rawValue, CInt(SHUT_WR)) != 0 { throw Errno.current.with("shut down", path) }
    }

    /// Reads what the daemon sent next, appending it to `bytes`.
    /// The corresponding C function is `read`.
    /// - Returns: false at end of stream.
    /// - Throws: `SystemError` (`ETIMEDOUT` when the timeout passed).
    public func read(appendingTo bytes: inout [UInt8]) throws(SystemError) -> Bool {
        let outcome: FD.IOResult
        do throws(Errno) { outcome = try FD.read(fd.rawValue, appendingTo: &bytes, maxBytes: 65536) } catch {
            throw error.with("read from", path)
        }
        switch outcome {
        case .transferred(let count): return count > 0
        case .wouldBlock: throw SystemError(Errno(ETIMEDOUT), operation: "read from", path: path)
        }
    }

    /// `SO_RCVTIMEO`/`SO_SNDTIMEO` expiry shows up as `EAGAIN` (or `EINPROGRESS` for connect).
    private static func timeoutAware(_ error: Errno) -> Errno {
        error.rawValue == EAGAIN || error.rawValue == EINPROGRESS ? Errno(ETIMEDOUT) : error
    }
}
