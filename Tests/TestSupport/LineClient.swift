@preconcurrency import Glibc

/// The tests' one client of a stream Unix socket that speaks lines: tapgridd's protocol (one
/// JSON request a line, one reply a line), or any line-based server a suite starts. Blocking,
/// with a receive timeout, so a daemon that does not answer fails the test instead of hanging it.
public final class LineClient: @unchecked Sendable {  // used by one thread at a time in each test
    /// The connected socket, for tests that read it their own way (in bulk, with `poll`).
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to the socket at `path`.
    /// - Parameter receiveTimeout: seconds a read waits (`SO_RCVTIMEO`) before ``readLine()``
    ///   gives up with nil.
    public init(_ path: String, receiveTimeout: Int = 10) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        do {
            let rc = try withUnixAddress(path) { Glibc.connect(fd, $0, $1) }
            guard rc == 0 else { throw TestFailure("connect \(path): errno \(errno)") }
        } catch {
            close()  // marks it closed, so deinit (if it runs for a failed init) does not close again
            throw error
        }
        var tv = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Closes once: a second close(2) of the same number could close a descriptor another test
    /// (in this process) has been given since, which its owner then finds gone.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    deinit { close() }

    /// Sends all of `text`; false if the peer is gone (no SIGPIPE: `MSG_NOSIGNAL`).
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends all of `bytes` (for bytes no `String` holds: invalid UTF-8, NULs); false if the peer is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Ends what this side sends (`shutdown(SHUT_WR)`): the server reads end of stream and may
    /// still answer what it got.
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next line without its `\n`; nil at end of stream, on an error, or after the receive timeout.
    public func readLine() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends one request line and parses the reply line: the lockstep exchange most tests make.
    public func request(_ line: String) throws -> [String: Any] {
        guard send(line + "\n") else { throw TestFailure("send failed for \(line)") }
        guard let reply = readLine() else { throw TestFailure("no reply to \(line)") }
        return try parseObject(reply)
    }

    /// Every remaining line until the server closes the connection (or the receive timeout).
    public func readAllLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }
}
