import TapgridCore

/// Small helpers that append JSON fragments to a byte buffer: replies and log records are written
/// with these straight into reusable buffers, never through `String`.
enum ReplyWriter {
    @inline(__always)
    static func raw(_ s: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends `"id":<verbatim bytes>,` when the request carried an id.
    static func id(_ bytes: UnsafeBufferPointer<UInt8>?, _ out: inout [UInt8]) {
        guard let bytes else { return }
        raw(#""id":"#, &out)
        out.append(contentsOf: bytes)
        out.append(0x2C)
    }

    /// A whole error reply line: `{"id":...,"error":{"code":"...","message":"..."}}\n`.
    static func error(
        _ code: ErrorCode, _ message: String, id: UnsafeBufferPointer<UInt8>?, _ out: inout [UInt8]
    ) {
        out.append(0x7B)
        self.id(id, &out)
        raw(#""error":{"code":""#, &out)
        raw(code.name, &out)
        raw(#"","message":"#, &out)
        JSONWriter.appendString(message, to: &out)
        raw("}}\n", &out)
    }

    static func uint(_ value: UInt64, _ out: inout [UInt8]) {
        JSONWriter.appendInt(Int64(truncatingIfNeeded: value), to: &out)
    }

    /// Appends a grid's path as a JSON string (`"0/1"`), digit by digit from the tree.
    static func gridPath(_ tree: GridTree, _ index: Int, _ out: inout [UInt8]) {
        out.append(0x22)
        tree.appendPath(of: index, to: &out)
        out.append(0x22)
    }

    /// Appends `[x, y, w, h]`.
    static func rect(_ r: Rect, _ out: inout [UInt8]) {
        out.append(0x5B)
        JSONWriter.appendNumber(r.x, to: &out)
        out.append(0x2C)
        JSONWriter.appendNumber(r.y, to: &out)
        out.append(0x2C)
        JSONWriter.appendNumber(r.width, to: &out)
        out.append(0x2C)
        JSONWriter.appendNumber(r.height, to: &out)
        out.append(0x5D)
    }
}
