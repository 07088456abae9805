/// Small helpers that append JSON fragments to a byte buffer: replies and log records are written
/// with these straight into reusable buffers, never through `String`.
public enum ReplyWriter {
    /// Appends `"id":<verbatim bytes>,` when the request carried an id.
    public static func id(_ bytes: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        guard let bytes else { return }
        out.append(#""id":"#)
        out.append(bytes)
        out.append(0x2C)
    }

    /// A whole error reply line: `{"id":...,"error":{"code":"...","message":"..."}}\n`.
    public static func error(
        _ code: ErrorCode, _ message: String, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer
    ) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""error":{"code":""#)
        out.append(code.name)
        out.append(#"","message":"#)
        out.append(jsonString: message)
        out.append("}}\n")
    }

    /// Appends a grid's path as a JSON string (`"0/1"`), digit by digit from the tree.
    public static func gridPath(_ tree: GridTree, _ index: Int, _ out: ByteBuffer) {
        var path: [UInt8] = []
        tree.appendPath(of: index, to: &path)
        out.append(0x22)
        out.append(path)
        out.append(0x22)
    }

    /// Appends `[x, y, w, h]`.
    public static func rect(_ r: Rect, _ out: ByteBuffer) {
        out.append(0x5B)
        out.append(number: r.x)
        out.append(0x2C)
        out.append(number: r.y)
        out.append(0x2C)
        out.append(number: r.width)
        out.append(0x2C)
        out.append(number: r.height)
        out.append(0x5D)
    }
}

extension ReplyWriter {
    /// A whole tap or hit reply line from its decision and `active`'s fragments:
    /// `{"id":..,"seq":42,"layout":"home","generation":3,"hit":{"path":..},"handler":..,"outcome":..}\n`
    /// (no `seq` for a hit-test; `reason` for denials and failures; `"logged":false` when the
    /// event log did not take the record). `inArray`: without the `\n`, as an element of a touch
    /// op's `taps`.
    public static func tap(
        _ decision: TapDecision, id: UnsafeBufferPointer<UInt8>?, active: ActiveConfig, hit: UnsafeBufferPointer<UInt8>?,
        tail: UnsafeBufferPointer<UInt8>, logged: Bool, inArray: Bool = false, into out: ByteBuffer
    ) {
        out.append(0x7B)
        self.id(id, out)
        if decision.seq != 0 {
            out.append(#""seq":"#)
            out.append(uint: decision.seq)
            out.append(0x2C)
        }
        out.append(active.replyHeads[decision.layout])
        if let hit {
            out.append(#"{"path":"#)
            out.append(hit)
            out.append(0x7D)
        } else {
            out.append("null")
        }
        out.append(tail)
        // A plain tap on a slider is a `release` (docs/touch.md "Sliders"): it says so too.
        if decision.fromContact || decision.tapClass != .tap {
            out.append(#","class":""#)
            out.append(decision.tapClass.name)
            out.append(0x22)
        }
        if let value = decision.value {
            out.append(#","value":"#)
            out.append(number: value)
        }
        if let toggled = decision.toggledActive { out.append(toggled ? #","active":true"# : #","active":false"#) }
        if let reason = decision.reason {
            out.append(#","reason":"#)
            out.append(jsonString: reason)
        }
        if !logged { notLogged(into: out) }
        out.append(0x7D)
        if !inArray { out.append(0x0A) }
    }

    /// `,"logged":false`: the member of a reply whose record the event log did not take, before
    /// the reply's closing `}` (`EventLog` inserts it into replies already written).
    public static func notLogged(into out: ByteBuffer) { out.append(#","logged":false"#) }

    /// `{"id":..,"ok":true,"taps":[` of a touch op's reply: the tap replies it carries follow
    /// (each `ReplyWriter.tap` without its `\n`, separated by `,`), then `touchEnd`.
    public static func touchStart(id: UnsafeBufferPointer<UInt8>?, into out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"taps":["#)
    }

    /// `]}\n` after `touchStart`.
    public static func touchEnd(into out: ByteBuffer) { out.append("]}\n") }
}
