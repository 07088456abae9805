/// Splits a byte stream into `\n`-terminated lines: the one framer of every stream tapgrid reads
/// (socket requests, children's output, replies in the CLI, event logs in `replay`).
///
/// Bytes are appended as they arrive; complete lines are handed out in order, borrowed from the
/// buffer (no copy per line). The part of the buffer already known to hold no `\n` is not
/// searched again, so a long line arriving in many small reads costs linear time.
public struct LineFramer {
    /// Bytes not yet handed out as lines.
    public private(set) var buffer: [UInt8] = []
    /// `buffer[..<scanFrom]` holds no `\n`.
    private var scanFrom = 0
    /// Whether a `\r` right before the `\n` is dropped too (the socket protocol's rule).
    public let dropsCarriageReturn: Bool

    public init(dropsCarriageReturn: Bool, capacity: Int = 0) {
        self.dropsCarriageReturn = dropsCarriageReturn
        buffer.reserveCapacity(capacity)
    }

    /// Bytes buffered that are not a complete line yet (after `takeLines`).
    public var count: Int { buffer.count }
    public var isEmpty: Bool { buffer.isEmpty }
    /// The last byte buffered.
    public var last: UInt8? { buffer.last }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }
    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    /// Hands out complete lines, oldest first, without their `\n`; stops early when `body`
    /// returns false (the lines after stay buffered).
    /// - Returns: whether every complete line was taken.
    @discardableResult
    public mutating func takeLines(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var consumed = 0
        var finished = true
        let count = buffer.count
        let dropCR = dropsCarriageReturn
        var searchFrom = scanFrom
        buffer.withUnsafeBufferPointer { bytes in
            while true {
                guard let newline = Self.firstNewline(in: bytes, from: max(searchFrom, consumed)) else {
                    searchFrom = count
                    break
                }
                var end = newline
                if dropCR && end > consumed && bytes[end - 1] == 0x0D { end -= 1 }
                let line = UnsafeBufferPointer(rebasing: bytes[consumed..<end])
                consumed = newline + 1
                searchFrom = consumed
                if !body(line) {
                    finished = false
                    break
                }
            }
        }
        scanFrom = max(0, searchFrom - consumed)
        if consumed > 0 { buffer.removeFirst(consumed) }
        return finished
    }

    /// The first `\n` in `bytes[start...]`, eight bytes at a time (`ByteWord`): a request line is
    /// about 20 bytes, and the byte loop cost 130 instructions per tap (callgrind) where this costs 40.
    @inline(__always)
    static func firstNewline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let n = bytes.count
        var i = start
        while i + 8 <= n {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let flags = ByteWord.matches(word, 0x0A)
            if flags != 0 { return i + flags.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n {
            if base[i] == 0x0A { return i }
            i += 1
        }
        return nil
    }

    /// Hands out what is left as one last line (a stream that ended without `\n`), if anything.
    public mutating func takeRest(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { bytes in
            var end = bytes.count
            if dropsCarriageReturn && bytes[end - 1] == 0x0D { end -= 1 }
            body(UnsafeBufferPointer(rebasing: bytes[0..<end]))
        }
        removeAll()
    }

    /// Drops everything buffered.
    public mutating func removeAll() {
        buffer.removeAll(keepingCapacity: true)
        scanFrom = 0
    }

    /// Removes and returns the first `count` buffered bytes (a piece of an over-long line).
    public mutating func removeFirst(_ count: Int) -> [UInt8] {
        let piece = Array(buffer[..<count])
        buffer.removeFirst(count)
        scanFrom = max(0, scanFrom - count)
        return piece
    }

    /// Every line of a whole text, numbered from 1, a last line without `\n` included.
    public static func lines(of bytes: [UInt8]) -> [(number: Int, line: ArraySlice<UInt8>)] {
        var lines: [(Int, ArraySlice<UInt8>)] = []
        var start = 0
        for index in bytes.indices where bytes[index] == 0x0A {
            lines.append((lines.count + 1, bytes[start..<index]))
            start = index + 1
        }
        if start < bytes.count { lines.append((lines.count + 1, bytes[start...])) }
        return lines
    }
}
