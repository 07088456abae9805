@preconcurrency import Glibc

/// Owns one open file descriptor and closes it exactly once.
///
/// Noncopyable (swift-system's `IORing` model) so a descriptor cannot be closed twice or used
/// after close by accident. Pass `fd.rawValue` to borrow it for a call; `release()` hands it
/// over to code that stores plain `CInt`s (the caller then closes it with `FD.close`).
/// Note that `if let x = optionalOwnedFD` consumes the optional.
public struct OwnedFD: ~Copyable {
    /// The descriptor number; valid until this value is consumed or destroyed.
    public let rawValue: CInt

    /// Takes ownership of `rawValue`, which must be an open descriptor (>= 0).
    public init(taking rawValue: CInt) {
        precondition(rawValue >= 0, "OwnedFD(taking:) needs an open descriptor, got \(rawValue)")
        self.rawValue = rawValue
    }

    /// Gives the descriptor away without closing it.
    /// - Returns: the raw descriptor, now owned by the caller.
    public consuming func release() -> CInt {
        let fd = rawValue
        discard self
        return fd
    }

    deinit { FD.close(rawValue) }
}

/// Operations on plain `CInt` descriptors, for code where `OwnedFD` is awkward (dictionaries,
/// event-loop tables). All go through `SystemCall` (`EINTR` retried there); none allocates.
public enum FD {
    /// Closes `fd`, ignoring the result.
    ///
    /// Never retried: on Linux the descriptor is released even when `close` reports `EINTR`, and
    /// a retry could close a descriptor another thread just got (see NIO's `close` comment).
    /// `EBADF` means a double close, which is a bug. The corresponding C function is `close`.
    public static func close(_ fd: CInt) {
        if Glibc.close(fd) == -1 && errno == EBADF {
            preconditionFailure("close(\(fd)): EBADF, descriptor closed twice")
        }
    }

    /// The outcome of a non-blocking read or write.
    public enum IOResult: Equatable, Sendable {
        /// This many bytes moved; for reads, `0` means end of file / peer closed.
        case transferred(Int)
        /// The descriptor is non-blocking and not ready (`EAGAIN`/`EWOULDBLOCK`).
        case wouldBlock

        /// A byte count from `SystemCall.nonBlocking`.
        @inline(__always)
        init(_ outcome: SystemCall.Outcome<Int>) {
            switch outcome {
            case .value(let count): self = .transferred(count)
            case .wouldBlock: self = .wouldBlock
            }
        }
    }

    /// Reads at most `buffer.count` bytes. The corresponding C function is `read`.
    /// - Returns: `.transferred(n)` (`0` at end of file) or `.wouldBlock`.
    /// - Throws: `Errno` for errors other than `EINTR`/`EAGAIN`.
    public static func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> IOResult {
        IOResult(try SystemCall.nonBlocking { Glibc.read(fd, buffer.baseAddress, buffer.count) })
    }

    /// Reads at most `maxBytes` bytes and appends them to `bytes`.
    ///
    /// Convenient for pipes and connections with a growing input buffer. With enough reserved
    /// capacity in `bytes` it does not allocate.
    /// - Returns: `.transferred(n)` (`0` at end of file) or `.wouldBlock`.
    /// - Throws: `Errno` for errors other than `EINTR`/`EAGAIN`.
    public static func read(_ fd: CInt, appendingTo bytes: inout [UInt8], maxBytes: Int) throws(Errno) -> IOResult {
        let old = bytes.count
        var result: Result<IOResult, Errno> = .success(.wouldBlock)
        bytes.append(contentsOf: repeatElement(0, count: maxBytes))
        bytes.withUnsafeMutableBytes { raw in
            let slice = UnsafeMutableRawBufferPointer(rebasing: raw[old...])
            do throws(Errno) { result = .success(try read(fd, into: slice)) } catch { result = .failure(error) }
        }
        let outcome = try result.get()
        if case .transferred(let n) = outcome {
            bytes.removeLast(maxBytes - n)
        } else {
            bytes.removeLast(maxBytes)
        }
        return outcome
    }

