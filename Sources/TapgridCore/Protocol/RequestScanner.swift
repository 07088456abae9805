/// Reads one request line as strict JSON without building a `JSONValue` tree, and without heap
/// allocation for typical requests (short keys without escapes, short layout names, simple numbers).
///
/// The whole line is validated (nested values of unknown keys included, at most 512 levels deep like
/// `JSONParser`'s default) before any `bad_request` is reported, so text that is not JSON is always a
/// `parse_error`. Parse error messages end with `at column N` (Unicode scalars, 1-based).
/// A plain tap line's coordinates (`RequestScanner.plainTap`), and their text in the line.
public struct PlainTap {
    public let x: Double
    public let y: Double
    /// Each coordinate's text in the line when it is exactly what `JSONWriter.writeNumber` writes
    /// for its value (`120`, `-3.25`; not `120.50`, `-0`, `1.2345`; see
    /// `LineScanner.quickNumber`), else nil: the event-log record copies it instead of
    /// formatting the number again. Valid as long as the line. Worked out here, once, rather
    /// than on each read: the daemon reads each once, and `callgrind` counted 20 more
    /// instructions per tap for the lazy form.
    public let xText: UnsafeBufferPointer<UInt8>?
    public let yText: UnsafeBufferPointer<UInt8>?

    init(x: Double, y: Double, line: UnsafeBufferPointer<UInt8>, xText: Range<Int>?, yText: Range<Int>?) {
        self.x = x
        self.y = y
        self.xText = xText.map { UnsafeBufferPointer(rebasing: line[$0]) }
        self.yText = yText.map { UnsafeBufferPointer(rebasing: line[$0]) }
    }
}

public enum RequestScanner {
    /// The nesting limit, the same as `JSONParser.parse`'s default.
    public static let maxDepth = 512

    public static func scan(_ line: UnsafeBufferPointer<UInt8>) -> Result<Request, RequestFailure> {
        var request = Request()
        if let failure = scan(line, into: &request) { return .failure(failure) }
        return .success(request)
    }

    /// `scan` for the daemon: fills in `request` (which must be a fresh `Request()`) and returns
    /// nil, or returns why the line was refused. No `Result` to take apart, so the caller never
    /// copies the `Request` out of one (each copy retains its strings).
    public static func scan(_ line: UnsafeBufferPointer<UInt8>, into request: inout Request) -> RequestFailure? {
        if let plain = plainTap(line) {
            request.x = plain.x
            request.y = plain.y
            return nil
        }
        return scanFully(line, into: &request)
    }

    /// A line of the shape nearly every tap has, `{"x":N,"y":N}` with plain numbers and nothing
    /// else but trailing whitespace, read in one pass; nil for any other line (which `scan`
    /// reads). The daemon tries it first: such a tap needs no `Request` at all.
    @inline(__always)
    public static func plainTap(_ line: UnsafeBufferPointer<UInt8>) -> PlainTap? {
        var scanner = LineScanner(b: line)
        return scanner.plainTap()
    }

    /// Whether `bytes` (a line, or the start of one still arriving) begins as a `load` request:
    /// `{"op":"load"` with any whitespace between (the order `tapgrid load` writes). Only such
    /// a line may pass the 65,536-byte line limit, up to `RequestScanner.maxLoadLineBytes`, so a
    /// definition of up to 1 MiB can arrive.
    public static func startsAsLoad(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func skip() { while i < bytes.count && JSONLex.isWhitespace(bytes[i]) { i += 1 } }
        func expect(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard i + count <= bytes.count else { return false }
            for k in 0..<count where bytes[i + k] != word.utf8Start[k] { return false }
            i += count
            return true
        }
        skip()
        guard expect("{") else { return false }
        skip()
        guard expect("\"op\"") else { return false }
        skip()
        guard expect(":") else { return false }
        skip()
        return expect("\"load\"")
    }

    /// The longest `load` line accepted: a 1 MiB definition (`ControlRequest.maxDefinitionBytes`)
    /// and 64 KiB for the rest of the request and its whitespace.
    public static let maxLoadLineBytes = ControlRequest.maxDefinitionBytes + 65_536

    /// `scan` without the plain-tap shortcut (tests compare the two).
    static func scanFully(_ line: UnsafeBufferPointer<UInt8>, into request: inout Request) -> RequestFailure? {
        var scanner = LineScanner(b: line)
        do throws(JSONLexError) {
            return try scanner.scanLine(into: &request)
        } catch {
            let (_, column) = JSONLex.position(of: error.offset, in: line)
            return RequestFailure(.parseError(error.message + " at column \(column)"))
        }
    }

