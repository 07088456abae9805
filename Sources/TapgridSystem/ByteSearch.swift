import CShims
import Glibc

/// Finding bytes in bytes with the C library's `memmem(3)` (vectorized; a GNU extension, so
/// through CShims), where a Swift loop over each byte would cost several instructions a byte.
public enum ByteSearch {
    /// Whether `needle` occurs in `haystack`.
    public static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        guard let base = haystack.baseAddress, haystack.count >= needle.utf8CodeUnitCount else { return false }
        return cshims_memmem(base, haystack.count, needle.utf8Start, needle.utf8CodeUnitCount) != 0
    }

    /// The offset of the first `byte` in `bytes` (`memchr(3)`), nil when there is none.
    public static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base, Int32(byte), bytes.count) else { return nil }
        return UnsafeRawPointer(found) - base
    }
}
