import CMicroHTTPD

/// One HTTP request, handed to the `HTTPHandler` once its body is in. Header, argument and
/// cookie lookups read libmicrohttpd's parsed values (`MHD_lookup_connection_value`).
public final class HTTPRequest {
    let connection: OpaquePointer
    public let method: String
    /// The path, without the query (libmicrohttpd keeps that apart, as arguments).
    public let path: String
    /// The body, up to `maxBody` bytes.
    public internal(set) var body: [UInt8] = []
    /// More than `maxBody` bytes came; the rest was read and dropped.
    public internal(set) var bodyTooLarge = false
    let maxBody: Int
    var answered = false
    /// Set when the handler answered `.later`: its connection is suspended until it is given.
    var later: HTTPLaterAnswer?

    init(connection: OpaquePointer, method: String, path: String, maxBody: Int) {
        self.connection = connection
        self.method = method
        self.path = path
        self.maxBody = maxBody
    }

    func take(_ bytes: UnsafeRawBufferPointer) {
        guard !bodyTooLarge else { return }
        if body.count + bytes.count > maxBody {
            bodyTooLarge = true
            body = []
        } else {
            body.append(contentsOf: bytes)
        }
    }

    public func header(_ name: String) -> String? { value(.HEADER_KIND, name) }
    /// A query argument, percent-decoded.
    public func argument(_ name: String) -> String? { value(.GET_ARGUMENT_KIND, name) }
    public func cookie(_ name: String) -> String? { value(.COOKIE_KIND, name) }

    private func value(_ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }
}

/// What a handler answers: a whole body, or an event stream that stays open.
public enum HTTPAnswer {
    case body(status: Int, contentType: String, bytes: [UInt8], headers: [(String, String)] = [])
    case stream(HTTPEventStream, headers: [(String, String)] = [])
    /// Not yet: the request waits (its connection suspended) until the owner calls
    /// `HTTPLaterAnswer.answer(_:)` with a `.body`.
    case later(HTTPLaterAnswer)
}

/// An answer the owner gives later (a request that must wait for an earlier one).
public final class HTTPLaterAnswer {
    var connection: OpaquePointer?
    weak var server: HTTPServer?
    /// The answer, once `answer(_:)` gave it.
    public private(set) var given: HTTPAnswer?

    public init() {}

    /// Gives the answer and resumes the connection (`MHD_resume_connection`): libmicrohttpd
    /// calls the access handler again, which sends it. Once; later calls do nothing.
    public func answer(_ answer: HTTPAnswer) {
        guard given == nil else { return }
        given = answer
        if let connection {
            MHD_resume_connection(connection)
            server?.resumed = true
        }
    }
}

/// What the server asks of its owner.
public protocol HTTPHandler: AnyObject {
    /// A request with its whole body: what to answer.
    func answer(_ request: HTTPRequest) -> HTTPAnswer
    /// An event stream's answer was queued: its `hangupDescriptor` is known now.
    func streamStarted(_ stream: HTTPEventStream)
    /// An event stream ended: its client went away, it was closed, or the server stopped.
    func streamEnded(_ stream: HTTPEventStream)
}
