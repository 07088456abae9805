import TapgridCore
import TapgridSystem

/// A connection to tapgridd: request lines out, reply lines in (framed by the `LineFramer`).
struct DaemonClient: ~Copyable {
    private let socket: UnixClient
    private var framer = LineFramer(dropsCarriageReturn: false)
    private var atEnd = false

    /// Connects to the daemon's socket; `timeoutSeconds` bounds each blocking step.
    init(path: String, timeoutSeconds: Double?) throws(SystemError) {
        socket = try UnixClient(path: path, timeoutSeconds: timeoutSeconds)
    }

    var path: String { socket.path }

    func send(_ bytes: some Collection<UInt8>) throws(SystemError) { try socket.send(bytes) }

    func shutdownWrite() throws(SystemError) { try socket.shutdownWrite() }

    /// A complete reply line already received (without its `\n`), or nil: never reads, so a
    /// client that paces its own requests (`replay --dispatch`) takes what has arrived and goes on.
    mutating func bufferedLine() -> [UInt8]? {
        var line: [UInt8]? = nil
        framer.takeLines { bytes in
            line = Array(bytes)
            return false
        }
        return line
    }

    /// What `receive` found.
    enum Received: Equatable {
        /// Bytes arrived (maybe no complete line yet).
        case data
        /// Nothing arrived within the time given.
        case nothing
        /// The daemon closed the connection.
        case closed
    }

    /// Waits at most `timeoutMilliseconds` for reply bytes and takes what arrived, so the caller
    /// can also wake when its next request is due instead of blocking in `readLine`.
    /// - Throws: `SystemError` from `poll` or `read`.
    mutating func receive(timeoutMilliseconds: Int32) throws(SystemError) -> Received {
        if atEnd { return .closed }
        do throws(Errno) {
            guard try FD.waitReadable(socket.fd.rawValue, timeoutMilliseconds: timeoutMilliseconds) else { return .nothing }
        } catch {
            throw SystemError(error, operation: "wait for", path: socket.path)
        }
        var bytes: [UInt8] = []
        atEnd = try !socket.read(appendingTo: &bytes)
        framer.append(bytes)
        return atEnd ? .closed : .data
    }

    /// The next reply line without its `\n`; the unterminated rest at end of stream; nil after that.
    /// - Throws: `SystemError` (`EMSGSIZE` for a line over `maxBytes`, `ETIMEDOUT`).
    mutating func readLine(maxBytes: Int = 1 << 20) throws(SystemError) -> [UInt8]? {
        while true {
            var line: [UInt8]? = nil
            framer.takeLines { bytes in
                line = Array(bytes)
                return false
            }
            if let line { return line }
            if framer.count > maxBytes {
                throw SystemError(Errno.messageTooLong, operation: "read from", path: socket.path,
                                  detail: "reply line longer than \(maxBytes) bytes")
            }
            if atEnd {
                var rest: [UInt8]? = nil
                framer.takeRest { rest = Array($0) }
                return rest
            }
            var bytes: [UInt8] = []
            atEnd = try !socket.read(appendingTo: &bytes)
            framer.append(bytes)
        }
    }
}
