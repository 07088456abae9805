/// One socket request, as read from one line by `RequestScanner`.
public struct Request: Sendable, Equatable {
    public enum Op: Sendable, Equatable {
        case tap, hit, status, reload, use, layouts
        /// Touch contacts: a finger touches, moves, lifts, or the contact is void.
        case down, move, up, cancel
        /// Cell state and pushed layouts: read from the line's parsed JSON (`ControlRequest`).
        case set, load, unload
        /// The screen (docs/screen.md): wake it, or set its state (`"state"`, read from the line's parsed JSON).
        case wake, screen
        case unknown(String)
    }

    /// The operation; an absent `"op"` means `.tap`.
    public var op: Op
    /// `"x"`, when present (always a finite number).
    public var x: Double?
    /// `"y"`, when present (always a finite number).
    public var y: Double?
    /// `"layout"`; nil when absent or JSON null.
    public var layout: String?
    /// `"slot"`: the contact's number (touch ops); nil when absent or null.
    public var slot: Int?
    /// Byte range of the `"id"` value inside the line (without surrounding whitespace), to echo verbatim.
    public var id: Range<Int>?

    public init(op: Op = .tap, x: Double? = nil, y: Double? = nil, layout: String? = nil, id: Range<Int>? = nil) {
        self.op = op
        self.x = x
        self.y = y
        self.layout = layout
        self.id = id
    }
}

/// Why a request line was refused.
public enum RequestError: Error, Sendable, Equatable {
    /// Not strict JSON, invalid UTF-8, a lone surrogate, nesting too deep: code `parse_error`.
    case parseError(String)
    /// Strict JSON of the wrong shape (not an object, a duplicate key, a field of the wrong type):
    /// code `bad_request`.
    case badRequest(String)

    public var code: String { errorCode.name.description }

    /// The reply's error code.
    public var errorCode: ErrorCode {
        switch self {
        case .parseError: return .parseError
        case .badRequest: return .badRequest
        }
    }

    public var message: String {
        switch self {
        case .parseError(let m), .badRequest(let m): return m
        }
    }
}

/// A refused request: the error, and for a `bad_request` the byte range of the request's `"id"` value
/// when the line had one (the reply echoes it). `id` is always nil for a `parse_error`: an id read
/// from text that is not JSON is not trusted. With a duplicate `"id"`, the first one is reported.
public struct RequestFailure: Error, Sendable, Equatable {
    public var error: RequestError
    public var id: Range<Int>?

    public init(_ error: RequestError, id: Range<Int>? = nil) {
        self.error = error
        self.id = id
    }

    public var code: String { error.code }
    public var message: String { error.message }
}

