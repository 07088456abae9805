/// What became of a tap (contract, "Socket protocol": `outcome`).
enum Outcome: Int, CaseIterable {
    case dispatched, miss, unrouted, denied, busy, failed, suppressed, checked

    /// The outcome's JSON name, as static bytes (no String on the hot path).
    var name: StaticString {
        switch self {
        case .dispatched: return "dispatched"
        case .miss: return "miss"
        case .unrouted: return "unrouted"
        case .denied: return "denied"
        case .busy: return "busy"
        case .failed: return "failed"
        case .suppressed: return "suppressed"
        case .checked: return "checked"
        }
    }
}

/// Error codes of the socket protocol.
enum ErrorCode {
    case parseError, badRequest, unknownOp, unknownLayout, forbidden, lineTooLong, tooManyClients, configError

    /// The code's JSON name, as static bytes.
    var name: StaticString {
        switch self {
        case .parseError: return "parse_error"
        case .badRequest: return "bad_request"
        case .unknownOp: return "unknown_op"
        case .unknownLayout: return "unknown_layout"
        case .forbidden: return "forbidden"
        case .lineTooLong: return "line_too_long"
        case .tooManyClients: return "too_many_clients"
        case .configError: return "config_error"
        }
    }
}
