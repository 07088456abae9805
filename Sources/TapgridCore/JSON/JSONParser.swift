/// A JSON syntax error with a 1-based position. `column` counts Unicode scalars on the line.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of error it is, for callers that answer some kinds apart (a duplicate key is a
    /// `bad_request`, a file that ends early was cut short); `message` says it for people.
    public enum Kind: Sendable, Equatable {
        /// The text ended where a value or more of one was expected.
        case endOfInput
        /// A string with no closing quote before the end of the text or of its line.
        case unterminatedString
        /// A key given twice in one object.
        case duplicateKey
        /// Containers nested deeper than the parser's `maxDepth`.
        case tooDeep
        /// Any other error (an unexpected character, invalid UTF-8, a number out of range...).
        case invalid
    }

    public var line: Int
    public var column: Int
    public var message: String
    public var kind: Kind

    public init(line: Int, column: Int, message: String, kind: Kind = .invalid) {
        self.line = line
        self.column = column
        self.message = message
        self.kind = kind
    }

    public var description: String { "\(line):\(column): \(message)" }
}

/// Parses JSON text into a `JSONValue`.
///
/// `lenient: false` is strict RFC 8259. `lenient: true` (config and layout files) additionally accepts
/// `//` and `/* */` comments, trailing commas before `]` and `}`, and a UTF-8 BOM at the start.
/// Both modes refuse invalid UTF-8, lone surrogates, duplicate keys in one object, numbers that
/// overflow to infinity, and nesting deeper than `maxDepth` (checked with an explicit stack, so deep
/// input never overflows the call stack).
public enum JSONParser {
    public static func parse(
        _ bytes: [UInt8], lenient: Bool, maxDepth: Int = 512
    ) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONLexError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = TreeParser(buffer: buffer, lenient: lenient, maxDepth: maxDepth)
            do throws(JSONLexError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw bytes.withUnsafeBufferPointer { error.syntaxError(in: $0) }
        }
    }

    public static func parse(
        _ text: String, lenient: Bool, maxDepth: Int = 512
    ) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8), lenient: lenient, maxDepth: maxDepth)
    }
}

// MARK: - Shared lexing (also used by RequestScanner)

/// An error at a byte offset; turned into line and column only when it is reported.
struct JSONLexError: Error {
    var offset: Int
    var message: String
    var kind: JSONSyntaxError.Kind = .invalid

    static func endOfInput(at offset: Int) -> JSONLexError {
        JSONLexError(offset: offset, message: "unexpected end of input", kind: .endOfInput)
    }

    static func unterminatedString(at offset: Int) -> JSONLexError {
        JSONLexError(offset: offset, message: "unterminated string", kind: .unterminatedString)
    }

    static func tooDeep(at offset: Int, maxDepth: Int) -> JSONLexError {
        JSONLexError(offset: offset, message: "nesting is deeper than \(maxDepth) levels", kind: .tooDeep)
    }

    func syntaxError(in buffer: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
        let (line, column) = JSONLex.position(of: offset, in: buffer)
        return JSONSyntaxError(line: line, column: column, message: message, kind: kind)
    }
}

/// A scanned number literal: its byte range and an exact decimal decomposition when it fits.
struct JSONNumberLiteral {
    var start: Int
    var end: Int
    var negative: Bool
    /// Significant decimal digits (leading zeros and trailing fraction zeros dropped), if they fit.
    var mantissa: UInt64
    /// The literal is `mantissa * 10^exponent` (when `mantissaFits`).
    var exponent: Int
    var mantissaFits: Bool
}

