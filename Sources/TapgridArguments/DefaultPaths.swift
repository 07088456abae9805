// Default config and socket paths (docs/commands.md "Commands"), as pure functions of the environment.

/// Resolves the config and socket paths from the command line and the environment.
public enum DefaultPaths {
    /// The config file used when `--config` or `[CONFIG]` is not given.
    public static let systemConfig = "/etc/tapgrid/tapgrid.json"
    /// The last-resort socket path.
    public static let systemSocket = "/run/tapgrid/tapgrid.sock"
    /// The socket's file name inside a runtime directory.
    public static let socketFileName = "tapgrid.sock"

    /// The config path: `cli`, else `$TAPGRID_CONFIG`, else ``systemConfig``.
    ///
    /// An empty value counts as unset (`TAPGRID_CONFIG= tapgrid check` means "no override").
    /// - Parameters:
    ///   - cli: The `--config` or `[CONFIG]` argument, if given.
    ///   - environment: The process environment.
    /// - Returns: The path to read.
    public static func configPath(cli: String?, environment: [String: String]) -> String {
        nonEmpty(cli) ?? nonEmpty(environment["TAPGRID_CONFIG"]) ?? systemConfig
    }

    /// The socket path: `cli` (`--socket`), else `$TAPGRID_SOCKET`, else `configSocketPath` (the
    /// `socket.path` of the config given with `--config`, already resolved against the config's
    /// folder), else `$RUNTIME_DIRECTORY/tapgrid.sock`, else `$XDG_RUNTIME_DIR/tapgrid.sock`, else
    /// ``systemSocket``. The daemon uses the same order after a socket passed by systemd.
    ///
    /// Empty values count as unset. `$RUNTIME_DIRECTORY` may list several directories separated by
    /// `:` (systemd does that for several `RuntimeDirectory=` entries); the first one is used. A
    /// relative `$XDG_RUNTIME_DIR` is ignored, as the XDG Base Directory spec asks.
    /// - Parameters:
    ///   - cli: The `--socket` argument, if given.
    ///   - environment: The process environment.
    ///   - configSocketPath: The config's `socket.path`, when a config was named with `--config`.
    /// - Returns: The socket path to connect to or listen on.
    public static func socketPath(cli: String?, environment: [String: String], configSocketPath: String?) -> String {
        if let path = nonEmpty(cli) ?? nonEmpty(environment["TAPGRID_SOCKET"]) ?? nonEmpty(configSocketPath) {
            return path
        }
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init),
            let directory = nonEmpty(runtime)
        {
            return join(directory, socketFileName)
        }
        if let xdg = nonEmpty(environment["XDG_RUNTIME_DIR"]), xdg.hasPrefix("/") {
            return join(xdg, socketFileName)
        }
        return systemSocket
    }

    /// The programs and commands that read the default config when none is named:
    /// `configOption` is every one that takes `--config` (`tapgridd` first of all).
    public enum ConfigReader: Sendable {
        case configOption, check, show, replay
    }

    /// What to say when the default config (``systemConfig``) does not exist: how `reader` is
    /// told to use another one.
    public static func missingConfigHint(_ reader: ConfigReader) -> String {
        let byArgument = reader == .check || reader == .show
        return "this is the default config: name another" + waysToName(reader, byArgument ? "with $TAPGRID_CONFIG" : "$TAPGRID_CONFIG")
    }

    /// What to say when the config that ``configPath(cli:environment:)`` picked does not exist:
    /// where its path came from and how `reader` names another. nil when `cli` named it (the
    /// message names the path already).
    public static func missingConfigHint(_ reader: ConfigReader, cli: String?, environment: [String: String]) -> String? {
        guard nonEmpty(cli) == nil else { return nil }
        guard nonEmpty(environment["TAPGRID_CONFIG"]) != nil else { return missingConfigHint(reader) }
        return "the path comes from $TAPGRID_CONFIG: name another" + waysToName(reader, "in $TAPGRID_CONFIG")
    }

    /// ` with --config PATH or <environment>`, and what else `reader` takes instead.
    private static func waysToName(_ reader: ConfigReader, _ environment: String) -> String {
        switch reader {
        case .configOption: return " with --config PATH or \(environment)"
        case .check: return " as an argument (tapgrid check PATH) or \(environment)"
        case .show: return " as an argument (tapgrid show PATH) or \(environment)"
        case .replay: return " with --config PATH or \(environment), or replay against the running daemon with --socket PATH"
        }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// `directory/name`, without doubling a trailing slash.
    private static func join(_ directory: String, _ name: String) -> String {
        var directory = Substring(directory)
        while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
        return directory == "/" ? "/" + name : directory + "/" + name
    }
}
