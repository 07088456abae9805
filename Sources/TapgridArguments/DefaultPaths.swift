// Default config and socket paths (README, "Commands"), as pure functions of the environment.

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
        let lead = "this is the default config: name another"
        switch reader {
        case .configOption: return lead + " with --config PATH or $TAPGRID_CONFIG"
        case .check: return lead + " as an argument (tapgrid check PATH) or with $TAPGRID_CONFIG"
        case .show: return lead + " as an argument (tapgrid show PATH) or with $TAPGRID_CONFIG"
        case .replay:
            return lead + " with --config PATH or $TAPGRID_CONFIG, or replay against the running daemon with --socket PATH"
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
