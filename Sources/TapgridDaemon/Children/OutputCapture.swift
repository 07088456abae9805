/// Limits on what is kept of a child's output.
public enum OutputLimits {
    /// A longer line is delivered in pieces of at most this many bytes.
    public static let maxLineBytes = 4096
    /// Bytes captured per child (both streams together); the rest is read and discarded after
    /// one `"... output truncated"` line.
    public static let maxCapturedBytes = 64 * 1024
    /// The line delivered once when `maxCapturedBytes` is exceeded.
    public static let truncatedLine = "... output truncated"
}

/// Splits one child's stdout and stderr into lines, with per-line and per-child caps.
/// Lines are appended to `out`; the caller delivers them (so no callback runs while this
/// state is being mutated).
struct OutputCapture {
    /// Partial lines, indexed by `ChildStream.rawValue`.
    private var partial: [[UInt8]] = [[], []]
    private var captured = 0
    private(set) var truncated = false

    /// Feeds bytes read from `stream`, appending finished lines to `lines`.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, stream: ChildStream, into lines: inout [(ChildStream, String)]) {
        if truncated || bytes.isEmpty { return }
        let room = OutputLimits.maxCapturedBytes - captured
        let accepted = min(room, bytes.count)
        captured += accepted
        let s = stream.rawValue
        for byte in bytes[0..<accepted] {
            if byte == UInt8(ascii: "\n") {
                lines.append((stream, Self.decode(partial[s][...])))
                partial[s].removeAll(keepingCapacity: true)
                continue
            }
            partial[s].append(byte)
            if partial[s].count >= OutputLimits.maxLineBytes { emitPiece(stream, into: &lines) }
        }
        if accepted < bytes.count {
            truncated = true
            flush(stream, into: &lines)
            lines.append((stream, OutputLimits.truncatedLine))
        }
    }

    /// Delivers what remains of `stream`'s partial line (at end of file or when closing).
    mutating func flush(_ stream: ChildStream, into lines: inout [(ChildStream, String)]) {
        let s = stream.rawValue
        if partial[s].isEmpty { return }
        lines.append((stream, Self.decode(partial[s][...])))
        partial[s].removeAll(keepingCapacity: false)
    }

    /// Emits a full-length piece of an over-long line, cut at a UTF-8 character boundary when
    /// one lies within the last 3 bytes (so a character is not split between pieces).
    private mutating func emitPiece(_ stream: ChildStream, into lines: inout [(ChildStream, String)]) {
        let s = stream.rawValue
        var cut = partial[s].count
        var k = cut - 1
        while k > 0 && cut - k <= 3 && partial[s][k] & 0xC0 == 0x80 { k -= 1 }
        if k > 0 && partial[s][k] & 0xC0 == 0xC0 {
            // partial[s][k] starts a multi-byte character; cut before it unless it is complete.
            let lead = partial[s][k]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            if cut - k < length { cut = k }
        }
        lines.append((stream, Self.decode(partial[s][0..<cut])))
        partial[s].removeFirst(cut)
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// A child's output stream.
enum ChildStream: Int {
    case stdout = 0
    case stderr = 1

    var name: String { self == .stdout ? "stdout" : "stderr" }
}
