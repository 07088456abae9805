/// Appends compact JSON to a byte buffer. Used on the daemon's hot path: no Foundation, and no
/// allocation beyond the buffer's own growth (numbers that are not small integers go through
/// `Double.description`, whose short result is a small inline string).
public enum JSONWriter {
    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Appends `s` as a quoted JSON string: `"` and `\` escaped, control characters as `\n` `\t` `\r`
    /// `\b` `\f` or `\u00XX`, everything else (including non-ASCII UTF-8) passed through.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendString(utf8: $0, to: &out) }
    }

    /// Appends the (valid UTF-8) bytes as a quoted JSON string.
    public static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count + 2)
        out.append(0x22)
        var runStart = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c >= 0x20 && c != 0x22 && c != 0x5C {
                i += 1
                continue
            }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            out.append(0x5C)
            switch c {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x0A: out.append(0x6E)
            case 0x09: out.append(0x74)
            case 0x0D: out.append(0x72)
            case 0x08: out.append(0x62)
            case 0x0C: out.append(0x66)
            default:
                let hex = hexDigits.utf8Start
                out.append(0x75)
                out.append(0x30)
                out.append(0x30)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 0xF)])
            }
            i += 1
            runStart = i
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
        out.append(0x22)
    }

    @inline(__always)
    static func appendStatic(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends a decimal integer.
    public static func appendInt(_ value: Int64, to out: inout [UInt8]) {
        var magnitude = value.magnitude
        if value < 0 { out.append(0x2D) }
        if magnitude < 10 {
            out.append(0x30 + UInt8(magnitude))
            return
        }
        // At most 20 digits; write them backwards into a stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buf in
            var k = 20
            while magnitude > 0 {
                k -= 1
                buf[k] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[k..<20]))
        }
    }

    /// Appends a number as the shortest decimal that reads back to the same `Double`. Integral values
    /// up to 2^53 in magnitude print as plain integers (`120`, never `120.0`), -0 prints as `0`, huge or
    /// tiny values use exponent notation (`1e+300`). NaN and infinities are not JSON: they print `null`.
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            appendStatic("null", to: &out)
            return
        }
        if value.magnitude <= 9_007_199_254_740_992 && value.rounded(.towardZero) == value {
            appendInt(Int64(value), to: &out)
            return
        }
        if appendShortDecimal(value, to: &out) { return }
        var text = value.description
        text.withUTF8 { utf8 in
            // Swift writes exponent notation from 2^53 on; never leave a ".0" should that change.
            var n = utf8.count
            if n > 2 && utf8[n - 1] == 0x30 && utf8[n - 2] == 0x2E { n -= 2 }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[0..<n]))
        }
    }

    /// Tap coordinates are mostly like `120.5` or `33.25`: written here without going through a
    /// `String`. Handles 0.001 <= |value| < 1e9 with at most three decimals, where that decimal
    /// is the shortest text reading back to `value` (no other decimal with three or fewer
    /// places lies within half an ulp of it); returns false for anything else.
    static func appendShortDecimal(_ value: Double, to out: inout [UInt8]) -> Bool {
        let magnitude = value.magnitude
        guard magnitude >= 0.001, magnitude < 1e9 else { return false }
        let scaled = (magnitude * 1000).rounded()
        guard scaled / 1000 == magnitude else { return false }
        var thousandths = Int64(scaled)
        if value < 0 { out.append(0x2D) }
        appendInt(thousandths / 1000, to: &out)
        thousandths %= 1000
        var digits = 3
        while thousandths % 10 == 0 {
            thousandths /= 10
            digits -= 1
        }
        out.append(0x2E)
        var divisor: Int64 = digits == 3 ? 100 : (digits == 2 ? 10 : 1)
        while divisor > 0 {
            out.append(0x30 + UInt8(thousandths / divisor % 10))
            divisor /= 10
        }
        return true
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
