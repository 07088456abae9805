/// The JSON the panel serves and streams (docs/panel.md "Browser panel"): the `/layout` object,
/// `state` and `tap` events, and Server-Sent Events framing. Built from the engine's own
/// resolved rects, so the page draws exactly what is hit-tested.
public enum PanelDocuments {
    /// `{"layout", "generation", "width", "height", "direction", "grids": [...]}`: each hittable
    /// grid of `layout` in pre-order with its path, name, rect, tag, state and the `label` the
    /// page draws in it (``label(name:state:)``).
    /// - Parameter screen: the screen's state (docs/screen.md), nil without `screen` in the config.
    public static func layout(
        _ active: ActiveConfig, layout index: Int, screen: ScreenState? = nil, cells: (_ grid: Int) -> CellState
    ) -> [UInt8] {
        let layout = active.layouts[index]
        let tree = layout.tree
        let out = ByteBuffer(capacity: 256 + 160 * tree.nodes.count)
        out.append(#"{"layout":"#)
        out.append(jsonString: layout.name)
        out.append(#","generation":"#)
        out.append(uint: active.generation)
        out.append(#","width":"#)
        out.append(number: layout.frame.width)
        out.append(#","height":"#)
        out.append(number: layout.frame.height)
        out.append(#","direction":"#)
        out.append(layout.frame.direction == .rtl ? #""rtl""# : #""ltr""#)
        if let screen {
            out.append(#","screen":"#)
            out.append(jsonString: screen.name.description)
        }
        out.append(#","grids":["#)
        var first = true
        for grid in tree.preorder() where tree.nodes[grid].hittable {
            if !first { out.append(0x2C) }
            first = false
            out.append(#"{"path":"#)
            ReplyWriter.gridPath(tree, grid, out)
            let info = tree.info(of: grid)
            out.append(#","name":"#)
            if let name = info?.name { out.append(jsonString: name) } else { out.append("null") }
            out.append(#","rect":"#)
            ReplyWriter.rect(layout.resolved.rects[grid], out)
            out.append(#","tag":"#)
            if let tag = info?.tag, tag != 0 { out.append(int: tag) } else { out.append("null") }
            let state = cells(grid)
            var fields: [UInt8] = [0x2C]
            state.appendFields(to: &fields)
            out.append(fields)
            out.append(#","label":"#)
            if let label = label(name: info?.name, state: state) { out.append(jsonString: label) } else { out.append("null") }
            out.append(0x7D)
        }
        out.append("]}")
        return Array(out.bytes)
    }

    /// What the page draws in a grid (docs/panel.md "Browser panel", `GET /layout`'s `label`): its
    /// state's `text`, else its `name`, else nothing (nil: an empty cell). Decided here, not in the
    /// page, so a test can hold a config's layouts to it.
    public static func label(name: String?, state: CellState) -> String? { state.text ?? name }

    /// A `state` event's data: `{"layout", "path", "text", "active", "value", "enabled"}`.
    public static func state(layout: String, path: String, _ state: CellState) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendStatic(#"{"layout":"#, to: &out)
        JSONWriter.appendString(layout, to: &out)
        JSONWriter.appendStatic(#","path":"#, to: &out)
        JSONWriter.appendString(path, to: &out)
        out.append(0x2C)
        state.appendFields(to: &out)
        out.append(0x7D)
        return out
    }

    /// A `tap` event's data: the tap's reply as a socket client gets it, with `class` (`tap`
    /// for a plain tap) and `source` (`"socket"` when none is given).
    public static func tap(_ decision: TapDecision, active: ActiveConfig, source: [UInt8]?, into out: ByteBuffer) {
        let hit = decision.target.map { active.hit(layout: decision.layout, slot: $0.info) }
        let tail = active.tail(handler: decision.handler, outcome: decision.outcome)
        ReplyWriter.tap(decision, id: nil, active: active, hit: hit, tail: tail, logged: true, inArray: true, into: out)
        out.removeLast()  // the closing `}`
        if !decision.fromContact { out.append(#","class":"tap""#) }
        out.append(#","source":"#)
        if let source { out.append(source) } else { out.append(#""socket""#) }
        out.append(0x7D)
    }

    /// `event: <name>\ndata: <json>\n\n`: one Server-Sent Event (the JSON is compact, one line).
    public static func event(_ name: StaticString, data: UnsafeRawBufferPointer, into out: ByteBuffer) {
        out.append("event: ")
        out.append(name)
        out.append("\ndata: ")
        out.append(data)
        out.append("\n\n")
    }

    /// A `screen` event's data, `{"state":"off"}`: the page darkens (`dim`) or goes black (`off`).
    public static func screen(_ state: ScreenState) -> [UInt8] {
        var out = JSONObjectWriter(.compact)
        out.string("state", state.name.description)
        return out.bytes
    }

    /// A `skipped` event's data, `{"taps":N}`: the taps a stream that fell behind did not get.
    public static func skipped(taps: Int) -> [UInt8] {
        var out = JSONObjectWriter(.compact)
        out.int("taps", Int64(taps))
        return out.bytes
    }

    /// The HTTP status of a `POST /contact` or `/tap` answer: 200 for a reply, and for an error
    /// reply the status its code calls for (docs/panel.md), keyed by the code itself.
    public static func httpStatus(for error: ErrorCode?) -> Int {
        switch error {
        case nil: return 200
        case .unknownLayout?, .unknownGrid?: return 404
        case .forbidden?: return 403
        case .tooManyClients?: return 503
        case .parseError?, .badRequest?, .unknownOp?, .lineTooLong?, .configError?: return 400
        }
    }

    /// The first bytes of every stream: reconnect after 1 s (the default 3 s is long on a wall panel).
    public static let streamStart: StaticString = "retry: 1000\n\n"
    /// The heartbeat: a comment, which `EventSource` ignores, and whose write finds dead streams.
    public static let heartbeat: StaticString = ": heartbeat\n\n"

    /// The page with `{{title}}` replaced by `title`, HTML-escaped.
    public static func page(_ template: [UInt8], title: String) -> [UInt8] {
        var escaped: [UInt8] = []
        for byte in title.utf8 {
            switch byte {
            case 0x26: escaped += Array("&amp;".utf8)
            case 0x3C: escaped += Array("&lt;".utf8)
            case 0x3E: escaped += Array("&gt;".utf8)
            case 0x22: escaped += Array("&quot;".utf8)
            case 0x27: escaped += Array("&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        let placeholder = Array("{{title}}".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(template.count + escaped.count)
        var index = 0
        while index < template.count {
            if template[index] == 0x7B, index + placeholder.count <= template.count,
               template[index..<(index + placeholder.count)].elementsEqual(placeholder) {
                out += escaped
                index += placeholder.count
            } else {
                out.append(template[index])
                index += 1
            }
        }
        return out
    }
}
