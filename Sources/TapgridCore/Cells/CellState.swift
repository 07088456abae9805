/// What one grid shows and its handlers read (docs/cell-state.md "Cell state"): a label, whether it is on,
/// a value, whether it takes taps, and the icon and style it shows instead of its own (docs/panel.md
/// "What a cell shows"). Every field starts null; a grid whose state is all null is not stored at all.
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
    /// `mdi:NAME` (at most `maxTextBytes`): shown instead of the grid's own `icon`.
    public var icon: String?
    /// The name of one of the config's `styles`: replaces the grid's own `style`, laid over `default`.
    public var style: String?

    public static let maxTextBytes = 256
    public static let maxValueBytes = 4096

    public init(text: String? = nil, active: Bool? = nil, valueJSON: String? = nil, enabled: Bool? = nil,
                icon: String? = nil, style: String? = nil) {
        self.text = text
        self.active = active
        self.valueJSON = valueJSON
        self.enabled = enabled
        self.icon = icon
        self.style = style
    }

    /// All six are null (such a state is dropped rather than kept).
    public var isEmpty: Bool { text == nil && active == nil && valueJSON == nil && enabled == nil && icon == nil && style == nil }

    /// Taps on the grid are refused (`enabled` is false).
    public var isDisabled: Bool { enabled == false }

    /// Appends `"text":..,"active":..,"value":..,"enabled":..` (all four, nulls included), then
    /// `"icon":..` and `"style":..` each only when set (so a state without them is written as
    /// before they existed; a reader takes a missing one as null), as a state record and
    /// `layouts` with `state` carry them.
    public func appendFields(to out: inout [UInt8]) {
        JSONWriter.appendStatic(#""text":"#, to: &out)
        if let text { JSONWriter.appendString(text, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
        JSONWriter.appendStatic(#","active":"#, to: &out)
        Self.appendBool(active, to: &out)
        JSONWriter.appendStatic(#","value":"#, to: &out)
        out += (valueJSON ?? "null").utf8
        JSONWriter.appendStatic(#","enabled":"#, to: &out)
        Self.appendBool(enabled, to: &out)
        if let icon {
            JSONWriter.appendStatic(#","icon":"#, to: &out)
            JSONWriter.appendString(icon, to: &out)
        }
        if let style {
            JSONWriter.appendStatic(#","style":"#, to: &out)
            JSONWriter.appendString(style, to: &out)
        }
    }

    /// `{"text":..,"active":..,"value":..,"enabled":..}` (and `icon`, `style` when set): the
    /// state alone, as the fleet's retained state messages carry it.
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

    /// Makes this change to `field` in place.
    /// - Returns: whether that changed it.
    func apply(to field: inout Value?) -> Bool {
        switch self {
        case .keep: return false
        case .clear:
            guard field != nil else { return false }
            field = nil
        case .set(let value):
            guard field != value else { return false }
            field = value
        }
        return true
    }
}

/// What a `set` changes (every key may be left out).
public struct CellChange: Sendable, Equatable {
    public var text: CellField<String> = .keep
    public var active: CellField<Bool> = .keep
    /// Compact JSON text of the new value.
    public var valueJSON: CellField<String> = .keep
    public var enabled: CellField<Bool> = .keep
    public var icon: CellField<String> = .keep
    public var style: CellField<String> = .keep

    public init(text: CellField<String> = .keep, active: CellField<Bool> = .keep, valueJSON: CellField<String> = .keep,
                enabled: CellField<Bool> = .keep, icon: CellField<String> = .keep, style: CellField<String> = .keep) {
        self.text = text
        self.active = active
        self.valueJSON = valueJSON
        self.enabled = enabled
        self.icon = icon
        self.style = style
    }

    /// Makes this change to `state` in place (a `set` on the daemon's own copy, not a copy of it).
    /// - Returns: whether anything changed.
    public func apply(to state: inout CellState) -> Bool {
        var changed = text.apply(to: &state.text)
        changed = active.apply(to: &state.active) || changed
        changed = valueJSON.apply(to: &state.valueJSON) || changed
        changed = enabled.apply(to: &state.enabled) || changed
        changed = icon.apply(to: &state.icon) || changed
        changed = style.apply(to: &state.style) || changed
        return changed
    }
}
