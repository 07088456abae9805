/// A syslog priority (`PRIORITY=` in the journal, `<N>` on stderr lines).
public enum JournalPriority: UInt8, Sendable, CaseIterable {
    case emergency = 0, alert, critical, error, warning, notice, info, debug

    /// The `<N>` prefix systemd strips from a stderr line and turns into its priority
    /// (`SyslogLevelPrefix=yes`, the default), e.g. `<4>` for `.warning`.
    public var stderrPrefix: String { "<\(rawValue)>" }
}

/// One structured journal record: `FIELD=value` pairs, packed into one byte buffer.
///
/// Built without Foundation and without a `String` per field: each `append` copies the name,
/// `=` and the value's UTF-8 into `bytes` and records where the field ends, so `Journal.send`
/// only points one `iovec` per field into the buffer. Keep one entry and `removeAll()` it
/// between records to reuse its capacity. Field names are code, not data: `StaticString`s of
/// `A-Z`, `0-9` and `_`, not starting with `_` (journald drops other names silently, so a bad
/// one is a programming error and stops the program).
public struct JournalEntry: Sendable {
    /// Every field's `NAME=value` bytes, back to back, no separators.
    public private(set) var bytes: [UInt8] = []
    /// Where each field ends in `bytes`; a field starts where the previous one ended.
    public private(set) var ends: [Int] = []

    /// An empty entry; `capacity` bytes reserved.
    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
        ends.reserveCapacity(16)
    }

    /// An entry with `MESSAGE`, `PRIORITY`, `MESSAGE_ID` (when given: 32 lowercase hex digits,
    /// e.g. from `systemd-id128 new`, one per kind of event) and `CODE_FILE`/`CODE_LINE`/
    /// `CODE_FUNC` of the caller, in that order. Append the `TAPGRID_*` fields after.
    public init(
        message: String, priority: JournalPriority, messageID: StaticString? = nil,
        file: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
    ) {
        self.init()
        append("MESSAGE", message)
        append("PRIORITY", UInt64(priority.rawValue))
        if let messageID { append("MESSAGE_ID", messageID) }
        append("CODE_FILE", file)
        append("CODE_LINE", UInt64(line))
        append("CODE_FUNC", function)
    }

    /// The number of fields.
    public var count: Int { ends.count }

    /// The fields as `NAME=value` strings, in order (for tests and diagnostics).
    public var fields: [String] {
        var start = 0
        return ends.map { end in
            defer { start = end }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    /// Empties the entry, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// Appends `NAME=value`. A value may hold any bytes, line breaks included (libsystemd then
    /// uses the protocol's length-prefixed form).
    public mutating func append(_ name: StaticString, _ value: String) {
        appendName(name)
        var value = value
        value.withUTF8 { bytes.append(contentsOf: $0) }
        ends.append(bytes.count)
    }

    /// Appends `NAME=value` for a compile-time value (a message ID, `#fileID`, `#function`).
    public mutating func append(_ name: StaticString, _ value: StaticString) {
        appendName(name)
        value.withUTF8Buffer { bytes.append(contentsOf: $0) }
        ends.append(bytes.count)
    }

    /// Appends `NAME=value` with the value in decimal (`TAPGRID_SEQ`, exit status, durations).
    public mutating func append(_ name: StaticString, _ value: some BinaryInteger) {
        appendName(name)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let first = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        bytes[first...].reverse()
        ends.append(bytes.count)
    }

    /// Appends `NAME=value` with raw bytes as the value.
    public mutating func append(_ name: StaticString, bytes value: some Sequence<UInt8>) {
        appendName(name)
        bytes.append(contentsOf: value)
        ends.append(bytes.count)
    }

    private mutating func appendName(_ name: StaticString) {
        precondition(Self.isValidFieldName(name), "invalid journal field name \(name)")
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "="))
    }

    /// Whether journald keeps a field of this name: 1 to 64 of `A-Z`, `0-9`, `_`, not starting
    /// with `_` (those are trusted fields only journald sets) or a digit.
    public static func isValidFieldName(_ name: StaticString) -> Bool {
        name.withUTF8Buffer { name in
            guard let first = name.first, name.count <= 64, first != UInt8(ascii: "_"),
                !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
            else { return false }
            return name.allSatisfy { c in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                    || c == UInt8(ascii: "_")
            }
        }
    }
}