    public static func scan(_ line: [UInt8]) -> Result<Request, RequestFailure> {
        line.withUnsafeBufferPointer { scan($0) }
    }
}

private enum KnownKey: UInt8 {
    case op, x, y, layout, id, slot, other
}

/// A fixed, inline stack of 512 bits: the kind (object or array) of each open container.
private struct BitStack {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    @inline(__always) mutating func set(_ k: Int, _ value: Bool) {
        withUnsafeMutableBytes(of: &words) { raw in
            let w = raw.bindMemory(to: UInt64.self)
            let bit: UInt64 = 1 << UInt64(k & 63)
            if value { w[k >> 6] |= bit } else { w[k >> 6] &= ~bit }
        }
    }

    @inline(__always) func get(_ k: Int) -> Bool {
        withUnsafeBytes(of: words) { raw in
            raw.load(fromByteOffset: (k >> 6) * 8, as: UInt64.self) & (1 << UInt64(k & 63)) != 0
        }
    }
}

/// Up to 16 top-level keys kept inline (start, end, escapes), then a set of decoded keys.
private struct KeyList {
    var inline: (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    var overflow: Set<[UInt8]>? = nil

    static func pack(_ start: Int, _ end: Int, _ escapes: Bool) -> UInt64 {
        UInt64(start) << 32 | UInt64(end) << 1 | (escapes ? 1 : 0)
    }

    /// Records the key whose content is `start..<end`; returns false if it was already there.
    mutating func insert(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, escapes: Bool) -> Bool {
        if overflow != nil {
            return overflow!.insert(JSONLex.decodeBytes(b, start, end)).inserted
        }
        let packed = KeyList.pack(start, end, escapes)
        let n = count
        let duplicate: Bool = withUnsafeBytes(of: inline) { raw in
            let keys = raw.bindMemory(to: UInt64.self)
            for k in 0..<n {
                let other = keys[k]
                let oStart = Int(other >> 32)
                let oEnd = Int((other & 0xFFFF_FFFF) >> 1)
                if KeyList.equal(b, start, end, escapes, oStart, oEnd, other & 1 != 0) { return true }
            }
            return false
        }
        if duplicate { return false }
        if n < 16 {
            withUnsafeMutableBytes(of: &inline) { raw in raw.bindMemory(to: UInt64.self)[n] = packed }
            count += 1
        } else {
            var set = Set<[UInt8]>(minimumCapacity: 64)
            withUnsafeBytes(of: inline) { raw in
                for other in raw.bindMemory(to: UInt64.self) {
                    set.insert(JSONLex.decodeBytes(b, Int(other >> 32), Int((other & 0xFFFF_FFFF) >> 1)))
                }
            }
            set.insert(JSONLex.decodeBytes(b, start, end))
            overflow = set
        }
        return true
    }

    static func equal(
        _ b: UnsafeBufferPointer<UInt8>, _ s1: Int, _ e1: Int, _ esc1: Bool, _ s2: Int, _ e2: Int, _ esc2: Bool
    ) -> Bool {
        if !esc1 && !esc2 {
            guard e1 - s1 == e2 - s2 else { return false }
            var k = 0
            while k < e1 - s1 {
                if b[s1 + k] != b[s2 + k] { return false }
                k += 1
            }
            return true
        }
        return JSONLex.decodeBytes(b, s1, e1) == JSONLex.decodeBytes(b, s2, e2)
    }
}

/// The allocation-free scanner of one JSON line: the request scanner's, and `EventRecord.kind`'s.
struct LineScanner {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0
    /// Whether the number `quickNumber` read last is written exactly as `JSONWriter.writeNumber`
    /// writes its value: an integer other than `-0` (`writeInt`), or 1 to 3 decimal places not
    /// ending in `0` with under 10 integer digits (`writeShortDecimal`'s range; the value's
    /// shortest text is its own digits, as no two decimals of 15 digits or fewer read as the
    /// same double). Worked out while reading it: a second pass over the text cost 90
    /// instructions per tap (callgrind).
    var canonical = false

    init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

    @inline(__always) mutating func skipWhitespace() {
        while i < b.count && JSONLex.isWhitespace(b[i]) { i += 1 }
    }

    @inline(__always) func bytesEqual(_ start: Int, _ end: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard end - start == count else { return false }
        let p = word.utf8Start
        for k in 0..<count where b[start + k] != p[k] { return false }
        return true
    }

