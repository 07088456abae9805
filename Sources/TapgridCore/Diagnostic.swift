/// An error or warning found in a layout or config, naming where it is and what was expected.
///
/// The text follows one shape everywhere so people and tools can read it:
/// `layout "home", grid 1/0: "size": "200" is not a size; use ...`.
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public var severity: Severity
    /// The file the problem is in (config or layout file), as the user named it.
    public var file: String?
    /// The layout's name, when the problem is inside a layout.
    public var layout: String?
    /// The grid path (`""` is the root), when the problem is inside a grid.
    public var gridPath: String?
    /// The message proper, starting with the key when there is one: `"size": ...`.
    public var message: String

    public init(_ severity: Severity, file: String? = nil, layout: String? = nil, gridPath: String? = nil, _ message: String) {
        self.severity = severity
        self.file = file
        self.layout = layout
        self.gridPath = gridPath
        self.message = message
    }

    /// Where the problem is: `layout "home", grid 1/0` or `layout "home"`; empty when nowhere in particular.
    public var location: String {
        var parts: [String] = []
        if let layout { parts.append("layout \(jsonEscaped(layout))") }
        if let gridPath { parts.append("grid \(gridPath.isEmpty ? "(root)" : gridPath)") }
        return parts.joined(separator: ", ")
    }

    public var description: String {
        let location = self.location
        let text = location.isEmpty ? message : "\(location): \(message)"
        return file.map { "\($0): \(text)" } ?? text
    }
}

/// A list of diagnostics being gathered; loading stops at nothing, so users see every problem at once.
public struct Diagnostics: Sendable {
    public private(set) var all: [Diagnostic] = []

    public init() {}

    public var errors: [Diagnostic] { all.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { all.filter { $0.severity == .warning } }
    public var hasErrors: Bool { all.contains { $0.severity == .error } }

    public mutating func append(_ diagnostic: Diagnostic) { all.append(diagnostic) }
    public mutating func append(contentsOf other: Diagnostics) { all.append(contentsOf: other.all) }

    /// Appends `other`'s diagnostics, naming `file` on those that name no file yet.
    public mutating func append(contentsOf other: Diagnostics, file: String) {
        for var diagnostic in other.all {
            if diagnostic.file == nil { diagnostic.file = file }
            all.append(diagnostic)
        }
    }

    public mutating func error(_ message: String, file: String? = nil) { all.append(Diagnostic(.error, file: file, message)) }
    public mutating func warning(_ message: String, file: String? = nil) { all.append(Diagnostic(.warning, file: file, message)) }
}

/// `; did you mean "padding"?` when one of `known` is within 2 edits of `key` (the nearest, ties
/// going to the first in sorted order), else nothing: the hint every unknown-key warning ends with.
func didYouMean(_ key: String, among known: some Collection<String>) -> String {
    let best = known.map { ($0, editDistance($0, key)) }.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
    guard let best, best.1 <= 2 else { return "" }
    return "; did you mean \(jsonEscaped(best.0))?"
}

/// `hint` if there is one, else `otherwise` after "; ": an unknown key's warning names the key
/// it was probably meant to be, or lists the keys that are known there.
func hintOrList(_ hint: String, _ otherwise: String) -> String {
    hint.isEmpty ? "; " + otherwise : hint
}

/// A JSON value as compact text, for messages that quote what the user wrote.
func shown(_ value: JSONValue) -> String {
    value.compactJSON
}
