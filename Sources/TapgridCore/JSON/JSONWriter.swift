/// Appends compact JSON to a byte buffer. Used on the daemon's hot path: no Foundation, and no
/// allocation beyond the buffer's own growth (numbers that are not small integers or short
/// decimals go through `Double.description`, whose short result is a small inline string).
/// The `write` functions do the work into memory the caller has reserved (at most `max...Bytes`)
/// and return the length: the daemon's own buffer appends with them, and the `[UInt8]` functions
/// go through them too, so there is one implementation of each format.
public enum JSONWriter {
    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Most bytes `writeInt` writes (`-9223372036854775808`).
    @inlinable public static var maxIntBytes: Int { 20 }
    /// Most bytes `writeNumber` writes (Swift's longest `Double.description` has 24).
    @inlinable public static var maxNumberBytes: Int { 32 }
    /// Most bytes `writeString` writes for `count` bytes of UTF-8 (all `\u00XX`, and the quotes).
    @inlinable public static func maxStringBytes(_ count: Int) -> Int { 6 * count + 2 }

    /// Appends `s` as a quoted JSON string: `"` and `\` escaped, control characters as `\n` `\t` `\r`
    /// `\b` `\f` or `\u00XX`, everything else (including non-ASCII UTF-8) passed through.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    /// `s` as a quoted JSON string (`appendString`), for a fragment built once and copied often.
    public static func string(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        appendString(s, to: &out)
        return out
    }

