/// Byte strings written once (at config load) and copied into replies and records many times:
/// all in one allocation, read as buffer pointers, so a use retains no array and a table of
/// thousands costs one block instead of an array header and a heap block each. A value with
/// raw pointers only: its owner (`ActiveConfig`) frees it, and a read pointer lives as long as
/// that owner.
public struct ByteTable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// Entry `i` is `bytes[ends[i - 1] ..< ends[i]]` (from 0 for the first).
    private let ends: UnsafeMutableBufferPointer<Int>

    /// Collects the entries before they are frozen.
    struct Builder {
        private var bytes: [UInt8] = []
        private var ends: [Int] = []

        /// Sized for about `entries` entries of `bytesEach`: the array then grows rarely.
        init(entries: Int = 0, bytesEach: Int = 0) {
            bytes.reserveCapacity(entries * bytesEach)
            ends.reserveCapacity(entries)
        }

        mutating func add(_ entry: [UInt8]) { add { $0 += entry } }

        /// Adds the entry `write` appends (no array of its own per entry).
        mutating func add(_ write: (inout [UInt8]) -> Void) {
            write(&bytes)
            ends.append(bytes.count)
        }

        func build() -> ByteTable { ByteTable(bytes: bytes, ends: ends) }
    }

    private init(bytes source: [UInt8], ends sourceEnds: [Int]) {
        bytes = .allocate(capacity: source.count)
        _ = bytes.initialize(from: source)
        ends = .allocate(capacity: sourceEnds.count)
        _ = ends.initialize(from: sourceEnds)
    }

    /// A table of `entries`, in order.
    init(_ entries: [[UInt8]]) {
        var builder = Builder()
        for entry in entries { builder.add(entry) }
        self = builder.build()
    }

    public var count: Int { ends.count }

    @inline(__always)
    public subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = index == 0 ? 0 : ends[index - 1]
        return UnsafeBufferPointer(start: bytes.baseAddress.map { $0 + start }, count: ends[index] - start)
    }

    func free() {
        bytes.deallocate()
        ends.deallocate()
    }
}
