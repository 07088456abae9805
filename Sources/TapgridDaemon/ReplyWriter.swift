import TapgridCore

/// Small helpers that append JSON fragments to a byte buffer: replies and log records are written
/// with these straight into reusable buffers, never through `String`.
enum ReplyWriter {
    /// Appends `"id":<verbatim bytes>,` when the request carried an id.
    static func id(_ bytes: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        guard let bytes else { return }
        out.append(#""id":"#)
        out.append(bytes)
        out.append(0x2C)
    }

    /// A whole error reply line: `{"id":...,"error":{"code":"...","message":"..."}}\n`.
    static func error(
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
    static func gridPath(_ tree: GridTree, _ index: Int, _ out: ByteBuffer) {
        var path: [UInt8] = []
        tree.appendPath(of: index, to: &path)
        out.append(0x22)
        out.append(path)
        out.append(0x22)
    }

    /// Appends `[x, y, w, h]`.
    static func rect(_ r: Rect, _ out: ByteBuffer) {
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
