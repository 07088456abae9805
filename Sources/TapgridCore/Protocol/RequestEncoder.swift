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
        case .wake: return "wake"
        case .screen: return "screen"
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
    /// The request as one compact line without its `\n`:
    /// `{"op":"set","layout":"home","grid":"volume","text":"42 %","active":true,"value":42,"enabled":false}`,
    /// `layout` only when set, then each key the change touches (`null` for one it clears), in that
    /// order (`icon` and `style` last); what `ControlRequest.set` reads back.
    public var json: [UInt8] {
        var object = JSONObjectWriter(.compact)
        object.string("op", Request.Op.set.name)
        if let layout { object.string("layout", layout) }
        object.string("grid", grid)
        switch change.text {
        case .keep: break
        case .clear: object.null("text")
        case .set(let text): object.string("text", text)
        }
        Self.write("active", change.active, to: &object)
        switch change.valueJSON {
        case .keep: break
        case .clear: object.null("value")
        case .set(let text): object.json("value", text)
        }
        Self.write("enabled", change.enabled, to: &object)
        Self.write("icon", change.icon, to: &object)
        Self.write("style", change.style, to: &object)
        return object.bytes
    }

    private static func write(_ key: String, _ field: CellField<Bool>, to object: inout JSONObjectWriter) {
        switch field {
        case .keep: break
        case .clear: object.null(key)
        case .set(let flag): object.bool(key, flag)
        }
    }

    private static func write(_ key: String, _ field: CellField<String>, to object: inout JSONObjectWriter) {
        switch field {
        case .keep: break
        case .clear: object.null(key)
        case .set(let text): object.string(key, text)
        }
    }
}

extension ControlRequest.Load {
    /// `{"op":"load","layout":"promo","definition":{...}}` (the definition as compact JSON), without its `\n`.
    public var json: [UInt8] {
        var object = JSONObjectWriter(.compact)
        object.string("op", Request.Op.load.name)
        object.string("layout", layout)
        object.value("definition", definition)
        return object.bytes
    }
}

extension ScreenState {
    /// `{"op":"screen","state":"off"}`: the `screen` request that sets this state, without its `\n`
    /// (docs/screen.md; `tapgrid screen` sends it, the router reads `state` back).
    public var requestJSON: [UInt8] {
        var object = JSONObjectWriter(.compact)
        object.string("op", Request.Op.screen.name)
        object.string("state", name.description)
        return object.bytes
    }
}

extension ControlRequest {
    /// `{"op":"layouts","state":true}`: every layout with each grid's cell state, without its `\n`.
    public static var layoutsWithStateJSON: [UInt8] {
        var object = JSONObjectWriter(.compact)
        object.string("op", Request.Op.layouts.name)
        object.bool("state", true)
        return object.bytes
    }
}