    /// Writes some of `bytes` once (one `write` call, `EINTR` retried). The corresponding C
    /// function is `write`. Use `send` for sockets, so a vanished peer cannot raise `SIGPIPE`.
    /// - Returns: `.transferred(n)` (possibly fewer than `bytes.count`) or `.wouldBlock`.
    /// - Throws: `Errno` for errors other than `EINTR`/`EAGAIN`.
    public static func write(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult {
        IOResult(try SystemCall.nonBlocking { Glibc.write(fd, bytes.baseAddress, bytes.count) })
    }

    /// Sends some of `bytes` on a socket with `MSG_NOSIGNAL` (no `SIGPIPE` if the peer is gone;
    /// `EPIPE` is thrown instead). The corresponding C function is `send`.
    /// - Returns: `.transferred(n)` (possibly fewer than `bytes.count`) or `.wouldBlock`.
    /// - Throws: `Errno` for errors other than `EINTR`/`EAGAIN`.
    public static func send(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult {
        IOResult(try SystemCall.nonBlocking { Glibc.send(fd, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL)) })
    }

    /// `send` with `MSG_DONTWAIT` as well: never waits, even on a socket another library made
    /// (an event stream's, libmicrohttpd's connection).
    public static func sendNow(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult {
        IOResult(try SystemCall.nonBlocking { Glibc.send(fd, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT)) })
    }

    /// Writes all of `bytes` to a *blocking* descriptor, looping over short writes and `EINTR`
    /// (the event log, stderr). The corresponding C function is `write`.
    /// - Throws: `Errno`; `EAGAIN` if the descriptor is non-blocking and full.
    public static func writeAll(_ fd: CInt, _ raw: UnsafeRawBufferPointer) throws(Errno) {
        try writeAll(fd, raw, isSocket: false)
    }

    /// Writes all of `bytes` to a *blocking* descriptor (a file, the event log, a blocking
    /// socket), looping over short writes. Sockets are written with `send(MSG_NOSIGNAL)`.
    /// - Throws: `Errno`; `EAGAIN` if the descriptor turns out to be non-blocking and full.
    public static func writeAll(_ fd: CInt, _ bytes: some Collection<UInt8>) throws(Errno) {
        let isSocket = FD.isSocket(fd)
        var failure: Errno?
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(Errno) { try writeAll(fd, UnsafeRawBufferPointer(buffer), isSocket: isSocket) } catch {
                failure = error
            }
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { raw in
                do throws(Errno) { try writeAll(fd, raw, isSocket: isSocket) } catch { failure = error }
            }
        }
        if let failure { throw failure }
    }

    private static func writeAll(_ fd: CInt, _ raw: UnsafeRawBufferPointer, isSocket: Bool) throws(Errno) {
        var offset = 0
        while offset < raw.count {
            let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
            let outcome = isSocket ? try send(fd, rest) : try write(fd, rest)
            switch outcome {
            case .transferred(let n): offset += n
            case .wouldBlock: throw Errno(EAGAIN)
            }
        }
    }

    /// Whether `fd` is a socket (so writes should use `send` with `MSG_NOSIGNAL`).
    /// The corresponding C function is `fstat`.
    public static func isSocket(_ fd: CInt) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Flushes a file's data to its device. The corresponding C function is `fdatasync`.
    public static func syncData(_ fd: CInt) { _ = fdatasync(fd) }

    /// A close-on-exec duplicate of `fd`, numbered 3 or above, owned by the caller (one that
    /// watches a descriptor a library owns and closes, such as a connection's socket, without
    /// closing it under the library). The corresponding C function is `fcntl(F_DUPFD_CLOEXEC)`.
    /// - Throws: `Errno` from `fcntl` (`EMFILE` when the process is out of descriptors).
    public static func duplicate(_ fd: CInt) throws(Errno) -> OwnedFD {
        OwnedFD(taking: try retryingEINTR { fcntl(fd, F_DUPFD_CLOEXEC, CInt(3)) })
    }

    /// Sets `O_NONBLOCK` on `fd`. The corresponding C function is `fcntl(F_SETFL)`.
    /// - Throws: `Errno` from `fcntl`.
    public static func setNonBlocking(_ fd: CInt, _ on: Bool = true) throws(Errno) {
        let flags = try retryingEINTR { fcntl(fd, F_GETFL) }
        let wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if wanted != flags { _ = try retryingEINTR { fcntl(fd, F_SETFL, wanted) } }
    }

    /// Sets `FD_CLOEXEC` on `fd`. The corresponding C function is `fcntl(F_SETFD)`.
    /// - Throws: `Errno` from `fcntl`.
    public static func setCloseOnExec(_ fd: CInt) throws(Errno) {
        let flags = try retryingEINTR { fcntl(fd, F_GETFD) }
        if flags & FD_CLOEXEC == 0 { _ = try retryingEINTR { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) } }
    }
}