    fileprivate func knownKey(_ start: Int, _ end: Int, escapes: Bool) -> KnownKey {
        if escapes {
            let decoded = JSONLex.decodeBytes(b, start, end)
            return decoded.withUnsafeBufferPointer { LineScanner(b: $0).knownKey(0, $0.count, escapes: false) }
        }
        switch end - start {
        case 1:
            if b[start] == 0x78 { return .x }
            if b[start] == 0x79 { return .y }
        case 2:
            if bytesEqual(start, end, "op") { return .op }
            if bytesEqual(start, end, "id") { return .id }
        case 4:
            if bytesEqual(start, end, "slot") { return .slot }
        case 6:
            if bytesEqual(start, end, "layout") { return .layout }
        default: break
        }
        return .other
    }

    func op(_ start: Int, _ end: Int, escapes: Bool) -> Request.Op {
        if !escapes {
            switch end - start {
            case 2:
                if bytesEqual(start, end, "up") { return .up }
            case 3:
                if bytesEqual(start, end, "tap") { return .tap }
                if bytesEqual(start, end, "hit") { return .hit }
                if bytesEqual(start, end, "use") { return .use }
                if bytesEqual(start, end, "set") { return .set }
            case 4:
                if bytesEqual(start, end, "down") { return .down }
                if bytesEqual(start, end, "move") { return .move }
                if bytesEqual(start, end, "load") { return .load }
                if bytesEqual(start, end, "wake") { return .wake }
            case 6:
                if bytesEqual(start, end, "cancel") { return .cancel }
                if bytesEqual(start, end, "status") { return .status }
                if bytesEqual(start, end, "reload") { return .reload }
                if bytesEqual(start, end, "unload") { return .unload }
                if bytesEqual(start, end, "screen") { return .screen }
            case 7:
                if bytesEqual(start, end, "layouts") { return .layouts }
            default: break
            }
        }
        switch JSONLex.decodeString(b, start, end, hasEscapes: escapes) {
        case "tap": return .tap
        case "hit": return .hit
        case "use": return .use
        case "status": return .status
        case "reload": return .reload
        case "layouts": return .layouts
        case "down": return .down
        case "move": return .move
        case "up": return .up
        case "cancel": return .cancel
        case "set": return .set
        case "load": return .load
        case "unload": return .unload
        case "wake": return .wake
        case "screen": return .screen
        case let other: return .unknown(other)
        }
    }

    /// The common coordinate (`-`? digits, `.` digits?, at most 15 digits in all, no exponent) read
    /// in one pass, `i` moved past it; nil, `i` unchanged, for anything else (the full `scanNumber`
    /// then reads it or reports the error). Under 10^15 the digits are an exact `Double`, and so is
    /// 10^(fraction digits): one correctly rounded division gives what `doubleValue` gives.
    @inline(__always) mutating func quickNumber() -> Double? {
        let n = b.count
        var j = i
        let negative = b[j] == JSONLex.minus
        if negative { j += 1 }
        let intStart = j
        var digits: UInt64 = 0
        while j < n {
            let d = b[j] &- 0x30
            if d >= 10 { break }
            digits = digits &* 10 &+ UInt64(d)
            j += 1
        }
        let intCount = j - intStart
        guard intCount > 0, intCount == 1 || b[intStart] != JSONLex.zero else { return nil }
        var fracCount = 0
        if j < n && b[j] == JSONLex.dot {
            j += 1
            let fracStart = j
            while j < n {
                let d = b[j] &- 0x30
                if d >= 10 { break }
                digits = digits &* 10 &+ UInt64(d)
                j += 1
            }
            fracCount = j - fracStart
            guard fracCount > 0 else { return nil }
        }
        guard intCount + fracCount <= 15 else { return nil }
        if j < n && (JSONLex.isWordByte(b[j]) || b[j] == JSONLex.dot) { return nil }
        canonical = fracCount == 0
            ? !(negative && digits == 0)
            : intCount <= 9 && fracCount <= 3 && b[j - 1] != JSONLex.zero
        var value = Double(digits)
        if fracCount > 0 {
            var scale = 10.0
            for _ in 1..<fracCount { scale *= 10 }
            value /= scale
        }
        i = j
        return negative ? -value : value
    }

