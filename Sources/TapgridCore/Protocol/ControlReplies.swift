/// The replies of the control ops `layouts`, `use` and `reload` (`status` is `StatusReply`'s):
/// each a whole line, so the daemon writes no JSON of its own.
extension ReplyWriter {
    /// Every layout of `active` with its size, whether it is `current`, and every grid's path and
    /// rect in pre-order (name and tag when set). With `cells` (`"state": true`), each grid that
    /// has state also carries `text`, `active`, `value` and `enabled`, a toggle grid `"toggle":true`,
    /// and a slider its `"slider"` (``SliderFill/appendMember(_:to:)``).
    public static func layouts(
        _ active: ActiveConfig, current: Int, cells: ((_ layout: Int, _ grid: Int) -> CellState)? = nil,
        id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer
    ) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""layouts":["#)
        for (index, layout) in active.layouts.enumerated() {
            if index > 0 { out.append(0x2C) }
            out.append(#"{"name":"#)
            out.append(jsonString: layout.name)
            out.append(#","width":"#)
            out.append(number: layout.frame.width)
            out.append(#","height":"#)
            out.append(number: layout.frame.height)
            out.append(#","current":"#)
            out.append(index == current ? "true" : "false")
            out.append(#","grids":["#)
            for (k, grid) in layout.tree.preorder().enumerated() {
                if k > 0 { out.append(0x2C) }
                out.append(#"{"path":"#)
                gridPath(layout.tree, grid, out)
                out.append(#","rect":"#)
                rect(layout.resolved.rects[grid], out)
                if let info = layout.tree.info(of: grid) {
                    if let name = info.name {
                        out.append(#","name":"#)
                        out.append(jsonString: name)
                    }
                    if info.tag != 0 {
                        out.append(#","tag":"#)
                        out.append(int: info.tag)
                    }
                    if cells != nil && info.toggle { out.append(#","toggle":true"#) }
                }
                if cells != nil, let slider = active.slider(layout: index, grid: grid) {
                    var member: [UInt8] = []
                    SliderFill.appendMember(slider, to: &member)
                    out.append(member)
                }
                if let state = cells?(index, grid), !state.isEmpty {
                    var fields: [UInt8] = [0x2C]
                    state.appendFields(to: &fields)
                    out.append(fields)
                }
                out.append(0x7D)
            }
            out.append("]}")
        }
        out.append("]}\n")
    }

    /// `{"id":..,"ok":true,"layout":"home"}\n`: `use` made `layout` current.
    public static func used(layout: String, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"layout":"#)
        out.append(jsonString: layout)
        out.append("}\n")
    }

    /// `{"id":..,"ok":true,"layout":"home","grid":"0/1"}\n`: a `set` took effect (or changed nothing).
    public static func cellSet(layout: String, path: String, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"layout":"#)
        out.append(jsonString: layout)
        out.append(#","grid":"#)
        out.append(jsonString: path)
        out.append("}\n")
    }

    /// `{"id":..,"ok":true,"generation":5}\n` after a `load` or `unload`, or with
    /// `"unchanged":true` for a definition identical to the one in place.
    public static func loaded(generation: UInt64, unchanged: Bool, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"generation":"#)
        out.append(uint: generation)
        if unchanged { out.append(#","unchanged":true"#) }
        out.append("}\n")
    }

    /// `{"id":..,"ok":true,"generation":4}\n`: a `reload` swapped in `generation`.
    public static func reloaded(generation: UInt64, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"generation":"#)
        out.append(uint: generation)
        out.append("}\n")
    }

    /// `{"id":..,"ok":true,"screen":{"state":"off","since":1765000000.5,"backlight":{...}}}\n`: a
    /// `wake` or `screen` op took effect (or changed nothing); the screen as `status` shows it.
    public static func screen(_ screen: ScreenStatus, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        var object = JSONObjectWriter(.compact)
        object.bool("ok", true)
        object.object("screen") { screen.write(into: &$0) }
        let bytes = object.bytes
        out.append(Array(bytes.dropFirst()))
        out.append(0x0A)
    }
}

/// The screen as `status` and the `wake`/`screen` replies show it (docs/screen.md): its state,
/// since when (wall-clock seconds since the epoch), and its backlight's value or problem.
public struct ScreenStatus: Sendable, Equatable {
    public var state: String
    public var since: Double
    /// The backlight's folder; nil without one.
    public var backlightPath: String?
    /// The value last written; nil before a write succeeded.
    public var backlightValue: Int64?
    /// Why the backlight could not be written; nil while it can.
    public var backlightError: String?

    public init(state: String, since: Double, backlightPath: String? = nil, backlightValue: Int64? = nil, backlightError: String? = nil) {
        self.state = state
        self.since = since
        self.backlightPath = backlightPath
        self.backlightValue = backlightValue
        self.backlightError = backlightError
    }

    /// Its members: `state`, `since`, and `backlight` (`path`, `value`, `error`) or null.
    public func write(into object: inout JSONObjectWriter) {
        object.string("state", state)
        object.number("since", since)
        if let backlightPath {
            object.object("backlight") { backlight in
                backlight.string("path", backlightPath)
                backlight.int("value", backlightValue)
                backlight.string("error", backlightError)
            }
        } else {
            object.null("backlight")
        }
    }

    /// Read back from a reply's or `status`'s `screen` object; nil when it is not one.
    public init?(_ value: JSONValue?) {
        guard let value, case .object = value, let state = value["state"]?.stringValue else { return nil }
        self.state = state
        since = value["since"]?.doubleValue ?? 0
        let backlight = value["backlight"]
        backlightPath = backlight?["path"]?.stringValue
        backlightValue = backlight?["value"]?.int64Value
        backlightError = backlight?["error"]?.stringValue
    }
}
