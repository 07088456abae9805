import Testing

@testable import TapgridArguments

@Suite struct DefaultPathsTests {
    static let configCases: [(String?, [String: String], String)] = [
        (nil, [:], "/etc/tapgrid/tapgrid.json"),
        (nil, ["TAPGRID_CONFIG": "/home/u/tg.json"], "/home/u/tg.json"),
        (nil, ["TAPGRID_CONFIG": ""], "/etc/tapgrid/tapgrid.json"),
        ("cli.json", ["TAPGRID_CONFIG": "/home/u/tg.json"], "cli.json"),
        ("", ["TAPGRID_CONFIG": "/home/u/tg.json"], "/home/u/tg.json"),
    ]

    @Test(arguments: configCases)
    func configPath(cli: String?, environment: [String: String], expected: String) {
        #expect(DefaultPaths.configPath(cli: cli, environment: environment) == expected)
    }

    /// The hint after "no such file" follows where the path came from, as `configPath` picks it.
    @Test func missingConfigHintNamesWhereThePathCameFrom() {
        let environment = ["TAPGRID_CONFIG": "/home/u/tg.json"]
        #expect(DefaultPaths.missingConfigHint(.check, cli: "cli.json", environment: environment) == nil)
        #expect(DefaultPaths.missingConfigHint(.check, cli: nil, environment: [:]) == DefaultPaths.missingConfigHint(.check))
        #expect(DefaultPaths.missingConfigHint(.check, cli: "", environment: ["TAPGRID_CONFIG": ""]) == DefaultPaths.missingConfigHint(.check))
        #expect(DefaultPaths.missingConfigHint(.configOption, cli: "", environment: environment)
            == "the path comes from $TAPGRID_CONFIG: name another with --config PATH or in $TAPGRID_CONFIG")
        #expect(DefaultPaths.missingConfigHint(.show, cli: nil, environment: environment)
            == "the path comes from $TAPGRID_CONFIG: name another as an argument (tapgrid show PATH) or in $TAPGRID_CONFIG")
    }

    static let all: [String: String] = [
        "TAPGRID_SOCKET": "/env/tg.sock", "RUNTIME_DIRECTORY": "/run/tapgrid-rt", "XDG_RUNTIME_DIR": "/run/user/1000",
    ]

    /// (--socket, environment, the config's socket.path, expected)
    static let socketCases: [(String?, [String: String], String?, String)] = [
        ("/cli.sock", all, "/cfg.sock", "/cli.sock"),
        (nil, all, "/cfg.sock", "/env/tg.sock"),
        (nil, all.filter { $0.key != "TAPGRID_SOCKET" }, "/cfg.sock", "/cfg.sock"),
        (nil, all.filter { $0.key != "TAPGRID_SOCKET" }, nil, "/run/tapgrid-rt/tapgrid.sock"),
        (nil, ["XDG_RUNTIME_DIR": "/run/user/1000"], nil, "/run/user/1000/tapgrid.sock"),
        (nil, [:], nil, "/run/tapgrid/tapgrid.sock"),
        // empty values count as unset
        ("", ["TAPGRID_SOCKET": "", "RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""], "", "/run/tapgrid/tapgrid.sock"),
        // systemd lists several RuntimeDirectory= entries separated by ':'
        (nil, ["RUNTIME_DIRECTORY": "/run/a:/run/b"], nil, "/run/a/tapgrid.sock"),
        // trailing slashes are not doubled
        (nil, ["XDG_RUNTIME_DIR": "/run/user/1000/"], nil, "/run/user/1000/tapgrid.sock"),
        (nil, ["RUNTIME_DIRECTORY": "/"], nil, "/tapgrid.sock"),
        // a relative XDG_RUNTIME_DIR is invalid per the XDG spec and ignored
        (nil, ["XDG_RUNTIME_DIR": "run/user"], nil, "/run/tapgrid/tapgrid.sock"),
        // a relative --socket or socket.path is used as given (the config loader resolves socket.path)
        ("rel.sock", [:], nil, "rel.sock"),
    ]

    @Test(arguments: socketCases)
    func socketPath(cli: String?, environment: [String: String], configSocketPath: String?, expected: String) {
        #expect(
            DefaultPaths.socketPath(cli: cli, environment: environment, configSocketPath: configSocketPath) == expected)
    }
}