enum JSONLex {
    static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C, slash: UInt8 = 0x2F
    static let comma: UInt8 = 0x2C, colon: UInt8 = 0x3A
    static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    static let minus: UInt8 = 0x2D, plus: UInt8 = 0x2B, dot: UInt8 = 0x2E, zero: UInt8 = 0x30
    static let newline: UInt8 = 0x0A, star: UInt8 = 0x2A

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
    @inline(__always) static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09
    }

    /// 1-based line and scalar column of a byte offset.
    static func position(of offset: Int, in b: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, b.count)
        while i < end {
            let c = b[i]
            if c == newline {
                line += 1
                column = 1
            } else if c & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    /// The length of the valid UTF-8 sequence at `i` (whose first byte is >= 0x80), or 0 if invalid.
    /// Refuses overlong forms, encoded surrogates and scalars above U+10FFFF.
    @inline(__always)
    static func utf8SequenceLength(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let c0 = b[i]
        let n = b.count
        @inline(__always) func cont(_ j: Int) -> Bool { j < n && b[j] & 0xC0 == 0x80 }
        switch c0 {
        case 0xC2...0xDF:
            return cont(i + 1) ? 2 : 0
        case 0xE0...0xEF:
            guard i + 1 < n else { return 0 }
            let c1 = b[i + 1]
            if c0 == 0xE0 && c1 < 0xA0 { return 0 }  // overlong
            if c0 == 0xED && c1 >= 0xA0 { return 0 }  // surrogate
            return cont(i + 1) && cont(i + 2) ? 3 : 0
        case 0xF0...0xF4:
            guard i + 1 < n else { return 0 }
            let c1 = b[i + 1]
            if c0 == 0xF0 && c1 < 0x90 { return 0 }  // overlong
            if c0 == 0xF4 && c1 >= 0x90 { return 0 }  // above U+10FFFF
            return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0
        default:
            return 0
        }
    }

    /// How the byte at `i` reads in a message: `'x'`, `U+000A`, `end of input`, or a whole word (`'NaN'`).
    static func describe(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> String {
        guard i < b.count else { return "end of input" }
        let c = b[i]
        if isWordByte(c) {
            var j = i
            while j < b.count && j - i < 24 && isWordByte(b[j]) { j += 1 }
            return "'" + String(decoding: UnsafeBufferPointer(rebasing: b[i..<j]), as: UTF8.self) + "'"
        }
        if c >= 0x20 && c < 0x7F { return "'" + String(Character(Unicode.Scalar(c))) + "'" }
        if c < 0x80 { return hexScalar(UInt32(c)) }
        let len = utf8SequenceLength(b, i)
        if len == 0 { return "invalid UTF-8" }
        return "'" + String(decoding: UnsafeBufferPointer(rebasing: b[i..<i + len]), as: UTF8.self) + "'"
    }

    @inline(__always) static func isWordByte(_ c: UInt8) -> Bool {
        (c | 0x20) &- 0x61 < 26 || c &- 0x30 < 10 || c == 0x5F
    }

    static func hexScalar(_ v: UInt32) -> String {
        let hex = String(v, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// An error for an unexpected byte: "invalid UTF-8" when it is not valid UTF-8, else `"\(expected), found X"`.
    static func unexpected(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, expected: String) -> JSONLexError {
        if i >= b.count { return JSONLexError.endOfInput(at: i) }
        if b[i] >= 0x80 && utf8SequenceLength(b, i) == 0 {
            return JSONLexError(offset: i, message: "invalid UTF-8")
        }
        return JSONLexError(offset: i, message: expected + ", found " + describe(b, i))
    }

    // MARK: Strings

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46: return UInt32(c - 0x41 + 10)
        case 0x61...0x66: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }

    /// Reads the 4 hex digits of a `\u` escape whose backslash is at `i`.
    @inline(__always)
    static func readHex4(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) throws(JSONLexError) -> UInt32 {
        var v: UInt32 = 0
        var j = i + 2
        while j < i + 6 {
            guard j < b.count else {
                throw JSONLexError.unterminatedString(at: j)
            }
            guard let h = hexValue(b[j]) else {
                throw JSONLexError(
                    offset: j, message: "invalid \\u escape: expected a hex digit, found " + describe(b, j))
            }
            v = v << 4 | h
            j += 1
        }
        return v
    }

    /// Validates the string whose opening quote is at `start`. Returns the offset just past the closing
    /// quote and whether it contains escapes. Content is `start + 1 ..< end - 1`.
    @inline(__always)
    static func scanString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) throws(JSONLexError) -> (end: Int, hasEscapes: Bool) {
        var i = start + 1
        let n = b.count
        var hasEscapes = false
        while true {
            // Fast path: plain printable ASCII.
            while i < n {
                let c = b[i]
                if c == quote || c == backslash || c < 0x20 || c >= 0x80 { break }
                i += 1
            }
            guard i < n else { throw JSONLexError.unterminatedString(at: start) }
            let c = b[i]
            if c == quote { return (i + 1, hasEscapes) }
            if c >= 0x80 {
                let len = utf8SequenceLength(b, i)
                guard len > 0 else { throw JSONLexError(offset: i, message: "invalid UTF-8") }
                i += len
            } else if c < 0x20 {
                if c == newline { throw JSONLexError.unterminatedString(at: start) }
                throw JSONLexError(
                    offset: i, message: "control character \(hexScalar(UInt32(c))) must be escaped in a string")
            } else {
                hasEscapes = true
                try i = scanEscape(b, i)
            }
        }
    }

    /// Validates the escape whose backslash is at `i`; returns the offset past it.
    @inline(__always)
    static func scanEscape(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) throws(JSONLexError) -> Int {
        guard i + 1 < b.count else { throw JSONLexError.unterminatedString(at: i + 1) }
        switch b[i + 1] {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
            return i + 2
        case 0x75:
            let v = try readHex4(b, i)
            if v & 0xFC00 == 0xD800 {
                guard i + 7 < b.count, b[i + 6] == backslash, b[i + 7] == 0x75,
                    try readHex4(b, i + 6) & 0xFC00 == 0xDC00
                else {
                    throw JSONLexError(offset: i, message: "unpaired surrogate \(escapeText(v)) in a string")
                }
                return i + 12
            }
            if v & 0xFC00 == 0xDC00 {
                throw JSONLexError(offset: i, message: "unpaired surrogate \(escapeText(v)) in a string")
            }
            return i + 6
        default:
            if b[i + 1] >= 0x80 && utf8SequenceLength(b, i + 1) == 0 {
                throw JSONLexError(offset: i + 1, message: "invalid UTF-8")
            }
            throw JSONLexError(offset: i, message: "invalid escape '\\" + describeRaw(b, i + 1) + "' in a string")
        }
    }

    static func describeRaw(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> String {
        let c = b[i]
        if c >= 0x20 && c < 0x7F { return String(Character(Unicode.Scalar(c))) }
        if c < 0x80 { return hexScalar(UInt32(c)) }
        let len = max(1, utf8SequenceLength(b, i))
        return String(decoding: UnsafeBufferPointer(rebasing: b[i..<i + len]), as: UTF8.self)
    }

    static func escapeText(_ v: UInt32) -> String {
        let hex = String(v, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Decodes a validated string literal (content range `start..<end`, without quotes).
    static func decodeString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, hasEscapes: Bool) -> String {
        if !hasEscapes {
            return String(decoding: UnsafeBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
        }
        return String(decoding: decodeBytes(b, start, end), as: UTF8.self)
    }

    /// The UTF-8 bytes of a validated string literal's content (`start..<end`), escapes decoded.
    static func decodeBytes(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var i = start
        while i < end {
            let c = b[i]
            if c != backslash {
                out.append(c)
                i += 1
                continue
            }
            let e = b[i + 1]
            switch e {
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var v = (try? readHex4(b, i)) ?? 0xFFFD
                if v & 0xFC00 == 0xD800 {
                    let low = (try? readHex4(b, i + 6)) ?? 0xDC00
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                appendUTF8(v, to: &out)
                i += 6
                continue
            default: out.append(e)  // \" \\ \/
            }
            i += 2
        }
        return out
    }

    @inline(__always) static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        if v < 0x80 {
            out.append(UInt8(v))
        } else if v < 0x800 {
            out.append(UInt8(0xC0 | v >> 6))
            out.append(UInt8(0x80 | v & 0x3F))
        } else if v < 0x10000 {
            out.append(UInt8(0xE0 | v >> 12))
            out.append(UInt8(0x80 | v >> 6 & 0x3F))
            out.append(UInt8(0x80 | v & 0x3F))
        } else {
            out.append(UInt8(0xF0 | v >> 18))
            out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F))
            out.append(UInt8(0x80 | v & 0x3F))
        }
    }

    // MARK: Numbers

    /// Scans a strict JSON number starting at `start` (a '-' or a digit).
    @inline(__always)
    static func scanNumber(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) throws(JSONLexError) -> JSONNumberLiteral {
        let n = b.count
        var i = start
        var negative = false
        if b[i] == minus {
            negative = true
            i += 1
            guard i < n, isDigit(b[i]) else {
                throw unexpected(b, i, expected: "invalid number: expected a digit after '-'")
            }
        }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits accumulated
        var fits = true
        var exponent = 0
        if b[i] == zero {
            i += 1
            if i < n && isDigit(b[i]) {
                throw JSONLexError(offset: i - 1, message: "invalid number: leading zeros are not allowed")
            }
        } else {
            while i < n {
                let d = b[i] &- 0x30
                if d >= 10 { break }
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                } else {
                    fits = false
                    exponent += 1
                }
                i += 1
            }
        }
        if i < n && b[i] == dot {
            i += 1
            let fracStart = i
            while i < n && isDigit(b[i]) { i += 1 }
            if i == fracStart {
                throw unexpected(b, i, expected: "invalid number: expected a digit after '.'")
            }
            // Drop trailing zeros of the fraction so `1.000` stays exact.
            var fracEnd = i
            while fracEnd > fracStart && b[fracEnd - 1] == zero { fracEnd -= 1 }
            var j = fracStart
            while j < fracEnd {
                let d = b[j] &- 0x30
                if digits == 0 && d == 0 {
                    exponent -= 1  // leading zeros of 0.00x
                } else if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                    exponent -= 1
                } else {
                    fits = false
                }
                j += 1
            }
        }
        if i < n && (b[i] | 0x20) == 0x65 {
            i += 1
            var expNegative = false
            if i < n && (b[i] == plus || b[i] == minus) {
                expNegative = b[i] == minus
                i += 1
            }
            guard i < n, isDigit(b[i]) else {
                throw unexpected(b, i, expected: "invalid number: expected a digit in the exponent")
            }
            var e = 0
            while i < n, isDigit(b[i]) {
                if e < 1_000_000_000 { e = e * 10 + Int(b[i] &- 0x30) }
                i += 1
            }
            exponent += expNegative ? -e : e
        }
        if i < n && (isWordByte(b[i]) || b[i] == dot) {
            throw JSONLexError(offset: i, message: "invalid number: unexpected " + describe(b, i) + " after a number")
        }
        if mantissa == 0 && fits { exponent = 0 }
        return JSONNumberLiteral(
            start: start, end: i, negative: negative, mantissa: mantissa, exponent: exponent, mantissaFits: fits)
    }

    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The correctly rounded `Double` of a scanned literal: exact fast path when the mantissa and the power
    /// of ten are both exact doubles (Clinger), else the standard library's parser over the literal text.
    @inline(__always)
    static func doubleValue(_ lit: JSONNumberLiteral, in b: UnsafeBufferPointer<UInt8>) -> Double {
        if lit.mantissaFits {
            if lit.mantissa == 0 { return lit.negative ? -0.0 : 0.0 }
            if lit.mantissa <= 1 << 53 && lit.exponent >= -22 && lit.exponent <= 22 {
                var d = Double(lit.mantissa)
                if lit.exponent >= 0 {
                    d *= exactPowersOfTen[lit.exponent]
                } else {
                    d /= exactPowersOfTen[-lit.exponent]
                }
                return lit.negative ? -d : d
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[lit.start..<lit.end]), as: UTF8.self)
        return Double(text) ?? .nan
    }

    /// The exact `Int64` of an integral literal that fits, else nil.
    @inline(__always)
    static func int64Value(_ lit: JSONNumberLiteral) -> Int64? {
        guard lit.mantissaFits else { return nil }
        if lit.mantissa == 0 { return 0 }
        var m = lit.mantissa
        var e = lit.exponent
        while e < 0 && m % 10 == 0 {
            m /= 10
            e += 1
        }
        guard e >= 0, e <= 19 else { return nil }
        while e > 0 {
            let (p, o) = m.multipliedReportingOverflow(by: 10)
            if o { return nil }
            m = p
            e -= 1
        }
        if lit.negative {
            if m <= UInt64(Int64.max) { return -Int64(m) }
            if m == UInt64(Int64.max) + 1 { return Int64.min }
            return nil
        }
        return m <= UInt64(Int64.max) ? Int64(m) : nil
    }
}

