// The `tapgridd` command line.

/// Options of `tapgridd`.
public struct DaemonOptions: Sendable, Equatable {
    /// `--config`; nil means the default config (see ``DefaultPaths/configPath(cli:environment:)``).
    public var config: String?
    /// `--socket`; nil means the next source in the daemon's precedence (see ``DefaultPaths``).
    public var socket: String?
    /// `--check`: load and validate the config, then exit without listening.
    public var check: Bool
    /// `--verbose`: log debug-level detail.
    public var verbose: Bool

    public init(config: String? = nil, socket: String? = nil, check: Bool = false, verbose: Bool = false) {
        self.config = config
        self.socket = socket
        self.check = check
        self.verbose = verbose
    }
}

/// What a `tapgridd` command line asks for.
public enum DaemonCommand: Sendable, Equatable {
    case run(DaemonOptions)
    /// Print this text to stdout and exit 0: the help text or the manual page.
    case help(String)
    /// Print ``tapgridVersion`` to stdout and exit 0.
    case version

    /// The exact `tapgridd --help` text (ends with one newline).
    public static var helpText: String { daemonSpec.helpText }

    /// Parses `tapgridd`'s arguments: `-h`/`--help` or `--version` anywhere before `--`, or `help` as
    /// the only argument, print help or version; anything else are the daemon's options.
    /// - Parameter args: The arguments without `argv[0]`.
    /// - Returns: The command to run.
    /// - Throws: ``UsageError`` (print ``UsageError/stderrText`` to stderr, exit 64).
    public static func parse(_ args: [String]) throws(UsageError) -> DaemonCommand {
        switch builtInRequest(in: args) {
        case .help?: return .help(daemonSpec.helpText)
        case .version?: return .version
        case nil: break
        }
        if args == ["help"] { return .help(daemonSpec.helpText) }
        let p = try daemonSpec.parse(args)
        if p.flag("generate-manual") { return .help(ManualPages.tapgridd) }
        return .run(
            DaemonOptions(
                config: p.string("config"), socket: p.string("socket"), check: p.flag("check"),
                verbose: p.flag("verbose")))
    }

    static let daemonSpec = CommandSpec(
        path: ["tapgridd"],
        abstract:
            "The tapgrid daemon: holds the configured grid layouts, hit-tests taps sent to its socket and routes them to handlers.",
        arguments: [
            .option("config", value: "path", help: "Config file.", default: HelpPhrases.defaultConfig),
            .option(
                "socket", value: "path", help: "Socket to listen on when systemd passes none.",
                default: "$TAPGRID_SOCKET, the config's socket.path, " + HelpPhrases.defaultSocketTail),
            .flag("check", help: "Load and validate the config, then exit: 0 if it is valid, 1 if not."),
            .flag("verbose", help: "Log debug-level detail too."),
            ArgumentSpec.flag("generate-manual", help: "Print the manual page tapgridd(8) in roff (man -l - reads it).")
                .hiddenFromUsage(),
        ],
        docs: [DocPages.configuration, DocPages.socketProtocol, DocPages.systemdAndInstall])
}
