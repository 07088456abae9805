import Glibc

/// Finding a byte in bytes with the C library's `memchr(3)` (vectorized), where a Swift loop
/// over each byte would cost several instructions a byte.
public enum ByteSearch {
    /// The offset of the first `byte` in `bytes`, nil when there is none.
    public static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base, Int32(byte), bytes.count) else { return nil }
        return UnsafeRawPointer(found) - base
    }
}
