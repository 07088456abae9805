/// The version both programs print for `--version`.
public let tapgridVersion = "0.1.0"

/// A command line that does not fit the command's definition.
///
/// Rendered the way swift-argument-parser renders its parse errors (its documented conventions), on stderr, exit 64:
///
///     Error: Unknown option '--foo'
///     Usage: tapgrid status [--socket <path>] [--config <path>] [--json]
///       See 'tapgrid status --help' for more information.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, in argument-parser's wording, e.g. `Missing expected argument '<x>'`.
    public let message: String
    /// The usage line of the (sub)command the error belongs to, without the `Usage: ` prefix.
    public let usage: String
    /// The command path whose help the error points to, e.g. `tapgrid status`.
    public let commandName: String

    /// The `sysexits.h` code for a usage error (`EX_USAGE`).
    public static let exitCode: Int32 = 64

    public init(message: String, usage: String, commandName: String) {
        self.message = message
        self.usage = usage
        self.commandName = commandName
    }

    /// The three lines, without a trailing newline.
    public var description: String {
        "Error: \(message)\nUsage: \(usage)\n  See '\(commandName) --help' for more information."
    }

    /// Exactly what goes to stderr: ``description`` plus a newline.
    public var stderrText: String { description + "\n" }
}
