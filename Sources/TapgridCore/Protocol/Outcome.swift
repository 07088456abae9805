/// An enum whose cases have fixed JSON names (outcomes, tap classes, contact phases).
public protocol NamedCase: CaseIterable {
    /// The case's JSON name, as static bytes (no String on the tap path).
    var name: StaticString { get }
}

extension NamedCase {
    /// The case named `text`, nil for any other string (reading event logs and replies).
    public init?(name text: String) {
        guard let found = Self.allCases.first(where: { $0.name.description == text }) else { return nil }
        self = found
    }
}

/// What became of a tap: the reply's and the event log's `outcome`.
public enum Outcome: Int, NamedCase, Sendable {
    case dispatched, miss, unrouted, denied, busy, failed, suppressed, checked
    /// The grid's state says `"enabled": false`: recorded and counted, never routed.
    case disabled

    /// The outcome's JSON name, as static bytes (no String on the tap path).
    public var name: StaticString {
        switch self {
        case .dispatched: return "dispatched"
        case .miss: return "miss"
        case .unrouted: return "unrouted"
        case .denied: return "denied"
        case .busy: return "busy"
        case .failed: return "failed"
        case .suppressed: return "suppressed"
        case .checked: return "checked"
        case .disabled: return "disabled"
        }
    }
}

/// The error codes of the socket protocol.
public enum ErrorCode: NamedCase, Sendable {
    case parseError, badRequest, unknownOp, unknownLayout, unknownGrid, forbidden, lineTooLong, tooManyClients, configError

    /// The code's JSON name, as static bytes.
    public var name: StaticString {
        switch self {
        case .parseError: return "parse_error"
        case .badRequest: return "bad_request"
        case .unknownOp: return "unknown_op"
        case .unknownLayout: return "unknown_layout"
        case .unknownGrid: return "unknown_grid"
        case .forbidden: return "forbidden"
        case .lineTooLong: return "line_too_long"
        case .tooManyClients: return "too_many_clients"
        case .configError: return "config_error"
        }
    }
}
