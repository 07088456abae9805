import TapgridCore

/// One reply of the request path, for a transport that is not the socket: the line as the
/// socket would send it (without its `\n`) and, for an error reply, its code as a value (an HTTP
/// status or a result's topic is chosen from it, never from the reply's bytes).
struct EndpointReply {
    var line: [UInt8]
    var error: ErrorCode?
}

/// The one request path: every transport's request lines reach the `RequestRouter` here, and
/// every reply leaves after the records it staged were written. The socket server hands it its
/// lines as its `LineHandler` and sends the replies itself; the fleet's commands and pushed
/// layouts, the panel's POSTs and a reload that finished on their behalf are answered on their
/// socketless `Connection`s with `answer`/`replies(of:)`, which return the replies typed.
final class RequestEndpoint: LineHandler {
    private let router: RequestRouter
    private let output: TapOutput

    init(router: RequestRouter) {
        self.router = router
        output = router.output
    }

    @inline(__always)
    func handleLine(_ line: UnsafeBufferPointer<UInt8>, from connection: Connection) { router.handleLine(line, from: connection) }

    func connectionClosed(_ connection: Connection) { router.connectionClosed(connection) }

    @inline(__always)
    func writeStagedRecords() { output.writeStagedRecords() }

    /// Answers `line` on `connection`; empty when it waits (a `reload`: its reply comes with
    /// `replies(of:)` once the load finished).
    func answer(_ line: [UInt8], on connection: Connection) -> [EndpointReply] {
        line.withUnsafeBufferPointer { handleLine($0, from: connection) }
        return replies(of: connection)
    }

    /// The replies waiting in the connection's output, taken from it, their records written first.
    func replies(of connection: Connection) -> [EndpointReply] {
        let out = connection.output
        guard out.count > 0 else { return [] }
        writeStagedRecords()
        let bytes = Array(out.bytes)
        out.removeAll(shrinkingAbove: 1 << 16)
        return bytes.split(separator: 0x0A).map { line in
            let line = Array(line)
            return EndpointReply(line: line, error: Self.errorCode(line))
        }
    }

    /// The code of an error reply, read from the reply as JSON (off the socket's path: a panel
    /// POST or an MQTT command); nil for any other reply.
    static func errorCode(_ line: [UInt8]) -> ErrorCode? {
        guard case .error(let error)? = try? DaemonReply.read(line) else { return nil }
        return error.code.flatMap { ErrorCode(name: $0) } ?? .badRequest
    }
}
