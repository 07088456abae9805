// A small declarative argument engine that reproduces swift-argument-parser's observable
// behaviour (its documented conventions): its help layout, its error phrases, `--name value`, `--name=value`,
// `--`, and `-h`/`--help`/`--version` anywhere before `--`. Pure: no I/O, no Foundation.

/// One flag, option or positional argument of a command.
struct ArgumentSpec: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `--name`, no value.
        case flag
        /// `--name <valueName>` or `--name=<value>`.
        case option(valueName: String)
        /// `<name>`, or `[<name>]` when optional.
        case positional(optional: Bool)
    }

    /// Which values are accepted; checked by the engine, so commands only convert.
    enum ValueKind: Sendable, Equatable {
        case string
        /// A finite `Double` (negative and fractional allowed; `nan`/`inf` rejected).
        case finiteNumber
        /// A finite `Double` of 0 or more (a factor such as `--speed`, where a negative one means
        /// nothing); the error says so.
        case nonNegativeNumber
        /// One of these exact strings (shown in help and in the error message).
        case oneOf([String])
    }

    /// The long name without dashes for flags and options, the name for positionals.
    let key: String
    let kind: Kind
    let valueKind: ValueKind
    let help: String
    /// Shown as `(default: …)` after the help (with `values:` when `valueKind` is `oneOf`).
    let defaultValue: String?
    /// False for options listed in the help but not in the usage line (`--generate-manual`), as
    /// argument-parser leaves its own generator options out of the usage.
    var showsInUsage = true
    /// True for an option that may be given several times, each value kept (`--clear text
    /// --clear value`), where other options keep the last one.
    var repeats = false

    /// This argument, left out of the usage line (still in the help).
    func hiddenFromUsage() -> ArgumentSpec {
        var copy = self
        copy.showsInUsage = false
        return copy
    }

    /// This option, taken as often as it is given (``ParsedArguments/strings(_:)``); `...` in the usage.
    func repeating() -> ArgumentSpec {
        var copy = self
        copy.repeats = true
        return copy
    }

    static func flag(_ key: String, help: String) -> ArgumentSpec {
        ArgumentSpec(key: key, kind: .flag, valueKind: .string, help: help, defaultValue: nil)
    }

    static func option(
        _ key: String, value: String, _ valueKind: ValueKind = .string, help: String, default defaultValue: String? = nil
    ) -> ArgumentSpec {
        ArgumentSpec(key: key, kind: .option(valueName: value), valueKind: valueKind, help: help, defaultValue: defaultValue)
    }

    static func positional(
        _ key: String, optional: Bool = false, _ valueKind: ValueKind = .string, help: String
    ) -> ArgumentSpec {
        ArgumentSpec(key: key, kind: .positional(optional: optional), valueKind: valueKind, help: help, defaultValue: nil)
    }

    var isPositional: Bool {
        if case .positional = kind { return true }
        return false
    }

    /// The name as argument-parser quotes it in errors and help labels: `--socket <path>`, `--json`, `<x>`.
    var synopsis: String {
        switch kind {
        case .flag: return "--\(key)"
        case .option(let valueName): return "--\(key) <\(valueName)>"
        case .positional: return "<\(key)>"
        }
    }

    /// The fragment in the usage line: `[--socket <path>]`, `<x>`, `[<config>]`, `[--clear <key> ...]`.
    var usageFragment: String {
        switch kind {
        case .positional(optional: false): return synopsis
        default: return "[\(synopsis)\(repeats ? " ..." : "")]"
        }
    }

    /// The help column text: the help, then `(values: …; default: …)` or `(default: …)`.
    var helpColumn: String {
        var parts: [String] = []
        if case .oneOf(let values) = valueKind { parts.append("values: " + values.joined(separator: ", ")) }
        if let defaultValue { parts.append("default: " + defaultValue) }
        return parts.isEmpty ? help : "\(help) (\(parts.joined(separator: "; ")))"
    }

    /// Whether `value` is acceptable; when not, the suffix argument-parser appends to the error.
    func validate(_ value: String) -> (ok: Bool, hint: String) {
        switch valueKind {
        case .string:
            return (true, "")
        case .finiteNumber:
            return (Double(value)?.isFinite == true, "")
        case .nonNegativeNumber:
            guard let number = Double(value), number.isFinite, number >= 0 else {
                return (false, ". Please provide a number of 0 or more.")
            }
            return (true, "")
        case .oneOf(let values):
            if values.contains(value) { return (true, "") }
            let quoted = values.map { "'\($0)'" }
            let list =
                quoted.count <= 2
                ? quoted.joined(separator: " and ")
                : quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
            return (false, ". Please provide one of \(list).")
        }
    }
}

