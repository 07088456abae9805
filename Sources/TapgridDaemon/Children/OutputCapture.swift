import TapgridCore

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

/// Splits one child's stdout and stderr into lines (a `LineFramer` per stream), with per-line
/// and per-child caps. Lines are appended to `out`; the caller delivers them (so no callback
/// runs while this state is being mutated).
struct OutputCapture {
    /// Indexed by `ChildStream.rawValue`.
    private var framers = [LineFramer(dropsCarriageReturn: false), LineFramer(dropsCarriageReturn: false)]
    private var captured = 0
    private(set) var truncated = false

    /// Feeds bytes read from `stream`, appending finished lines to `lines`.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, stream: ChildStream, into lines: inout [(ChildStream, String)]) {
        if truncated || bytes.isEmpty { return }
        let room = OutputLimits.maxCapturedBytes - captured
        let accepted = min(room, bytes.count)
        captured += accepted
        let s = stream.rawValue
        framers[s].append(UnsafeRawBufferPointer(rebasing: bytes[0..<accepted]))
        framers[s].takeLines { line in
            Self.split(line[...], stream, into: &lines)
            return true
        }
        // A line still growing is delivered in pieces as it passes the limit.
        while framers[s].count >= OutputLimits.maxLineBytes {
            let cut = Self.pieceLength(framers[s].buffer[...])
            lines.append((stream, Self.decode(framers[s].removeFirst(cut)[...])))
        }
        if accepted < bytes.count {
            truncated = true
            flush(stream, into: &lines)
            lines.append((stream, OutputLimits.truncatedLine))
        }
    }

    /// Delivers what remains of `stream`'s partial line (at end of file or when closing).
    mutating func flush(_ stream: ChildStream, into lines: inout [(ChildStream, String)]) {
        framers[stream.rawValue].takeRest { rest in lines.append((stream, Self.decode(rest[...]))) }
    }

    /// A complete line: full-length pieces while it is that long, then the rest (even empty).
    private static func split(_ line: Slice<UnsafeBufferPointer<UInt8>>, _ stream: ChildStream, into lines: inout [(ChildStream, String)]) {
        var rest = line
        while rest.count >= OutputLimits.maxLineBytes {
            let cut = pieceLength(rest)
            lines.append((stream, decode(rest.prefix(cut))))
            rest = rest.dropFirst(cut)
        }
        lines.append((stream, decode(rest)))
    }

    /// The length of a full piece at the start of `bytes` (at least `maxLineBytes` long): cut at
    /// a UTF-8 character boundary when one lies within its last 3 bytes, so a character is not
    /// split between pieces.
    private static func pieceLength<C: Collection<UInt8>>(_ bytes: C) -> Int where C.Index == Int {
        let start = bytes.startIndex
        var cut = OutputLimits.maxLineBytes
        var k = cut - 1
        while k > 0 && cut - k <= 3 && bytes[start + k] & 0xC0 == 0x80 { k -= 1 }
        if k > 0 && bytes[start + k] & 0xC0 == 0xC0 {
            // bytes[k] starts a multi-byte character; cut before it unless it is complete.
            let lead = bytes[start + k]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            if cut - k < length { cut = k }
        }
        return cut
    }

    private static func decode<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// A child's output stream.
enum ChildStream: Int {
    case stdout = 0
    case stderr = 1

    var name: String { self == .stdout ? "stdout" : "stderr" }
}
