/// The JSON the panel serves and streams (docs/panel.md "Browser panel"): the `/layout` object,
/// `state` and `tap` events, and Server-Sent Events framing. Built from the engine's own
/// resolved rects, so the page draws exactly what is hit-tested.
public enum PanelDocuments {
    /// `{"layout", "generation", "width", "height", "direction", "grids": [...]}`: each hittable
    /// grid of `layout` in pre-order with its path, name, rect, tag, state and what it shows
    /// (``CellLook``: `label`, `icon`, `style`; docs/panel.md "What a cell shows").
    /// - Parameter screen: the screen's state (docs/screen.md), nil without `screen` in the config.
    /// - Parameter icons: the icon set the daemon read (nil: none; every `icon` is then null).
    ///   The top-level `icons` holds the outline of each icon a grid shows, by `mdi:NAME`, with
    ///   the font's `iconUnitsPerEm` and `iconAscent`; all three are left out when no grid shows one.
    public static func layout(
        _ active: ActiveConfig, layout index: Int, screen: ScreenState? = nil, icons: IconSet? = nil,
        cells: (_ grid: Int) -> CellState
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
        var used: [String: String?] = [:]
        var usedOrder: [String] = []
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
            var fields: [UInt8] = [0x2C]
            if let shown = appendLook(tree, grid: grid, state: cells(grid), styles: active.config.styles, icons: icons, to: &fields),
               used[shown] == nil {
                used[shown] = icons?.outline(shown)
                usedOrder.append(shown)
            }
            if let slider = active.slider(layout: index, grid: grid) { SliderFill.appendMember(slider, to: &fields) }
            out.append(fields)
            out.append(0x7D)
        }
        out.append("]")
        var lines: [UInt8] = []
        for grid in tree.preorder() {
            guard let drawn = tree.borderlines[Int32(grid)] else { continue }
            for segment in BorderlineSegment.segments(drawn, rect: layout.resolved.rects[grid], scale: layout.frame.scale) {
                JSONWriter.appendStatic(lines.isEmpty ? #","borderlines":[{"rect":["# : #",{"rect":["#, to: &lines)
                for (n, v) in [segment.box.x, segment.box.y, segment.box.width, segment.box.height].enumerated() {
                    if n > 0 { lines.append(0x2C) }
                    JSONWriter.appendNumber(v, to: &lines)
                }
                JSONWriter.appendStatic(#"],"color":"#, to: &lines)
                JSONWriter.appendString(segment.color, to: &lines)
                JSONWriter.appendStatic(#","opacity":"#, to: &lines)
                JSONWriter.appendNumber(segment.opacity, to: &lines)
                JSONWriter.appendStatic(#","thick":"#, to: &lines)
                JSONWriter.appendNumber(segment.thick, to: &lines)
                JSONWriter.appendStatic(#","dash":"#, to: &lines)
                JSONWriter.appendNumber(segment.dash, to: &lines)
                lines.append(0x7D)
            }
        }
        if !lines.isEmpty {
            lines.append(0x5D)
            out.append(lines)
        }
        if let icons, !usedOrder.isEmpty {
            var glyphs: [UInt8] = []
            JSONWriter.appendStatic(#","icons":{"#, to: &glyphs)
            for (n, name) in usedOrder.enumerated() {
                if n > 0 { glyphs.append(0x2C) }
                JSONWriter.appendString(name, to: &glyphs)
                glyphs.append(0x3A)
                JSONWriter.appendString(used[name]! ?? "", to: &glyphs)
            }
            JSONWriter.appendStatic(#"},"iconUnitsPerEm":"#, to: &glyphs)
            JSONWriter.appendNumber(icons.unitsPerEm, to: &glyphs)
            JSONWriter.appendStatic(#","iconAscent":"#, to: &glyphs)
            JSONWriter.appendNumber(icons.ascent, to: &glyphs)
            out.append(glyphs)
        }
        out.append(0x7D)
        return Array(out.bytes)
    }

    /// A grid's fields after its path: its state's `text`, `active`, `value`, `enabled`, then
    /// what it shows (``CellLook``): `label`, `icon` (the one drawn: null when the set lacks it)
    /// and `style` (the resolved style object, only the keys set).
    /// - Returns: the icon shown, if any.
    static func appendLook(
        _ tree: GridTree, grid: Int, state: CellState, styles: [String: CellStyle], icons: IconSet?, to out: inout [UInt8]
    ) -> String? {
        let look = CellLook.describe(tree, grid: grid, state: state, styles: styles)
        JSONWriter.appendStatic(#""text":"#, to: &out)
        if let text = state.text { JSONWriter.appendString(text, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
        JSONWriter.appendStatic(#","active":"#, to: &out)
        CellState.appendBool(state.active, to: &out)
        JSONWriter.appendStatic(#","value":"#, to: &out)
        out += (state.valueJSON ?? "null").utf8
        JSONWriter.appendStatic(#","enabled":"#, to: &out)
        CellState.appendBool(state.enabled, to: &out)
        JSONWriter.appendStatic(#","label":"#, to: &out)
        if let label = look.label { JSONWriter.appendString(label, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
        let shown = look.icon.flatMap { icon in icons?.outline(icon) != nil ? icon : nil }
        JSONWriter.appendStatic(#","icon":"#, to: &out)
        if let shown { JSONWriter.appendString(shown, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
        JSONWriter.appendStatic(#","style":"#, to: &out)
        appendStyle(look.style, to: &out)
        return shown
    }

    /// A style object with the keys it sets (colours as `#RRGGBB` or `#RRGGBBAA`).
    public static func appendStyle(_ style: CellStyle, to out: inout [UInt8]) {
        out.append(0x7B)
        var first = true
        func key(_ name: StaticString) {
            if !first { out.append(0x2C) }
            first = false
            out.append(0x22)
            JSONWriter.appendStatic(name, to: &out)
            JSONWriter.appendStatic(#"":"#, to: &out)
        }
        func colour(_ name: StaticString, _ color: CellColor?) {
            guard let color else { return }
            key(name)
            JSONWriter.appendString(color.hex, to: &out)
        }
        func number(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            key(name)
            JSONWriter.appendNumber(value, to: &out)
        }
        colour("background", style.background)
        colour("color", style.color)
        colour("activeBackground", style.activeBackground)
        colour("activeColor", style.activeColor)
        if style.border.color != nil || style.border.thick != nil {
            key("border")
            out.append(0x7B)
            if let color = style.border.color {
                JSONWriter.appendStatic(#""color":"#, to: &out)
                JSONWriter.appendString(color.hex, to: &out)
            }
            if let thick = style.border.thick {
                if style.border.color != nil { out.append(0x2C) }
                JSONWriter.appendStatic(#""thick":"#, to: &out)
                JSONWriter.appendNumber(thick, to: &out)
            }
            out.append(0x7D)
        }
        number("radius", style.radius)
        number("fontSize", style.fontSize)
        number("iconSize", style.iconSize)
        out.append(0x7D)
    }

    /// What the page draws in a grid (docs/panel.md "Browser panel", `GET /layout`'s `label`): its
    /// state's `text`, else its `name`, else nothing (nil: an empty cell). Decided here, not in the
    /// page, so a test can hold a config's layouts to it.
    public static func label(name: String?, state: CellState) -> String? { state.text ?? name }

    /// A `state` event's data: `{"layout", "path"}` and the grid's fields as `/layout` gives
    /// them (`text`, `active`, `value`, `enabled`, `label`, `icon`, `style`), with `glyph`, the
    /// shown icon's outline, when it shows one (a page that has not drawn that icon yet).
    public static func state(
        _ active: ActiveConfig, layout index: Int, grid: Int, _ state: CellState, icons: IconSet? = nil
    ) -> [UInt8] {
        let loaded = active.layouts[index]
        var out: [UInt8] = []
        JSONWriter.appendStatic(#"{"layout":"#, to: &out)
        JSONWriter.appendString(loaded.name, to: &out)
        JSONWriter.appendStatic(#","path":"#, to: &out)
        JSONWriter.appendString(loaded.tree.path(of: grid), to: &out)
        out.append(0x2C)
        if let shown = appendLook(loaded.tree, grid: grid, state: state, styles: active.config.styles, icons: icons, to: &out),
           let glyph = icons?.outline(shown) {
            JSONWriter.appendStatic(#","glyph":"#, to: &out)
            JSONWriter.appendString(glyph, to: &out)
        }
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
        // The reply has a class already for a contact's taps and a plain tap on a slider (`release`).
        if !decision.fromContact && decision.tapClass == .tap { out.append(#","class":"tap""#) }
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