    /// Validates one JSON value at `i` (after whitespace) whose container depth is `depth`.
    mutating func skipValue(depth: Int) throws(JSONLexError) {
        var stack = BitStack()
        var level = 0  // open containers inside this value
        valueLoop: while true {
            guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
            switch b[i] {
            case JSONLex.openBrace, JSONLex.openBracket:
                let isObject = b[i] == JSONLex.openBrace
                guard depth + level < RequestScanner.maxDepth else {
                    throw JSONLexError.tooDeep(at: i, maxDepth: RequestScanner.maxDepth)
                }
                i += 1
                skipWhitespace()
                let close = isObject ? JSONLex.closeBrace : JSONLex.closeBracket
                if i < b.count && b[i] == close {
                    i += 1
                } else {
                    stack.set(level, isObject)
                    level += 1
                    if isObject { try skipKeyAndColon(afterComma: false) }
                    continue valueLoop
                }
            case JSONLex.quote:
                i = try JSONLex.scanString(b, i).end
            case JSONLex.minus, 0x30...0x39:
                let literal = try JSONLex.scanNumber(b, i)
                // As the JSON parser does: a number that overflows to infinity is refused even
                // where it is ignored or echoed (an unknown key, `id`). Only a literal of 5 bytes
                // or more ("1e309") can overflow, so short numbers cost no conversion.
                if literal.end - i >= 5 && !JSONLex.doubleValue(literal, in: b).isFinite {
                    throw JSONLexError(offset: i, message: "number out of range")
                }
                i = literal.end
            case 0x74: try literal("true")
            case 0x66: try literal("false")
            case 0x6E: try literal("null")
            default:
                throw JSONLex.unexpected(b, i, expected: "expected a value")
            }
            // After a value: close containers or move to the next element.
            while true {
                guard level > 0 else { return }
                let isObject = stack.get(level - 1)
                skipWhitespace()
                guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
                let c = b[i]
                if c == JSONLex.comma {
                    let commaOffset = i
                    i += 1
                    skipWhitespace()
                    if i < b.count && b[i] == (isObject ? JSONLex.closeBrace : JSONLex.closeBracket) {
                        throw JSONLexError(offset: commaOffset, message: "trailing comma is not allowed")
                    }
                    if isObject { try skipKeyAndColon(afterComma: true) }
                    continue valueLoop
                }
                if c != (isObject ? JSONLex.closeBrace : JSONLex.closeBracket) {
                    throw JSONLex.unexpected(
                        b, i,
                        expected: isObject
                            ? "expected ',' or '}' after an object member"
                            : "expected ',' or ']' after an array element")
                }
                i += 1
                level -= 1
            }
        }
    }

    /// Validates a nested object's key and colon (duplicates there are ignored, like unknown keys'
    /// contents: only top-level keys matter), leaving `i` at the value.
    mutating func skipKeyAndColon(afterComma: Bool) throws(JSONLexError) {
        guard i < b.count, b[i] == JSONLex.quote else {
            throw JSONLex.unexpected(b, i, expected: afterComma ? "expected a string key" : "expected a string key or '}'")
        }
        i = try JSONLex.scanString(b, i).end
        skipWhitespace()
        guard i < b.count, b[i] == JSONLex.colon else {
            throw JSONLex.unexpected(b, i, expected: "expected ':' after an object key")
        }
        i += 1
        skipWhitespace()
    }

    mutating func literal(_ word: StaticString) throws(JSONLexError) {
        let count = word.utf8CodeUnitCount
        guard i + count <= b.count, bytesEqual(i, i + count, word),
            i + count == b.count || !JSONLex.isWordByte(b[i + count])
        else { throw JSONLex.unexpected(b, i, expected: "expected a value") }
        i += count
    }

    /// `RequestScanner.plainTap`: `{"x":N,"y":N}` with `quickNumber`s (about a quarter of the
    /// full scan's instructions).
    mutating func plainTap() -> PlainTap? {
        let n = b.count
        guard n >= 13, b[0] == JSONLex.openBrace, b[1] == JSONLex.quote, b[2] == 0x78, b[3] == JSONLex.quote,
            b[4] == JSONLex.colon
        else { return nil }
        i = 5
        guard let x = quickNumber() else { return nil }
        let xEnd = i
        let xCanonical = canonical
        guard i + 6 <= n, b[i] == JSONLex.comma, b[i + 1] == JSONLex.quote, b[i + 2] == 0x79, b[i + 3] == JSONLex.quote,
            b[i + 4] == JSONLex.colon
        else { return nil }
        i += 5
        let yStart = i
        guard let y = quickNumber(), i < n, b[i] == JSONLex.closeBrace else { return nil }
        let yEnd = i
        i += 1
        skipWhitespace()
        guard i == n else { return nil }
        return PlainTap(x: x, y: y, line: b, xText: xCanonical ? 5..<xEnd : nil, yText: canonical ? yStart..<yEnd : nil)
    }

