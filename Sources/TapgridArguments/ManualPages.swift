// Manual pages for both programs, in roff (man(7) macros), generated from the same declarations
// as their help texts: `tapgrid --generate-manual` writes tapgrid(1), `tapgridd --generate-manual`
// tapgridd(8).

/// The manual pages of `tapgrid` and `tapgridd`.
public enum ManualPages {
    /// tapgrid(1): the main help, then every subcommand's (with the pages of `docs/` that hold its
    /// reference), then exit status, environment, files, and every page of `docs/`.
    public static var tapgrid: String {
        let root = CLISpecs.root
        var page = header(name: "tapgrid", section: 1, title: "User Commands", abstract: root.abstract)
        page += ".SH SYNOPSIS\n.nf\n"
        page += CLISubcommand.allCases.map { escape($0.spec.usage) + "\n" }.joined()
        page += escape("tapgrid help <subcommand>") + "\n.fi\n"
        page += ".SH DESCRIPTION\n" + escape(root.abstract) + "\n" + paragraph(root.reference)
        page += ".SH OPTIONS\n" + rows(root.arguments.filter { !$0.isPositional } + builtInRows)
        page += ".SH COMMANDS\n"
        for sub in CLISubcommand.allCases {
            let spec = sub.spec
            page += ".SS \(sub.rawValue)\n" + escape(spec.abstract) + "\n.PP\n.nf\n" + escape(spec.usage) + "\n.fi\n"
            page += rows(spec.arguments)
            page += paragraph(spec.reference)
        }
        page += section(
            "EXIT STATUS",
            [
                ("0", "Success (tap exits 0 for every outcome, which it prints; replay --dispatch once every tap is answered, whatever the outcomes)."),
                ("1", "Failure: an invalid config or layout (check, load --check), an error reply from the daemon, a replay that differs."),
                ("64", "Usage error: Error: ..., then the usage, on standard error."),
                ("69", "The daemon cannot be reached (no socket, not a socket, permission denied, nobody listening)."),
            ])
        page += section(
            "ENVIRONMENT",
            [
                ("TAPGRID_CONFIG", "The config file when none is named (else \(DefaultPaths.systemConfig))."),
                ("TAPGRID_SOCKET", "The daemon's socket when --socket is not given."),
                ("RUNTIME_DIRECTORY, XDG_RUNTIME_DIR", "Folders holding \(DefaultPaths.socketFileName) when neither names a socket."),
            ])
        page += section("FILES", files)
        page += seeAlso(other: "tapgridd", section: 8)
        return page
    }

    /// tapgridd(8): its help, then signals, exit status, environment, files, and every page of `docs/`.
    public static var tapgridd: String {
        let spec = DaemonCommand.daemonSpec
        var page = header(name: "tapgridd", section: 8, title: "System Administration", abstract: spec.abstract)
        page += ".SH SYNOPSIS\n.nf\n" + escape(spec.usage) + "\n.fi\n"
        page += ".SH DESCRIPTION\n" + escape(spec.abstract) + "\n" + paragraph(spec.reference)
        page += ".SH OPTIONS\n" + rows(spec.arguments + builtInRows)
        page += section(
            "SIGNALS",
            [
                ("SIGHUP", "Reload the config; one that fails to load leaves the old one running."),
                ("SIGUSR1", "Reopen the event log (after log rotation)."),
                ("SIGTERM, SIGINT", "Shut down gracefully: answer what was received, stop children, exit 0; a second one exits at once."),
            ])
        page += section(
            "EXIT STATUS",
            [
                ("0", "A clean shutdown, or --check of a valid config."),
                ("1", "An invalid config, or the socket cannot be listened on."),
                ("64", "Usage error: Error: ..., then the usage, on standard error."),
            ])
        page += section(
            "ENVIRONMENT",
            [
                ("TAPGRID_CONFIG", "The config file when --config is not given (else \(DefaultPaths.systemConfig))."),
                ("TAPGRID_SOCKET", "The socket to listen on when systemd passes none and --socket is not given."),
                ("RUNTIME_DIRECTORY, XDG_RUNTIME_DIR", "Folders for \(DefaultPaths.socketFileName) after the config's socket.path."),
                ("STATE_DIRECTORY, XDG_STATE_HOME", "Folders for events.jsonl when the config's eventLog names no path."),
            ])
        page += section("FILES", files)
        page += seeAlso(other: "tapgrid", section: 1)
        return page
    }

    static let builtInRows = CompletionScripts.builtInOptions

    /// `.PP` and the text, or nothing for nil.
    static func paragraph(_ text: String?) -> String { text.map { ".PP\n" + escape($0) + "\n" } ?? "" }

    /// The other program's page, then every page of `docs/` with what it holds.
    static func seeAlso(other: String, section: Int) -> String {
        ".SH SEE ALSO\n.BR \(other) (\(section))\n.PP\n" + escape(DocPages.whereTheyAre) + "\n"
            + DocPages.all.map { ".TP\n\\fB\(escape($0.page))\\fR\n" + escape($0.holds) + "\n" }.joined()
    }

    static let files = [(DefaultPaths.systemConfig, "The default config."), (DefaultPaths.systemSocket, "The default socket.")]

    static func header(name: String, section: Int, title: String, abstract: String) -> String {
        var summary = Substring(abstract)
        if summary.hasSuffix(".") { summary = summary.dropLast() }
        let lowered = (summary.first.map { String($0).lowercased() } ?? "") + summary.dropFirst()
        return """
            .\\" \(name)(\(section)): generated by `\(name) --generate-manual` from its help texts.
            .TH \(name.uppercased()) \(section) "" "\(name) \(tapgridVersion)" "\(title)"
            .SH NAME
            \(name) \\- \(escape(lowered))

            """
    }

    /// One `.TP` paragraph per argument: its synopsis in bold (value names in italics), then its help.
    static func rows(_ arguments: [ArgumentSpec]) -> String {
        arguments.map { argument in
            let label: String
            switch argument.kind {
            case .flag: label = argument.key == "help" ? "\\fB\\-h\\fR, \\fB\\-\\-help\\fR" : "\\fB\\-\\-\(escape(argument.key))\\fR"
            case .option(let valueName): label = "\\fB\\-\\-\(escape(argument.key))\\fR \\fI\(escape(valueName))\\fR"
            case .positional: label = "\\fI\(escape(argument.key))\\fR"
            }
            return ".TP\n" + label + "\n" + escape(argument.helpColumn) + "\n"
        }.joined()
    }

    static func section(_ title: String, _ items: [(String, String)]) -> String {
        ".SH \(title)\n" + items.map { ".TP\n\\fB\(escape($0.0))\\fR\n" + escape($0.1) + "\n" }.joined()
    }

    /// Text safe in roff: backslashes and minus signs escaped, no line starting with `.` or `'`.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(character)
            }
        }
        return out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}