// MARK: - Tree parser

private struct Frame {
    var isObject: Bool
    var elements: [JSONValue] = []
    var members: [JSONMember] = []
    var pendingKey: String = ""
    var pendingLine: Int = 0
    var keySet: Set<String>? = nil
}

private struct TreeParser {
    let b: UnsafeBufferPointer<UInt8>
    let lenient: Bool
    let maxDepth: Int
    var i = 0
    var line = 1

    init(buffer: UnsafeBufferPointer<UInt8>, lenient: Bool, maxDepth: Int) {
        self.b = buffer
        self.lenient = lenient
        self.maxDepth = maxDepth
    }

    @inline(__always)
    mutating func skipWhitespace() throws(JSONLexError) {
        let n = b.count
        while i < n {
            let c = b[i]
            if c == 0x20 || c == 0x09 || c == 0x0D {
                i += 1
            } else if c == JSONLex.newline {
                line += 1
                i += 1
            } else if c == JSONLex.slash && lenient {
                try skipComment()
            } else {
                return
            }
        }
    }

    mutating func skipComment() throws(JSONLexError) {
        let start = i
        let n = b.count
        guard i + 1 < n, b[i + 1] == JSONLex.slash || b[i + 1] == JSONLex.star else {
            throw JSONLex.unexpected(b, i + 1, expected: "expected '/' or '*' after '/' to start a comment")
        }
        if b[i + 1] == JSONLex.slash {
            i += 2
            while i < n && b[i] != JSONLex.newline {
                if b[i] >= 0x80 {
                    let len = JSONLex.utf8SequenceLength(b, i)
                    guard len > 0 else { throw JSONLexError(offset: i, message: "invalid UTF-8") }
                    i += len
                } else {
                    i += 1
                }
            }
            return
        }
        i += 2
        while true {
            guard i < n else { throw JSONLexError(offset: start, message: "unterminated comment") }
            let c = b[i]
            if c == JSONLex.star && i + 1 < n && b[i + 1] == JSONLex.slash {
                i += 2
                return
            }
            if c == JSONLex.newline {
                line += 1
                i += 1
            } else if c >= 0x80 {
                let len = JSONLex.utf8SequenceLength(b, i)
                guard len > 0 else { throw JSONLexError(offset: i, message: "invalid UTF-8") }
                i += len
            } else {
                i += 1
            }
        }
    }