    /// Appends the (valid UTF-8) bytes as a quoted JSON string.
    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxStringBytes(bytes.count)) { buffer in
            let n = writeString(utf8: bytes, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
    }

    /// Writes the (valid UTF-8) bytes as a quoted JSON string at `out`, which has room for
    /// `maxStringBytes(bytes.count)`; returns the length. Runs without escapes are copied whole.
    public static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = 0x22
        var written = 1
        var runStart = 0
        var i = 0
        let n = bytes.count
        func copyRun(upTo end: Int) {
            guard runStart < end else { return }
            (out + written).update(from: bytes.baseAddress! + runStart, count: end - runStart)
            written += end - runStart
        }
        func put(_ byte: UInt8) {
            out[written] = byte
            written += 1
        }
        while i < n {
            let c = bytes[i]
            if c >= 0x20 && c != 0x22 && c != 0x5C {
                i += 1
                continue
            }
            copyRun(upTo: i)
            put(0x5C)
            switch c {
            case 0x22: put(0x22)
            case 0x5C: put(0x5C)
            case 0x0A: put(0x6E)
            case 0x09: put(0x74)
            case 0x0D: put(0x72)
            case 0x08: put(0x62)
            case 0x0C: put(0x66)
            default:
                let hex = hexDigits.utf8Start
                put(0x75)
                put(0x30)
                put(0x30)
                put(hex[Int(c >> 4)])
                put(hex[Int(c & 0xF)])
            }
            i += 1
            runStart = i
        }
        copyRun(upTo: n)
        put(0x22)
        return written
    }

    @inline(__always)
    static func appendStatic(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends a decimal integer.
    public static func appendInt(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxIntBytes) { buffer in
            let n = writeInt(value, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
    }

    /// "00" to "99": `writeInt` writes two digits per division by 100.
    @inlinable static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// How many decimal digits `value` (at least 10) has: compares for the values taps carry
    /// (`seq`s, coordinates, tags), a loop beyond. The loop alone cost 14 instructions per
    /// `seq` (callgrind).
    @inlinable @inline(__always) @usableFromInline
    static func decimalLength(_ value: UInt64) -> Int {
        if value < 100_000 {
            if value < 100 { return 2 }
            return value < 1_000 ? 3 : (value < 10_000 ? 4 : 5)
        }
        var length = 6
        var bound: UInt64 = 1_000_000
        while length < 20 && value >= bound {
            length += 1
            bound = bound &* 10
        }
        return length
    }

    /// Writes a decimal integer at `out`, which has room for `maxIntBytes`; returns the length.
    /// Inlinable: the daemon writes every tap's `seq` and coordinates with it. Two digits at a
    /// time from `digitPairs`, and one compare for a single digit.
    @inlinable
    public static func writeInt(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var p = out
        if value < 0 {
            p[0] = 0x2D
            p += 1
        }
        if magnitude < 10 {
            p[0] = 0x30 + UInt8(truncatingIfNeeded: magnitude)
            return p - out + 1
        }
        let length = decimalLength(magnitude)
        let pairs = UnsafeRawPointer(digitPairs.utf8Start)
        let to = UnsafeMutableRawPointer(p)
        var k = length
        while magnitude >= 100 {
            let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
            magnitude /= 100
            k -= 2
            to.storeBytes(of: pairs.loadUnaligned(fromByteOffset: pair, as: UInt16.self), toByteOffset: k, as: UInt16.self)
        }
        if magnitude >= 10 {
            let pair = Int(truncatingIfNeeded: magnitude) &* 2
            to.storeBytes(of: pairs.loadUnaligned(fromByteOffset: pair, as: UInt16.self), as: UInt16.self)
        } else {
            p[0] = 0x30 + UInt8(truncatingIfNeeded: magnitude)
        }
        return p - out + length
    }

    /// Appends a number as the shortest decimal that reads back to the same `Double`. Integral values
    /// up to 2^53 in magnitude print as plain integers (`120`, never `120.0`), -0 prints as `0`, huge or
    /// tiny values use exponent notation (`1e+300`). NaN and infinities are not JSON: they print `null`.
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxNumberBytes) { buffer in
            let n = writeNumber(value, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
    }

    /// Writes a number as `appendNumber` does at `out`, which has room for `maxNumberBytes`;
    /// returns the length. Inlinable for the integers and short decimals of tap coordinates.
    @inlinable
    public static func writeNumber(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value.magnitude <= 9_007_199_254_740_992 && value.rounded(.towardZero) == value {
            return writeInt(Int64(value), to: out)
        }
        if let n = writeShortDecimal(value, to: out) { return n }
        return writeNumberText(value, to: out)
    }

    /// Tap coordinates are mostly like `120.5` or `33.25`: written here without going through a
    /// `String`. Handles non-integral values with 0.001 <= |value| < 1e9 and at most three
    /// decimals, where that decimal is the shortest text reading back to `value` (no other decimal
    /// with three or fewer places lies within half an ulp of it); returns nil for anything else.
    @inlinable
    static func writeShortDecimal(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int? {
        let magnitude = value.magnitude
        guard magnitude >= 0.001, magnitude < 1e9 else { return nil }
        let scaled = (magnitude * 1000).rounded()
        guard scaled / 1000 == magnitude else { return nil }
        let thousandths = UInt64(scaled)
        var n = 0
        if value < 0 {
            out[0] = 0x2D
            n = 1
        }
        let whole = thousandths / 1000
        let fraction = Int(truncatingIfNeeded: thousandths &- whole &* 1000)  // 1...999: not integral
        n += writeInt(Int64(whole), to: out + n)
        // All three places (a digit, then a pair), then the trailing zeros dropped.
        let pairs = digitPairs.utf8Start
        let pair = (fraction % 100) &* 2
        out[n] = 0x2E
        out[n + 1] = 0x30 &+ UInt8(truncatingIfNeeded: fraction / 100)
        out[n + 2] = pairs[pair]
        out[n + 3] = pairs[pair + 1]
        n += 4
        while out[n - 1] == 0x30 { n -= 1 }
        return n
    }

    /// The rest: `null` for NaN and infinities, else Swift's shortest round-trip text.
    @usableFromInline
    static func writeNumberText(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else {
            let null: StaticString = "null"
            out.update(from: null.utf8Start, count: null.utf8CodeUnitCount)
            return null.utf8CodeUnitCount
        }
        var text = value.description
        return text.withUTF8 { utf8 in
            // Swift writes exponent notation from 2^53 on; never leave a ".0" should that change.
            var n = utf8.count
            if n > 2 && utf8[n - 1] == 0x30 && utf8[n - 2] == 0x2E { n -= 2 }
            precondition(n <= maxNumberBytes, "Double.description longer than JSONWriter.maxNumberBytes")
            out.update(from: utf8.baseAddress!, count: n)
            return n
        }
    }

    /// Appends `value` compactly, object members in order; numbers with an exact `int64` print exactly.
    public static func appendValue(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: appendStatic("null", to: &out)
        case .bool(true): appendStatic("true", to: &out)
        case .bool(false): appendStatic("false", to: &out)
        case .number(let n):
            if let exact = n.int64 { appendInt(exact, to: &out) } else { appendNumber(n.double, to: &out) }
        case .string(let s): appendString(s, to: &out)
        case .array(let elements):
            out.append(0x5B)
            for (k, element) in elements.enumerated() {
                if k > 0 { out.append(0x2C) }
                appendValue(element, to: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            for (k, member) in members.enumerated() {
                if k > 0 { out.append(0x2C) }
                appendString(member.key, to: &out)
                out.append(0x3A)
                appendValue(member.value, to: &out)
            }
            out.append(0x7D)
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public var compactJSON: String {
        var out: [UInt8] = []
        JSONWriter.appendValue(self, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// `s` as a quoted, escaped JSON string literal.
public func jsonEscaped(_ s: String) -> String {
    var out: [UInt8] = []
    JSONWriter.appendString(s, to: &out)
    return String(decoding: out, as: UTF8.self)
}
