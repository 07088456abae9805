extension EventRecord {
    /// What a record is, as `read` tells it apart: by its top-level `"event"` member.
    public enum Kind: Sendable, Equatable {
        /// No `"event"` member: a tap record.
        case tap
        /// `"event": "touch"`: a contact event.
        case touch
        /// `"event": "state"`: a cell state change.
        case state
        /// Any other `"event"` (a child's `exit`, and kinds a newer daemon writes).
        case other
    }

    /// Whether a record as this daemon writes it is a contact record, from its third member
    /// alone: every record starts `{"time":"<24 characters>","run":"<id>",` (`EventRecordHead`),
    /// then a contact record's `"event":"touch"` or every other record's `"seq":` (or `"event"`).
    /// - Returns: nil for a line that does not start so (another writer's, or an older one's):
    ///   `kind` decides then.
    public static func isTouchAsWritten(_ line: UnsafeBufferPointer<UInt8>) -> Bool? {
        let head: StaticString = #"{"time":""#, run: StaticString = #"","run":""#
        let timeEnd = head.utf8CodeUnitCount + 24
        guard line.count > timeEnd + run.utf8CodeUnitCount + 8, has(head, in: line, at: 0), has(run, in: line, at: timeEnd)
        else { return nil }
        guard let base = line.baseAddress else { return nil }
        var i = timeEnd + run.utf8CodeUnitCount
        // Eight bytes at a time while none is a quote or a backslash (the run id is 32 hex digits).
        let raw = UnsafeRawPointer(base)
        while i + 8 <= line.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if ByteWord.matches(word, 0x22) | ByteWord.matches(word, 0x5C) != 0 { break }
            i += 8
        }
        while i < line.count && base[i] != 0x22 {
            if base[i] == 0x5C { return nil }  // an escaped run id: not worth reading here
            i += 1
        }
        i += 1
        guard i < line.count, line[i] == 0x2C else { return nil }
        if has(#""seq":"#, in: line, at: i + 1) { return false }
        if has(#""event":"touch""#, in: line, at: i + 1) { return true }
        if has(#""event":"#, in: line, at: i + 1) { return false }
        return nil
    }

    /// Whether `line` holds `text` at `offset` (no allocation: a static string's own bytes).
    @inline(__always)
    static func has(_ text: StaticString, in line: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset >= 0, offset + count <= line.count, let base = line.baseAddress else { return false }
        // Eight bytes at a time, then the rest: the feed asks three times per record.
        let line = UnsafeRawPointer(base + offset), word = UnsafeRawPointer(text.utf8Start)
        var k = 0
        while k + 8 <= count {
            if line.loadUnaligned(fromByteOffset: k, as: UInt64.self) != word.loadUnaligned(fromByteOffset: k, as: UInt64.self) {
                return false
            }
            k += 8
        }
        while k < count {
            if line.load(fromByteOffset: k, as: UInt8.self) != word.load(fromByteOffset: k, as: UInt8.self) { return false }
            k += 1
        }
        return true
    }

    /// The record's kind, read from its top-level members with the request scanner's lexer: no
    /// `JSONValue`, nothing allocated, and reading stops at `"event"` (which the daemon writes
    /// among the first members), so a feed that only needs the kind pays a few dozen bytes of
    /// scanning per record, not a parse. Members before it are checked as strict JSON; what
    /// follows it is not looked at (`read` says whether the whole line is a record).
    /// - Returns: nil when the line is not a JSON object as far as it was read.
    public static func kind(of line: UnsafeBufferPointer<UInt8>) -> Kind? {
        var scanner = LineScanner(b: line)
        do throws(JSONLexError) {
            return try scanner.eventKind()
        } catch {
            return nil
        }
    }
}

extension LineScanner {
    /// `EventRecord.kind`: the object's members up to `"event"`, and that member's string.
    fileprivate mutating func eventKind() throws(JSONLexError) -> EventRecord.Kind? {
        skipWhitespace()
        guard i < b.count, b[i] == JSONLex.openBrace else { return nil }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == JSONLex.closeBrace { return .tap }
        while true {
            guard i < b.count, b[i] == JSONLex.quote else { return nil }
            let keyStart = i + 1
            let (keyEnd, keyEscapes) = try JSONLex.scanString(b, i)
            i = keyEnd
            skipWhitespace()
            guard i < b.count, b[i] == JSONLex.colon else { return nil }
            i += 1
            skipWhitespace()
            if isWord(keyStart, keyEnd - 1, escapes: keyEscapes, "event") {
                guard i < b.count, b[i] == JSONLex.quote else { return .other }
                let (end, escapes) = try JSONLex.scanString(b, i)
                if isWord(i + 1, end - 1, escapes: escapes, "touch") { return .touch }
                if isWord(i + 1, end - 1, escapes: escapes, "state") { return .state }
                return .other
            }
            try skipValue(depth: 1)
            skipWhitespace()
            guard i < b.count else { throw JSONLexError.endOfInput(at: i) }
            if b[i] == JSONLex.closeBrace { return .tap }
            guard b[i] == JSONLex.comma else { return nil }
            i += 1
            skipWhitespace()
        }
    }

    /// Whether the string content `start..<end` is `word` (escapes decoded first).
    private func isWord(_ start: Int, _ end: Int, escapes: Bool, _ word: StaticString) -> Bool {
        guard escapes else { return bytesEqual(start, end, word) }
        let decoded = JSONLex.decodeBytes(b, start, end)
        return decoded.withUnsafeBufferPointer { LineScanner(b: $0).bytesEqual(0, $0.count, word) }
    }
}