    mutating func parseString() throws(JSONLexError) -> String {
        let start = i
        let (end, hasEscapes) = try JSONLex.scanString(b, start)
        i = end
        return JSONLex.decodeString(b, start + 1, end - 1, hasEscapes: hasEscapes)
    }

    mutating func parseNumber() throws(JSONLexError) -> JSONValue {
        let lit = try JSONLex.scanNumber(b, i)
        let d = JSONLex.doubleValue(lit, in: b)
        guard d.isFinite else { throw JSONLexError(offset: i, message: "number out of range") }
        i = lit.end
        var number = JSONNumber(d)
        number.int64 = JSONLex.int64Value(lit)
        return .number(number)
    }

    mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONLexError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        let p = word.utf8Start
        var ok = i + count <= b.count
        if ok {
            for k in 0..<count where b[i + k] != p[k] {
                ok = false
                break
            }
        }
        if ok && i + count < b.count && JSONLex.isWordByte(b[i + count]) { ok = false }
        guard ok else { throw JSONLex.unexpected(b, i, expected: "expected a value") }
        i += count
        return value
    }

    /// Reads a key (at `i`, after whitespace) and the colon after it into the top object frame.
    mutating func readKey(into frame: inout Frame, afterComma: Bool) throws(JSONLexError) {
        guard i < b.count, b[i] == JSONLex.quote else {
            throw JSONLex.unexpected(
                b, i, expected: afterComma && !lenient ? "expected a string key" : "expected a string key or '}'")
        }
        let keyOffset = i
        let keyLine = line
        let key = try parseString()
        // Duplicate keys: linear for small objects, a set beyond.
        if frame.keySet != nil {
            if !frame.keySet!.insert(key).inserted { throw duplicate(key, keyOffset) }
        } else {
            for m in frame.members where m.key == key { throw duplicate(key, keyOffset) }
            if frame.members.count >= 16 {
                var set = Set<String>(minimumCapacity: 64)
                for m in frame.members { set.insert(m.key) }
                set.insert(key)
                frame.keySet = set
            }
        }
        try skipWhitespace()
        guard i < b.count, b[i] == JSONLex.colon else {
            throw JSONLex.unexpected(b, i, expected: "expected ':' after an object key")
        }
        i += 1
        frame.pendingKey = key
        frame.pendingLine = keyLine
    }

    func duplicate(_ key: String, _ offset: Int) -> JSONLexError {
        var quoted: [UInt8] = []
        JSONWriter.appendString(key, to: &quoted)
        return JSONLexError(offset: offset, message: "duplicate key " + String(decoding: quoted, as: UTF8.self), kind: .duplicateKey)
    }

    mutating func parseDocument() throws(JSONLexError) -> JSONValue {
        if lenient && b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        var stack: [Frame] = []
        var result: JSONValue
        valueLoop: while true {
            try skipWhitespace()
            guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
            var value: JSONValue
            switch b[i] {
            case JSONLex.openBrace, JSONLex.openBracket:
                let isObject = b[i] == JSONLex.openBrace
                guard stack.count < maxDepth else {
                    throw JSONLexError.tooDeep(at: i, maxDepth: maxDepth)
                }
                i += 1
                try skipWhitespace()
                if isObject {
                    if i < b.count && b[i] == JSONLex.closeBrace {
                        i += 1
                        value = .object([])
                    } else {
                        var frame = Frame(isObject: true)
                        try readKey(into: &frame, afterComma: false)
                        stack.append(frame)
                        continue valueLoop
                    }
                } else {
                    if i < b.count && b[i] == JSONLex.closeBracket {
                        i += 1
                        value = .array([])
                    } else {
                        stack.append(Frame(isObject: false))
                        continue valueLoop
                    }
                }
            case JSONLex.quote:
                value = .string(try parseString())
            case JSONLex.minus, 0x30...0x39:
                value = try parseNumber()
            case 0x74: value = try literal("true", .bool(true))
            case 0x66: value = try literal("false", .bool(false))
            case 0x6E: value = try literal("null", .null)
            default:
                throw JSONLex.unexpected(b, i, expected: "expected a value")
            }
            // Attach the value to its container, closing containers as they end.
            while true {
                let top = stack.count - 1
                guard top >= 0 else {
                    result = value
                    break valueLoop
                }
                if stack[top].isObject {
                    stack[top].members.append(
                        JSONMember(key: stack[top].pendingKey, value: value, line: stack[top].pendingLine))
                } else {
                    stack[top].elements.append(value)
                }
                try skipWhitespace()
                let close = stack[top].isObject ? JSONLex.closeBrace : JSONLex.closeBracket
                guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
                let c = b[i]
                if c == JSONLex.comma {
                    let commaOffset = i
                    i += 1
                    try skipWhitespace()
                    if i < b.count && b[i] == close {
                        guard lenient else {
                            throw JSONLexError(offset: commaOffset, message: "trailing comma is not allowed")
                        }
                        // fall through to closing below
                    } else if stack[top].isObject {
                        try readKey(into: &stack[top], afterComma: true)
                        continue valueLoop
                    } else {
                        continue valueLoop
                    }
                } else if c != close {
                    throw JSONLex.unexpected(
                        b, i,
                        expected: stack[top].isObject
                            ? "expected ',' or '}' after an object member"
                            : "expected ',' or ']' after an array element")
                }
                i += 1
                let frame = stack.removeLast()
                value = frame.isObject ? .object(frame.members) : .array(frame.elements)
            }
        }
        try skipWhitespace()
        if i < b.count {
            throw JSONLex.unexpected(b, i, expected: "expected end of input after the JSON value")
        }
        return result
    }
}