    mutating func scanLine(into request: inout Request) throws(JSONLexError) -> RequestFailure? {
        skipWhitespace()
        guard i < b.count, b[i] == JSONLex.openBrace else {
            try skipValue(depth: 0)
            try expectEnd()
            return RequestFailure(.badRequest("a request must be a JSON object"))
        }
        i += 1
        skipWhitespace()
        var bad: RequestError? = nil
        if i < b.count && b[i] == JSONLex.closeBrace {
            i += 1
            try expectEnd()
            return nil
        }
        var keys = KeyList()
        var seenKnown: UInt8 = 0
        var afterComma = false
        while true {
            guard i < b.count, b[i] == JSONLex.quote else {
                throw JSONLex.unexpected(b, i, expected: afterComma ? "expected a string key" : "expected a string key or '}'")
            }
            let keyStart = i + 1
            let (keyEnd, keyEscapes) = try JSONLex.scanString(b, i)
            i = keyEnd
            skipWhitespace()
            guard i < b.count, b[i] == JSONLex.colon else {
                throw JSONLex.unexpected(b, i, expected: "expected ':' after an object key")
            }
            i += 1
            skipWhitespace()
            let valueStart = i
            // Known keys are told apart from each other by a bit each: a known key (escaped or not)
            // can only equal the same known key, so only the others go through `KeyList`.
            var known = knownKey(keyStart, keyEnd - 1, escapes: keyEscapes)
            let fresh: Bool
            if known == .other {
                fresh = keys.insert(b, keyStart, keyEnd - 1, escapes: keyEscapes)
            } else {
                let bit: UInt8 = 1 << known.rawValue
                fresh = seenKnown & bit == 0
                seenKnown |= bit
            }
            if !fresh {
                if bad == nil {
                    let key = JSONLex.decodeString(b, keyStart, keyEnd - 1, hasEscapes: keyEscapes)
                    bad = .badRequest("duplicate key " + jsonEscaped(key))
                }
                known = .other
            }
            guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
            let c = b[i]
            switch known {
            case .op:
                if c == JSONLex.quote {
                    let (end, escapes) = try JSONLex.scanString(b, i)
                    request.op = op(i + 1, end - 1, escapes: escapes)
                    i = end
                } else {
                    try skipValue(depth: 1)
                    if bad == nil { bad = .badRequest("\"op\" must be a string") }
                }
            case .x, .y:
                var value: Double? = nil
                if let quick = quickNumber() {
                    value = quick
                } else if c == JSONLex.minus || JSONLex.isDigit(c) {
                    let literal = try JSONLex.scanNumber(b, i)
                    i = literal.end
                    let d = JSONLex.doubleValue(literal, in: b)
                    if d.isFinite { value = d }
                } else {
                    try skipValue(depth: 1)
                }
                if let value {
                    if known == .x { request.x = value } else { request.y = value }
                } else if bad == nil {
                    bad = .badRequest(known == .x ? "\"x\" must be a finite number" : "\"y\" must be a finite number")
                }
            case .layout:
                if c == JSONLex.quote {
                    let (end, escapes) = try JSONLex.scanString(b, i)
                    request.layout = JSONLex.decodeString(b, i + 1, end - 1, hasEscapes: escapes)
                    i = end
                } else {
                    try skipValue(depth: 1)
                    if !(i - valueStart == 4 && bytesEqual(valueStart, i, "null")) && bad == nil {
                        bad = .badRequest("\"layout\" must be a string")
                    }
                }
            case .id:
                try skipValue(depth: 1)
                request.id = valueStart..<i
            case .slot:
                var value: Double? = nil
                if let quick = quickNumber() {
                    value = quick
                } else {
                    try skipValue(depth: 1)
                }
                if let value, value >= 0, value <= 1_000_000, value.rounded() == value {
                    request.slot = Int(value)
                } else if !(i - valueStart == 4 && bytesEqual(valueStart, i, "null")) && bad == nil {
                    bad = .badRequest("\"slot\" must be an integer from 0 to 1000000")
                }
            case .other:
                try skipValue(depth: 1)
            }
            skipWhitespace()
            guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
            if b[i] == JSONLex.comma {
                let commaOffset = i
                i += 1
                skipWhitespace()
                if i < b.count && b[i] == JSONLex.closeBrace {
                    throw JSONLexError(offset: commaOffset, message: "trailing comma is not allowed")
                }
                afterComma = true
                continue
            }
            guard b[i] == JSONLex.closeBrace else {
                throw JSONLex.unexpected(b, i, expected: "expected ',' or '}' after an object member")
            }
            i += 1
            break
        }
        try expectEnd()
        if let bad { return RequestFailure(bad, id: request.id) }
        return nil
    }

    mutating func expectEnd() throws(JSONLexError) {
        skipWhitespace()
        if i < b.count {
            throw JSONLex.unexpected(b, i, expected: "expected end of input after the JSON value")
        }
    }
}
