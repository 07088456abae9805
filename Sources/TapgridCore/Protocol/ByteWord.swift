/// Eight bytes at a time: the scans of the tap path and the fleet's feed (a request line's `\n`,
/// a record's run id) test a word where a byte loop tests a byte.
enum ByteWord {
    /// The high bit of every byte of `word` (little-endian) that equals `byte`, for the lowest
    /// one exactly: `(x - 0x01..) & ~x & 0x80..` on `x = word ^ byte..` flags each zero byte of
    /// `x`, and a borrow can only add flags above a true one. `trailingZeroBitCount >> 3` is the
    /// first match's offset; nonzero says there is one.
    @inline(__always)
    static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }
}