/// A row in a `SUBCOMMANDS:` section.
struct SubcommandSummary: Sendable, Equatable {
    let name: String
    let abstract: String
}

/// The values a command line supplied, by key. Values have already passed ``ArgumentSpec/validate(_:)``.
struct ParsedArguments: Sendable, Equatable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    /// Every value of a repeating option, in command-line order.
    var lists: [String: [String]] = [:]

    func flag(_ key: String) -> Bool { flags.contains(key) }
    func string(_ key: String) -> String? { values[key] }
    /// The values of a repeating option (``ArgumentSpec/repeating()``); empty when it was not given.
    func strings(_ key: String) -> [String] { lists[key] ?? [] }
    /// A value declared `.finiteNumber`; 0 if absent (only required positionals are read this way).
    func number(_ key: String) -> Double { values[key].flatMap { Double($0) } ?? 0 }
}

/// What `-h`/`--help`/`--version` asked for, if anything.
enum BuiltInRequest: Sendable, Equatable {
    case help
    case version
}

/// Whether `token` reads as a number, so `-5` is a value and not an option.
func looksLikeNumber(_ token: String) -> Bool { Double(token) != nil }

/// Whether `token` is option-shaped: `-x`, `--name`, `--` (but not `-` and not `-5`).
func looksLikeOption(_ token: String) -> Bool {
    token.hasPrefix("-") && token.count > 1 && !looksLikeNumber(token)
}

/// Finds `-h`/`--help` (wins) or `--version` among the tokens before `--`, as argument-parser does
/// wherever they appear, even where an option value is expected.
func builtInRequest(in tokens: some Sequence<String>) -> BuiltInRequest? {
    var sawVersion = false
    for token in tokens {
        if token == "--" { break }
        if token == "-h" || token == "--help" { return .help }
        if token == "--version" { sawVersion = true }
    }
    return sawVersion ? .version : nil
}

/// A command's declaration: what it accepts and how its help reads.
struct CommandSpec: Sendable {
    /// The command path, e.g. `["tapgrid", "status"]`.
    let path: [String]
    let abstract: String
    /// In declaration order; the order of the usage line and of the help rows.
    let arguments: [ArgumentSpec]
    /// Groups of option keys of which at most one may be given; shown as `[--a <x> | --b <y>]`.
    let exclusiveGroups: [[String]]
    let subcommands: [SubcommandSummary]
    /// The pages of `docs/` that hold this command's reference (``DocPages``), named last in its
    /// help and in its manual page.
    let docs: [String]

    init(
        path: [String], abstract: String, arguments: [ArgumentSpec] = [], exclusiveGroups: [[String]] = [],
        subcommands: [SubcommandSummary] = [], docs: [String] = []
    ) {
        self.path = path
        self.abstract = abstract
        self.arguments = arguments
        self.exclusiveGroups = exclusiveGroups
        self.subcommands = subcommands
        self.docs = docs
    }

    /// `Reference: docs/cell-state.md`, or nil without ``docs``.
    var reference: String? {
        guard let last = docs.last else { return nil }
        return "Reference: " + (docs.count > 1 ? docs.dropLast().joined(separator: ", ") + " and " + last : last)
    }

    var name: String { path.joined(separator: " ") }

    func argument(_ key: String, positional: Bool) -> ArgumentSpec? {
        arguments.first { $0.key == key && $0.isPositional == positional }
    }

