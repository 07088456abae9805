extension Request.Op {
    /// The `"op"` as the protocol spells it (what `RequestScanner` reads back).
    public var name: String {
        switch self {
        case .tap: return "tap"
        case .hit: return "hit"
        case .status: return "status"
        case .reload: return "reload"
        case .use: return "use"
        case .layouts: return "layouts"
        case .down: return "down"
        case .move: return "move"
        case .up: return "up"
        case .cancel: return "cancel"
        case .set: return "set"
        case .load: return "load"
        case .unload: return "unload"
        case .unknown(let name): return name
        }
    }
}

extension Request {
    /// The request as one compact line without its `\n`, written by `JSONObjectWriter`:
    /// `{"op":"tap","x":120,"y":340,"layout":"home"}`, members in that order (then `slot`), each
    /// only when set. The `id` range points into a line read, so it is not written.
    public var json: [UInt8] {
        var object = JSONObjectWriter(.compact)
        object.string("op", op.name)
        if let x { object.number("x", x) }
        if let y { object.number("y", y) }
        if let layout { object.string("layout", layout) }
        if let slot { object.int("slot", slot) }
        return object.bytes
    }

    /// `json` and its `\n`: a line to send.
    public var line: [UInt8] { json + [0x0A] }
}

extension ControlRequest.Set {
    /// The request as one compact line without its `\n`, written by `JSONObjectWriter`:
    /// `{"op":"set","layout":"home","grid":"0/1","text":"42 %","active":true,"value":42,"enabled":null}`,
    /// members in that order; `layout` only when named, a key kept left out, a key cleared null.
    /// `ControlRequest.set` reads it back.
    public var json: [UInt8] {
        var object = JSONObjectWriter(.compact)
        object.string("op", Request.Op.set.name)
        if let layout { object.string("layout", layout) }
        object.string("grid", grid)
        if let text = change.text.given { object.string("text", text) }
        if let active = change.active.given { object.value("active", active.map(JSONValue.bool) ?? .null) }
        if let value = change.valueJSON.given {
            if let value { object.json("value", value) } else { object.null("value") }
        }
        if let enabled = change.enabled.given { object.value("enabled", enabled.map(JSONValue.bool) ?? .null) }
        return object.bytes
    }

    /// `json` and its `\n`: a line to send.
    public var line: [UInt8] { json + [0x0A] }
}

extension CellField {
    /// What a request carries for the key: nil when it is kept (left out), `.some(nil)` when it is
    /// cleared (`null`), else the new value.
    var given: Value?? {
        switch self {
        case .keep: return nil
        case .clear: return .some(nil)
        case .set(let value): return value
        }
    }
}
