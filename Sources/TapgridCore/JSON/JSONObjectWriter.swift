/// Writes one JSON object member by member through `JSONWriter`, so no caller spells JSON
/// punctuation itself. `compact` is the wire format (`{"op":"tap","x":1}`); `spaced` is what
/// `tapgrid --json` prints for people who also read it (`{"taps": 3, "differ": 0}`). Values
/// given as a `JSONValue` (actionData, a daemon's error object) are always written compactly,
/// as the replies and the event log carry them.
public struct JSONObjectWriter: Sendable {
    public enum Style: Sendable, Equatable {
        /// `,` between members and `:` after keys.
        case compact
        /// `, ` between members and `: ` after keys.
        case spaced
    }

    public let style: Style
    private var out: [UInt8] = [0x7B]
    private var members = 0

    public init(_ style: Style = .compact) { self.style = style }

    /// The object's text so far, closed.
    public var bytes: [UInt8] { out + [0x7D] }

    /// The object's text, closed.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func key(_ key: String) {
        if members > 0 {
            out.append(0x2C)
            if style == .spaced { out.append(0x20) }
        }
        members += 1
        JSONWriter.appendString(key, to: &out)
        out.append(0x3A)
        if style == .spaced { out.append(0x20) }
    }

    /// `"key": "value"`, or `null` for nil.
    public mutating func string(_ key: String, _ value: String?) {
        self.key(key)
        if let value { JSONWriter.appendString(value, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
    }

    /// `"key": 120.5` (`JSONWriter.appendNumber`), or `null` for nil.
    public mutating func number(_ key: String, _ value: Double?) {
        self.key(key)
        if let value { JSONWriter.appendNumber(value, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
    }

    /// `"key": 42`, or `null` for nil.
    public mutating func int(_ key: String, _ value: Int64?) {
        self.key(key)
        if let value { JSONWriter.appendInt(value, to: &out) } else { JSONWriter.appendStatic("null", to: &out) }
    }

    /// `"key": 42`.
    public mutating func int(_ key: String, _ value: Int) { int(key, Int64(value)) }

    /// `"key": true`.
    public mutating func bool(_ key: String, _ value: Bool) {
        self.key(key)
        JSONWriter.appendStatic(value ? "true" : "false", to: &out)
    }

    /// `"key": true`, `false`, or `null` for nil.
    public mutating func bool(_ key: String, _ value: Bool?) {
        if let value { bool(key, value) } else { null(key) }
    }

    /// `"key": null`.
    public mutating func null(_ key: String) {
        self.key(key)
        JSONWriter.appendStatic("null", to: &out)
    }

    /// `"key": <value as compact JSON>`.
    public mutating func value(_ key: String, _ value: JSONValue) {
        self.key(key)
        JSONWriter.appendValue(value, to: &out)
    }

    /// `"key": <text>` for text that is already one JSON value written by this module (a record's
    /// `seq` as read, a grid's `actionDataJSON`), copied as it is.
    public mutating func json(_ key: String, _ text: String) {
        self.key(key)
        out.append(contentsOf: text.utf8)
    }

    /// `"key": <bytes>` for bytes that are already one JSON value (a request's `id`, echoed verbatim).
    public mutating func json(_ key: String, bytes: UnsafeBufferPointer<UInt8>) {
        self.key(key)
        out.append(contentsOf: bytes)
    }

    /// `"key": {...}`, the nested object in this object's style.
    public mutating func object(_ key: String, _ build: (inout JSONObjectWriter) -> Void) {
        var inner = JSONObjectWriter(style)
        build(&inner)
        self.object(key, inner)
    }

    /// `"key": {...}` written before, or `null` for nil.
    public mutating func object(_ key: String, _ inner: JSONObjectWriter?) {
        self.key(key)
        if let inner { out.append(contentsOf: inner.bytes) } else { JSONWriter.appendStatic("null", to: &out) }
    }

    /// `"key": [1, 2]`: numbers, separated as members are.
    public mutating func numbers(_ key: String, _ values: [Double]) {
        self.key(key)
        out.append(0x5B)
        for (k, value) in values.enumerated() {
            if k > 0 {
                out.append(0x2C)
                if style == .spaced { out.append(0x20) }
            }
            JSONWriter.appendNumber(value, to: &out)
        }
        out.append(0x5D)
    }

    /// `"key": [` then each object on a line of its own, indented by two spaces, then `]` on a
    /// line of its own: a long list (`show --format json`'s grids) a person can read and diff.
    public mutating func objectLines(_ key: String, _ elements: [JSONObjectWriter]) {
        self.key(key)
        out.append(0x5B)
        for (k, element) in elements.enumerated() {
            if k > 0 { out.append(0x2C) }
            out.append(contentsOf: [0x0A, 0x20, 0x20])
            out.append(contentsOf: element.bytes)
        }
        out.append(contentsOf: [0x0A, 0x5D])
    }
}
