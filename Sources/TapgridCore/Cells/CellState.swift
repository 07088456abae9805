/// What one grid shows and its handlers read (docs/cell-state.md "Cell state"): a label, whether it is on,
/// a value, and whether it takes taps. Every field starts null; a grid whose state is all null
/// is not stored at all.
public struct CellState: Sendable, Equatable {
    /// At most `maxTextBytes` of UTF-8.
    public var text: String?
    /// A toggle's or a light's state; null counts as false where a toggle flips it.
    public var active: Bool?
    /// Any JSON, kept as its compact text (at most `maxValueBytes`), written into replies,
    /// records and `TAPGRID_VALUE` as is.
    public var valueJSON: String?
    /// False: taps on the grid get outcome `disabled`. Null means true.
    public var enabled: Bool?

    public static let maxTextBytes = 256
    public static let maxValueBytes = 4096

    public init(text: String? = nil, active: Bool? = nil, valueJSON: String? = nil, enabled: Bool? = nil) {
        self.text = text
        self.active = active
        self.valueJSON = valueJSON
        self.enabled = enabled
    }

    /// All four are null (such a state is dropped rather than kept).
    public var isEmpty: Bool { text == nil && active == nil && valueJSON == nil && enabled == nil }

    /// Taps on the grid are refused (`enabled` is false).
    public var isDisabled: Bool { enabled == false }

    /// Appends `"text":..,"active":..,"value":..,"enabled":..` (all four, nulls included), as a
    /// state record and `layouts` with `state` carry them.
    public func appendFields(to out: inout [UInt8]) {
        JSONWriter.appendStatic(#""text":"#, to: &out)
        if let text { JSONWriter.appendString(text, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
        JSONWriter.appendStatic(#","active":"#, to: &out)
        Self.appendBool(active, to: &out)
        JSONWriter.appendStatic(#","value":"#, to: &out)
        out += (valueJSON ?? "null").utf8
        JSONWriter.appendStatic(#","enabled":"#, to: &out)
        Self.appendBool(enabled, to: &out)
    }

    /// `{"text":..,"active":..,"value":..,"enabled":..}`: the state alone, as the fleet's
    /// retained state messages carry it.
    public var jsonObject: [UInt8] {
        var out: [UInt8] = [0x7B]
        appendFields(to: &out)
        out.append(0x7D)
        return out
    }

    static func appendBool(_ value: Bool?, to out: inout [UInt8]) {
        switch value {
        case true?: JSONWriter.appendStatic("true", to: &out)
        case false?: JSONWriter.appendStatic("false", to: &out)
        case nil: JSONWriter.appendStatic("null", to: &out)
        }
    }
}

/// One key of a `set`: left out (kept), `null` (cleared), or a new value.
public enum CellField<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case clear
    case set(Value)

    /// `current` after this change.
    func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: return current
        case .clear: return nil
        case .set(let value): return value
        }
    }
}

/// What a `set` changes (every key may be left out).
public struct CellChange: Sendable, Equatable {
    public var text: CellField<String> = .keep
    public var active: CellField<Bool> = .keep
    /// Compact JSON text of the new value.
    public var valueJSON: CellField<String> = .keep
    public var enabled: CellField<Bool> = .keep

    public init(text: CellField<String> = .keep, active: CellField<Bool> = .keep, valueJSON: CellField<String> = .keep,
                enabled: CellField<Bool> = .keep) {
        self.text = text
        self.active = active
        self.valueJSON = valueJSON
        self.enabled = enabled
    }

    /// `state` with this change made.
    public func applied(to state: CellState) -> CellState {
        CellState(
            text: text.applied(to: state.text), active: active.applied(to: state.active),
            valueJSON: valueJSON.applied(to: state.valueJSON), enabled: enabled.applied(to: state.enabled))
    }
}
