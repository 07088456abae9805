/// A growable byte buffer for replies, event-log records and log lines.
///
/// The tap path makes some 30 small appends per tap; on `[UInt8]` each one runs the generic
/// `append(contentsOf:)` machinery and a uniqueness check. Here an append is one capacity check
/// and a copy into memory this object owns. A class, so a client's output and the event log's
/// record are appended to in place through a `let` reference, without swapping arrays in and out.
/// Loop-owned; never shared between threads.
///
/// Its state lives behind a pointer held in a `let`: a `var` stored property of a public class
/// gets a dynamic exclusivity check (`swift_beginAccess`) on every access from outside what the
/// optimizer can see, which cost more than the copy itself.
public final class ByteBuffer {
    @usableFromInline struct State {
        @usableFromInline var start: UnsafeMutablePointer<UInt8>
        @usableFromInline var capacity: Int
        @usableFromInline var count: Int
    }

    @usableFromInline let state: UnsafeMutablePointer<State>
    /// The capacity `removeAll(shrinkingAbove:)` goes back to.
    private let initialCapacity: Int

    public init(capacity: Int) {
        let capacity = max(capacity, 16)
        initialCapacity = capacity
        state = .allocate(capacity: 1)
        state.initialize(to: State(start: .allocate(capacity: capacity), capacity: capacity, count: 0))
    }

    deinit {
        state.pointee.start.deallocate()
        state.deallocate()
    }

    /// Bytes written so far.
    public var count: Int { state.pointee.count }

    public var isEmpty: Bool { state.pointee.count == 0 }

    /// The bytes written so far; valid until the next append or `removeAll`.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: state.pointee.start, count: state.pointee.count) }

    /// Empties the buffer; one that grew past `limit` (a large reply) goes back to its initial
    /// capacity, so a single burst does not hold memory for the connection's lifetime.
    public func removeAll(shrinkingAbove limit: Int = .max) {
        state.pointee.count = 0
        if state.pointee.capacity > limit {
            state.pointee.start.deallocate()
            state.pointee.capacity = initialCapacity
            state.pointee.start = .allocate(capacity: initialCapacity)
        }
    }

    /// Drops the first `count` bytes, moving the rest to the front (a connection's output after a
    /// partial send, when the sent part is worth reclaiming).
    public func removeFirst(_ count: Int) {
        precondition(count >= 0 && count <= state.pointee.count, "removeFirst beyond the end")
        let rest = state.pointee.count - count
        if rest > 0 { state.pointee.start.update(from: state.pointee.start + count, count: rest) }
        state.pointee.count = rest
    }

    /// Drops the last byte (a closing `}` that more members follow).
    public func removeLast() {
        precondition(state.pointee.count > 0, "removeLast of an empty buffer")
        state.pointee.count -= 1
    }

    /// Moves the end after `written` bytes were written at `tail(room:)`.
    @inlinable @inline(__always)
    func advance(_ written: Int) { state.pointee.count += written }

    /// Where the next `room` bytes go, growing the buffer first if they do not fit.
    @inlinable @inline(__always)
    func tail(room: Int) -> UnsafeMutablePointer<UInt8> {
        if state.pointee.capacity - state.pointee.count < room { grow(toAtLeast: state.pointee.count + room) }
        return state.pointee.start + state.pointee.count
    }

    @usableFromInline @inline(never)
    func grow(toAtLeast minimum: Int) {
        var newCapacity = state.pointee.capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: state.pointee.start, count: state.pointee.count)
        state.pointee.start.deallocate()
        state.pointee.start = grown
        state.pointee.capacity = newCapacity
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
