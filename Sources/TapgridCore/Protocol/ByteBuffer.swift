/// A growable byte buffer for replies, event-log records and log lines.
///
/// The tap path makes some 30 small appends per tap; on `[UInt8]` each one runs the generic
/// `append(contentsOf:)` machinery and a uniqueness check. Here an append is one capacity check
/// and a copy into memory this object owns. A class, so a client's output and the event log's
/// record are appended to in place through a `let` reference, without swapping arrays in and out.
/// Loop-owned; never shared between threads.
public final class ByteBuffer {
    @usableFromInline var start: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// The capacity `removeAll(shrinkingAbove:)` goes back to.
    private let initialCapacity: Int
    public private(set) var count = 0
    /// Only for the inlinable appends: moves the end after bytes written in place.
    @usableFromInline func advance(_ written: Int) { count += written }

    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        self.initialCapacity = self.capacity
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    public var isEmpty: Bool { count == 0 }

    /// The bytes written so far; valid until the next append or `removeAll`.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    /// Empties the buffer; one that grew past `limit` (a large reply) goes back to its initial
    /// capacity, so a single burst does not hold memory for the connection's lifetime.
    public func removeAll(shrinkingAbove limit: Int = .max) {
        count = 0
        if capacity > limit {
            start.deallocate()
            capacity = initialCapacity
            start = .allocate(capacity: capacity)
        }
    }

    /// Where the next `room` bytes go, growing the buffer first if they do not fit.
    @inlinable @inline(__always)
    func tail(room: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < room { grow(toAtLeast: count + room) }
        return start + count
    }

    @usableFromInline @inline(never)
    func grow(toAtLeast minimum: Int) {
        var newCapacity = capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: start, count: count)
        start.deallocate()
        start = grown
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    public func append(_ byte: UInt8) {
        tail(room: 1).pointee = byte
        advance(1)
    }

    @inlinable @inline(__always)
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(tail(room: bytes.count)).copyMemory(from: source, byteCount: bytes.count)
        advance(bytes.count)
    }

    @inlinable @inline(__always)
    public func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(UnsafeRawBufferPointer(bytes)) }

    @inlinable @inline(__always)
    public func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable @inline(__always)
    public func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// Appends a decimal integer (`JSONWriter.writeInt`).
    @inlinable @inline(__always)
    public func append(int value: Int64) {
        let written = JSONWriter.writeInt(value, to: tail(room: JSONWriter.maxIntBytes))
        advance(written)
    }

    /// Appends a counter as `JSONWriter.appendInt` of its bit pattern always has.
    @inlinable @inline(__always)
    public func append(uint value: UInt64) { append(int: Int64(truncatingIfNeeded: value)) }

    /// Appends a JSON number (`JSONWriter.writeNumber`: `120`, `120.5`, `null` for NaN).
    @inlinable @inline(__always)
    public func append(number value: Double) {
        let written = JSONWriter.writeNumber(value, to: tail(room: JSONWriter.maxNumberBytes))
        advance(written)
    }

    /// Appends valid UTF-8 as a quoted, escaped JSON string (`JSONWriter.writeString`).
    public func append(jsonString utf8: UnsafeBufferPointer<UInt8>) {
        let written = JSONWriter.writeString(utf8: utf8, to: tail(room: JSONWriter.maxStringBytes(utf8.count)))
        advance(written)
    }

    /// Appends `text` as a quoted, escaped JSON string.
    public func append(jsonString text: String) {
        var text = text
        text.withUTF8 { append(jsonString: $0) }
    }
}
