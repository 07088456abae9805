/// A parsed JSON document, as config and layout files are read into it.
///
/// Objects keep their members in document order (messages and warnings name keys in the order the
/// user wrote them) and are never deduplicated here: the parser refuses duplicate keys itself.
/// Numbers keep an exact `Int64` beside the `Double` when the literal is integral, so a 64-bit
/// `tag` such as 9007199254740993 survives.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The member named `key`, if this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    /// A short name of the value's type for messages: "a string", "an object", ...
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// One `"key": value` pair of a JSON object, with the line of its key for messages.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue
    /// 1-based line of the key in the source text (0 when built in code).
    public var line: Int

    public init(key: String, value: JSONValue, line: Int = 0) {
        self.key = key
        self.value = value
        self.line = line
    }

    public static func == (a: JSONMember, b: JSONMember) -> Bool { a.key == b.key && a.value == b.value }
}

/// A JSON number: its `Double` value and, when it is integral and fits, its exact `Int64` value.
public struct JSONNumber: Sendable, Equatable {
    public var double: Double
    /// Exact value for integral numbers that fit in `Int64` (`7`, `-3`, `1.0`, `2e3`); nil otherwise.
    public var int64: Int64?

    public init(_ double: Double, int64: Int64? = nil) {
        self.double = double
        if let int64 { self.int64 = int64 } else { self.int64 = JSONNumber.exactInt64(double) }
    }

    public init(_ int: Int64) {
        self.double = Double(int)
        self.int64 = int
    }

    /// The `Int64` equal to `value`, if `value` is integral and within range.
    public static func exactInt64(_ value: Double) -> Int64? {
        guard value.isFinite, value.rounded(.towardZero) == value,
            value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(value)
    }
}