    /// `tapgrid hit <x> <y> [--layout <name>] [--socket <path> | --config <path>] [--json]`.
    var usage: String {
        var fragments: [String] = []
        var emittedGroups: Set<Int> = []
        for argument in arguments where argument.showsInUsage {
            if !argument.isPositional,
                let groupIndex = exclusiveGroups.firstIndex(where: { $0.contains(argument.key) })
            {
                guard emittedGroups.insert(groupIndex).inserted else { continue }
                let members = exclusiveGroups[groupIndex].compactMap { self.argument($0, positional: false)?.synopsis }
                fragments.append("[" + members.joined(separator: " | ") + "]")
            } else {
                fragments.append(argument.usageFragment)
            }
        }
        if !subcommands.isEmpty { fragments.append("<subcommand>") }
        return ([name] + fragments).joined(separator: " ")
    }

    func error(_ message: String) -> UsageError {
        UsageError(message: message, usage: usage, commandName: name)
    }

    /// `Unknown option '--josn'; did you mean '--json'?` (the hint only when one option is close).
    func unknownOption(_ token: String) -> UsageError {
        let names = arguments.filter { !$0.isPositional }.map { "--" + $0.key } + ["--help", "--version"]
        var candidate = token
        if !token.hasPrefix("--") { candidate = "-" + token }  // `-json` for `--json`
        if let equals = candidate.firstIndex(of: "=") { candidate = String(candidate[..<equals]) }
        guard candidate.count > 3, let match = closestMatch(to: candidate, among: names) else {
            return error("Unknown option '\(token)'")
        }
        return error("Unknown option '\(token)'; did you mean '\(match)'?")
    }

    /// Parses the tokens after the command name. `-h`/`--help`/`--version` must have been handled
    /// already (see ``builtInRequest(in:)``).
    ///
    /// Errors come in this order: option errors in token order (unknown option, missing value, value
    /// given to a flag, invalid option value, exclusive options), then invalid positional values,
    /// then unexpected arguments, then missing arguments.
    /// - Throws: ``UsageError`` with argument-parser's phrase and this command's usage line.
    func parse(_ tokens: some Collection<String>) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var positionals: [String] = []
        var setOrder: [String] = []  // option and flag keys, first-set order, for exclusivity
        var index = tokens.startIndex
        var terminated = false

        while index != tokens.endIndex {
            let token = tokens[index]
            tokens.formIndex(after: &index)
            if terminated || !looksLikeOption(token) {
                positionals.append(token)
                continue
            }
            if token == "--" {
                terminated = true
                continue
            }
            guard token.hasPrefix("--") else { throw unknownOption(token) }

            let body = token.dropFirst(2)
            let key: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                key = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                key = String(body)
            }
            guard let spec = argument(key, positional: false) else { throw unknownOption("--\(key)") }

            switch spec.kind {
            case .flag:
                if let inlineValue {
                    throw error("The option '--\(key)' does not take any value, but '\(inlineValue)' was specified.")
                }
                parsed.flags.insert(key)
            case .option:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index != tokens.endIndex, !looksLikeOption(tokens[index]) {
                    value = tokens[index]
                    tokens.formIndex(after: &index)
                } else {
                    throw error("Missing value for '\(spec.synopsis)'")
                }
                let check = spec.validate(value)
                guard check.ok else { throw error("The value '\(value)' is invalid for '\(spec.synopsis)'\(check.hint)") }
                if spec.repeats {
                    parsed.lists[key, default: []].append(value)
                } else {
                    parsed.values[key] = value  // repeated options: the last one wins, as in argument-parser
                }
            case .positional:
                preconditionFailure("argument(_:positional: false) returned a positional")
            }

