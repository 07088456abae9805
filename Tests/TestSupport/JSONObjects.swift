import Foundation

/// Parses one line of JSON that must be an object (a reply, an event-log record), as Foundation
/// reads it: tests read the daemon's output with a parser that is not the daemon's own.
public func parseObject(_ line: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw TestFailure("not a JSON object: \(line)")
    }
    return object
}

/// Typed reads of a parsed object's members: nil when the member is missing or of another type,
/// so an `#expect` compares with the wanted value in one line.
extension Dictionary where Key == String, Value == Any {
    public func string(_ key: String) -> String? { self[key] as? String }
    /// A number's integer value (`NSNumber`, as `JSONSerialization` gives numbers).
    public func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    public func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    /// An error reply's `error.code`.
    public var errorCode: String? { object("error")?.string("code") }
    /// An error reply's `error.message`.
    public var errorMessage: String? { object("error")?.string("message") }
    /// Whether the member is there and JSON `null`.
    public func isNull(_ key: String) -> Bool { self[key] is NSNull }
}
