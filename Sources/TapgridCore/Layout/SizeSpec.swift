/// How a grid is sized along its parent's split axis (docs/layouts.md "Layout semantics").
public enum SizeSpec: Sendable, Equatable {
    /// `n >= 1` points.
    case fixed(Double)
    /// `0 < r < 1` of the parent's whole inner size.
    case ratio(Double)
    /// `0 < r < 1` of what remains after fixed, wrap and whole-ratio siblings (written negative).
    case remaining(Double)
    /// An equal share of what remains after the remaining-ratio siblings.
    case fill
    /// The size of the children (docs/grid-semantics.md, section 2.2); resolved to points once the tree is known.
    case wrap
    /// Zero size: never hit.
    case zero

    /// Reads a `size` value, or explains why it is not one.
    public static func parse(_ value: JSONValue) -> Result<SizeSpec, SizeError> {
        switch value {
        case .number(let number):
            return fromNumber(number.double).map { .success($0) } ?? .failure(SizeError())
        case .string(let text):
            if text == "fill" { return .success(.fill) }
            if text == "wrap" { return .success(.wrap) }
            guard let percent = parsePercent(text) else { return .failure(SizeError()) }
            if percent == 100 || percent == -100 { return .success(.fill) }
            guard percent != 0, percent > -100, percent < 100 else { return .failure(SizeError()) }
            return .success(percent > 0 ? .ratio(percent / 100) : .remaining(-percent / 100))
        default:
            return .failure(SizeError())
        }
    }

    /// A number's meaning: fixed, ratio, remaining ratio or zero; nil for `n <= -1` and non-finite values.
    static func fromNumber(_ n: Double) -> SizeSpec? {
        guard n.isFinite else { return nil }
        if n >= 1 { return .fixed(n) }
        if n > 0 { return .ratio(n) }
        if n == 0 { return .zero }
        if n > -1 { return .remaining(-n) }
        return nil
    }

    /// `"12%"`, `"-12.5%"`, `".5%"` to a signed number of percent; nil for anything else.
    static func parsePercent(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        guard bytes.last == UInt8(ascii: "%") else { return nil }
        bytes.removeLast()
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var digits = 0
        var fractionDigits = 0
        var sawDot = false
        for byte in bytes[index...] {
            if byte >= 48 && byte <= 57 {
                if sawDot { fractionDigits += 1 } else { digits += 1 }
            } else if byte == UInt8(ascii: "."), !sawDot {
                sawDot = true
            } else {
                return nil
            }
        }
        guard digits > 0 || fractionDigits > 0, !sawDot || fractionDigits > 0 else { return nil }
        let body = String(decoding: bytes[index...], as: UTF8.self)
        guard let value = Double(body.first == "." ? "0" + body : body) else { return nil }
        return negative ? -value : value
    }

    /// True for sizes taken from a share of the parent (ratio, remaining, fill).
    var isShare: Bool {
        switch self {
        case .ratio, .remaining, .fill: return true
        default: return false
        }
    }
}

/// A `size` value that is not a size; the message is built by the caller, who knows the key's place.
public struct SizeError: Error, Sendable {}