            if let group = exclusiveGroups.first(where: { $0.contains(key) }),
                let previous = setOrder.first(where: { $0 != key && group.contains($0) }),
                let previousSpec = argument(previous, positional: false)
            {
                throw error("'\(previousSpec.synopsis)' and '\(spec.synopsis)' cannot be combined; use one or the other")
            }
            if !setOrder.contains(key) { setOrder.append(key) }
        }

        let positionalSpecs = arguments.filter(\.isPositional)
        for (spec, value) in zip(positionalSpecs, positionals) {
            let check = spec.validate(value)
            guard check.ok else { throw error("The value '\(value)' is invalid for '\(spec.synopsis)'\(check.hint)") }
            parsed.values[spec.key] = value
        }
        if positionals.count > positionalSpecs.count {
            let extra = positionals[positionalSpecs.count...]
            if extra.count == 1 {
                throw error("Unexpected argument '\(extra[extra.startIndex])'")
            }
            throw error("\(extra.count) unexpected arguments: " + extra.map { "'\($0)'" }.joined(separator: ", "))
        }
        for spec in positionalSpecs.dropFirst(positionals.count) {
            if case .positional(optional: false) = spec.kind {
                throw error("Missing expected argument '\(spec.synopsis)'")
            }
        }
        return parsed
    }

    /// The help text, shaped like argument-parser's: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`,
    /// `SUBCOMMANDS:`; rows indented 2 with a 26-column label; wrapped at 80 columns. Ends with one
    /// newline (argument-parser's `print` would add a blank line after a leaf command's help; we don't).
    var helpText: String {
        let positionalRows = arguments.filter(\.isPositional).map { HelpRow(label: $0.synopsis, text: $0.helpColumn) }
        let optionRows =
            arguments.filter { !$0.isPositional }.map { HelpRow(label: $0.synopsis, text: $0.helpColumn) } + [
                HelpRow(label: "--version", text: "Show the version."),
                HelpRow(label: "-h, --help", text: "Show help information."),
            ]
        let subcommandRows = subcommands.map { HelpRow(label: $0.name, text: $0.abstract) }

        var sections: [String] = []
        for (title, rows) in [("ARGUMENTS", positionalRows), ("OPTIONS", optionRows), ("SUBCOMMANDS", subcommandRows)]
        where !rows.isEmpty {
            sections.append(title + ":\n" + rows.map(\.rendered).joined())
        }
        var text = wrapHelp("OVERVIEW: " + abstract, indent: 0) + "\n\n"
        text += "USAGE: " + usage + "\n\n"
        text += sections.joined(separator: "\n")
        if !subcommands.isEmpty {
            let helpPath = [path[0], "help"] + path.dropFirst()
            text += "\n  See '\(helpPath.joined(separator: " ")) <subcommand>' for detailed help.\n"
        }
        if let reference {
            // A program's own help also says where the pages are.
            text += "\n" + wrapHelp(path.count == 1 ? reference + "\n" + DocPages.whereTheyAre : reference, indent: 2) + "\n"
        }
        return text
    }
}

/// One label/help row of a help section.
struct HelpRow: Sendable, Equatable {
    static let indent = 2
    static let labelColumnWidth = 26

    let label: String
    let text: String

    /// `  --socket <path>         Daemon socket…\n`; a label too long for the column puts the help on
    /// the next line, at column 26.
    var rendered: String {
        let paddedLabel = String(repeating: " ", count: Self.indent) + label
        let wrapped = wrapHelp(text, indent: Self.labelColumnWidth)
        if paddedLabel.count < Self.labelColumnWidth {
            return paddedLabel + wrapped.dropFirst(paddedLabel.count) + "\n"
        }
        return paddedLabel + "\n" + wrapped + "\n"
    }
}

/// The width argument-parser uses when stdout is not a terminal; fixed here so help is reproducible.
let helpScreenWidth = 80

/// Word-wraps `text` to ``helpScreenWidth`` columns, every line indented by `indent` spaces, the way
/// argument-parser wraps help: break at the last space that fits, else at the first space after.
func wrapHelp(_ text: String, indent: Int) -> String {
    let columns = max(helpScreenWidth - indent, 1)
    var lines: [Substring] = []
    var rest = Substring(text)
    while true {
        let chunk = rest.prefix(columns)
        if let newline = chunk.lastIndex(of: "\n") {
            lines.append(contentsOf: rest[..<newline].split(separator: "\n", omittingEmptySubsequences: false))
            rest = rest[rest.index(after: newline)...]
        } else if chunk.endIndex == rest.endIndex {
            lines.append(rest)
            break
        } else if let space = chunk.lastIndex(of: " ") {
            lines.append(rest[..<space])
            rest = rest[rest.index(after: space)...]
        } else if let space = rest.firstIndex(of: " ") {
            lines.append(rest[..<space])
            rest = rest[rest.index(after: space)...]
        } else {
            lines.append(rest)
            break
        }
    }
    let padding = String(repeating: " ", count: indent)
    return lines.map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
}
