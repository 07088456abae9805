import Testing

@testable import TapgridArguments

/// Every usage error, with its exact stderr text.
@Suite struct UsageErrorTests {
    static let tapUsage = "tapgrid tap <x> <y> [--layout <name>] [--socket <path>] [--json]"
    static let touchUsage = "tapgrid touch <x> <y> [--hold <ms>] [--double] [--layout <name>] [--socket <path>] [--json]"
    static let hitUsage = "tapgrid hit <x> <y> [--layout <name>] [--socket <path> | --config <path>] [--json]"
    static let statusUsage = "tapgrid status [--socket <path>] [--config <path>] [--json]"
    static let showUsage = "tapgrid show [<config>] [--layout <name>] [--format <format>] [--output <file>] [--socket <path>]"
    static let setUsage =
        "tapgrid set <layout> <grid> [--text <text>] [--active <bool>] [--value <json>] [--enabled <bool>] [--icon <mdi:name>] [--style <name>] [--clear <key> ...] [--socket <path>] [--config <path>] [--json]"
    static let loadUsage = "tapgrid load <name> <file> [--check | --socket <path>] [--config <path>] [--json]"
    static let unloadUsage = "tapgrid unload <layout> [--socket <path>] [--config <path>] [--json]"
    static let replayUsage =
        "tapgrid replay <events> [--config <path> | --socket <path>] [--dispatch] [--speed <factor>] [--json]"
    static let useUsage = "tapgrid use <layout> [--socket <path>] [--config <path>] [--json]"
    static let wakeUsage = "tapgrid wake [--socket <path>] [--config <path>] [--json]"
    static let screenUsage = "tapgrid screen <state> [--socket <path>] [--config <path>] [--json]"
    static let rootUsage = "tapgrid <subcommand>"

    /// (arguments, message, usage line, command whose --help is suggested)
    static let cases: [([String], String, String, String)] = [
        // root
        (["--foo"], "Unknown option '--foo'", rootUsage, "tapgrid"),
        (["-x"], "Unknown option '-x'", rootUsage, "tapgrid"),
        (["--socket", "/s", "status"], "Unknown option '--socket'", rootUsage, "tapgrid"),
        (["--"], "Missing expected argument '<subcommand>'", rootUsage, "tapgrid"),
        (["frobnicate"], "Unknown subcommand 'frobnicate'; the subcommands are 'tap', 'touch', 'hit', 'status', 'reload', 'use', 'set', 'load', 'unload', 'wake', 'screen', 'check', 'show' and 'replay'", rootUsage, "tapgrid"),
        (["help", "frobnicate"], "Unknown subcommand 'frobnicate'; the subcommands are 'tap', 'touch', 'hit', 'status', 'reload', 'use', 'set', 'load', 'unload', 'wake', 'screen', 'check', 'show' and 'replay'", rootUsage, "tapgrid"),
        // a mistyped subcommand: a swap, a missing or extra letter, a unique prefix
        (["stauts"], "Unknown subcommand 'stauts'; did you mean 'status'?", rootUsage, "tapgrid"),
        (["chek", "c.json"], "Unknown subcommand 'chek'; did you mean 'check'?", rootUsage, "tapgrid"),
        (["taps", "1", "2"], "Unknown subcommand 'taps'; did you mean 'tap'?", rootUsage, "tapgrid"),
        (["rep", "e.jsonl"], "Unknown subcommand 'rep'; did you mean 'replay'?", rootUsage, "tapgrid"),
        (["help", "shwo"], "Unknown subcommand 'shwo'; did you mean 'show'?", rootUsage, "tapgrid"),
        (["re"], "Unknown subcommand 're'; the subcommands are 'tap', 'touch', 'hit', 'status', 'reload', 'use', 'set', 'load', 'unload', 'wake', 'screen', 'check', 'show' and 'replay'", rootUsage, "tapgrid"),
        (["--verison"], "Unknown option '--verison'; did you mean '--version'?", rootUsage, "tapgrid"),
        (["help", "tap", "extra"], "Unexpected argument 'extra'", rootUsage, "tapgrid"),
        // unknown options
        (["status", "--foo"], "Unknown option '--foo'", statusUsage, "tapgrid status"),
        (["status", "--foo=1"], "Unknown option '--foo'", statusUsage, "tapgrid status"),
        (["status", "-j"], "Unknown option '-j'", statusUsage, "tapgrid status"),
        (["status", "-hx"], "Unknown option '-hx'", statusUsage, "tapgrid status"),
        (["tap", "1", "2", "--config", "c"], "Unknown option '--config'", tapUsage, "tapgrid tap"),
        (["check", "--json"], "Unknown option '--json'", "tapgrid check [<config>]", "tapgrid check"),
        (["status", "--josn"], "Unknown option '--josn'; did you mean '--json'?", statusUsage, "tapgrid status"),
        (["status", "--sock=/s"], "Unknown option '--sock'; did you mean '--socket'?", statusUsage, "tapgrid status"),
        (["status", "-json"], "Unknown option '-json'; did you mean '--json'?", statusUsage, "tapgrid status"),
        (["show", "--fromat", "svg"], "Unknown option '--fromat'; did you mean '--format'?", showUsage, "tapgrid show"),
        // missing values
        (["status", "--socket"], "Missing value for '--socket <path>'", statusUsage, "tapgrid status"),
        (["status", "--socket", "--json"], "Missing value for '--socket <path>'", statusUsage, "tapgrid status"),
        (["status", "--socket", "--"], "Missing value for '--socket <path>'", statusUsage, "tapgrid status"),
        (["tap", "1", "2", "--layout"], "Missing value for '--layout <name>'", tapUsage, "tapgrid tap"),
        (["show", "--format"], "Missing value for '--format <format>'", showUsage, "tapgrid show"),
        // a value given to a flag
        (["status", "--json=yes"], "The option '--json' does not take any value, but 'yes' was specified.",
         statusUsage, "tapgrid status"),
        // missing arguments
        (["tap"], "Missing expected argument '<x>'", tapUsage, "tapgrid tap"),
        (["touch", "1", "2", "--hold", "-5"], "The value '-5' is invalid for '--hold <ms>': expected milliseconds from 0 to 60000",
         touchUsage, "tapgrid touch"),
        (["touch", "1", "2", "--hold", "500", "--double"], "'--hold <ms>' and '--double' cannot be combined; use one or the other",
         touchUsage, "tapgrid touch"),
        (["tap", "1"], "Missing expected argument '<y>'", tapUsage, "tapgrid tap"),
        (["tap", "--json", "1"], "Missing expected argument '<y>'", tapUsage, "tapgrid tap"),
        (["hit"], "Missing expected argument '<x>'", hitUsage, "tapgrid hit"),
        (["use"], "Missing expected argument '<layout>'", useUsage, "tapgrid use"),
        (["replay", "--json"], "Missing expected argument '<events>'", replayUsage, "tapgrid replay"),
        // unexpected arguments
        (["status", "x"], "Unexpected argument 'x'", statusUsage, "tapgrid status"),
        (["tap", "1", "2", "3"], "Unexpected argument '3'", tapUsage, "tapgrid tap"),
        (["tap", "1", "2", "-3"], "Unexpected argument '-3'", tapUsage, "tapgrid tap"),
        (["check", "a", "b", "c"], "2 unexpected arguments: 'b', 'c'", "tapgrid check [<config>]", "tapgrid check"),
        (["status", "--", "--json"], "Unexpected argument '--json'", statusUsage, "tapgrid status"),
        // invalid values
        (["tap", "abc", "2"], "The value 'abc' is invalid for '<x>'", tapUsage, "tapgrid tap"),
        (["tap", "1", "abc"], "The value 'abc' is invalid for '<y>'", tapUsage, "tapgrid tap"),
        (["tap", "abc"], "The value 'abc' is invalid for '<x>'", tapUsage, "tapgrid tap"),
        (["tap", "nan", "2"], "The value 'nan' is invalid for '<x>'", tapUsage, "tapgrid tap"),
        (["tap", "1", "-inf"], "The value '-inf' is invalid for '<y>'", tapUsage, "tapgrid tap"),
        (["tap", "1e999", "2"], "The value '1e999' is invalid for '<x>'", tapUsage, "tapgrid tap"),
        (["tap", "", "2"], "The value '' is invalid for '<x>'", tapUsage, "tapgrid tap"),
        (["hit", "1,5", "2"], "The value '1,5' is invalid for '<x>'", hitUsage, "tapgrid hit"),
        (["show", "--format", "pdf"],
         "The value 'pdf' is invalid for '--format <format>'. Please provide one of 'table', 'json' or 'svg'.",
         showUsage, "tapgrid show"),
        (["show", "--format=JSON"],
         "The value 'JSON' is invalid for '--format <format>'. Please provide one of 'table', 'json' or 'svg'.",
         showUsage, "tapgrid show"),
        // mutually exclusive options
        (["hit", "1", "2", "--socket", "/s", "--config", "c.json"],
         "'--socket <path>' and '--config <path>' cannot be combined; use one or the other",
         hitUsage, "tapgrid hit"),
        (["hit", "--config=c.json", "1", "2", "--socket=/s"],
         "'--config <path>' and '--socket <path>' cannot be combined; use one or the other",
         hitUsage, "tapgrid hit"),
        (["replay", "e.jsonl", "--config", "c.json", "--socket", "/s"],
         "'--config <path>' and '--socket <path>' cannot be combined; use one or the other",
         replayUsage, "tapgrid replay"),
        // replay --dispatch: a daemon named by --socket, no config, a speed of 0 or more
        (["replay", "e.jsonl", "--dispatch"],
         "'--dispatch' needs '--socket <path>' to name the running daemon that gets the taps", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--config", "c.json"],
         "'--dispatch' and '--config <path>' cannot be combined; --dispatch sends the taps to the daemon named by '--socket <path>'",
         replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--config", "c.json", "--dispatch", "--socket", "/s"],
         "'--config <path>' and '--socket <path>' cannot be combined; use one or the other", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--socket", "/s", "--speed", "-1"],
         "The value '-1' is invalid for '--speed <factor>'. Please provide a number of 0 or more.", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--socket", "/s", "--speed=-0.5"],
         "The value '-0.5' is invalid for '--speed <factor>'. Please provide a number of 0 or more.", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--socket", "/s", "--speed", "fast"],
         "The value 'fast' is invalid for '--speed <factor>'. Please provide a number of 0 or more.", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--socket", "/s", "--speed", "nan"],
         "The value 'nan' is invalid for '--speed <factor>'. Please provide a number of 0 or more.", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--socket", "/s", "--speed", "inf"],
         "The value 'inf' is invalid for '--speed <factor>'. Please provide a number of 0 or more.", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch", "--socket", "/s", "--speed"],
         "Missing value for '--speed <factor>'", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--socket", "/s", "--speed", "2"],
         "'--speed <factor>' only applies to '--dispatch'; add --dispatch or leave --speed out", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--speed", "2", "--config", "c.json"],
         "'--speed <factor>' only applies to '--dispatch'; add --dispatch or leave --speed out", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispatch=yes", "--socket", "/s"],
         "The option '--dispatch' does not take any value, but 'yes' was specified.", replayUsage, "tapgrid replay"),
        (["replay", "--dispatch", "--socket", "/s"], "Missing expected argument '<events>'", replayUsage, "tapgrid replay"),
        (["replay", "e.jsonl", "--dispach"], "Unknown option '--dispach'; did you mean '--dispatch'?", replayUsage, "tapgrid replay"),
        // set: what to change, each key as its own option; true or false spelled out
        (["set", "home"], "Missing expected argument '<grid>'", setUsage, "tapgrid set"),
        (["set", "home", "volume"],
         "Nothing to set: give at least one of '--text <text>', '--active <bool>', '--value <json>', '--enabled <bool>', '--icon <mdi:name>', '--style <name>' or '--clear <key>'",
         setUsage, "tapgrid set"),
        (["set", "home", "volume", "--active", "maybe"],
         "The value 'maybe' is invalid for '--active <bool>'. Please provide one of 'true' and 'false'.", setUsage, "tapgrid set"),
        (["set", "home", "volume", "--enabled=yes"],
         "The value 'yes' is invalid for '--enabled <bool>'. Please provide one of 'true' and 'false'.", setUsage, "tapgrid set"),
        (["set", "home", "volume", "--clear", "colour"],
         "The value 'colour' is invalid for '--clear <key>'. Please provide one of 'text', 'active', 'value', 'enabled', 'icon' or 'style'.",
         setUsage, "tapgrid set"),
        (["set", "home", "volume", "--clear"], "Missing value for '--clear <key>'", setUsage, "tapgrid set"),
        (["set", "home", "volume", "--text", "a", "--clear", "text"],
         "'--text <text>' and '--clear text' cannot be combined; one sets text, the other clears it", setUsage, "tapgrid set"),
        (["set", "home", "volume", "--clear", "active", "--value", "1", "--clear", "value"],
         "'--value <json>' and '--clear value' cannot be combined; one sets value, the other clears it", setUsage, "tapgrid set"),
        (["set", "home", "volume", "--txet", "a"], "Unknown option '--txet'; did you mean '--text'?", setUsage, "tapgrid set"),
        (["set", "home", "volume", "extra", "--text", "a"], "Unexpected argument 'extra'", setUsage, "tapgrid set"),
        // load and unload
        (["load", "promo"], "Missing expected argument '<file>'", loadUsage, "tapgrid load"),
        (["load", "promo", "p.json", "--check", "--socket", "/s"],
         "'--check' and '--socket <path>' cannot be combined; use one or the other", loadUsage, "tapgrid load"),
        (["load", "promo", "p.json", "--check", "--json"],
         "'--check' and '--json' cannot be combined; --check prints a report, as tapgrid check does", loadUsage, "tapgrid load"),
        (["unload"], "Missing expected argument '<layout>'", unloadUsage, "tapgrid unload"),
        // wake, screen
        (["wake", "off"], "Unexpected argument 'off'", wakeUsage, "tapgrid wake"),
        (["screen"], "Missing expected argument '<state>'", screenUsage, "tapgrid screen"),
        (["screen", "bright"], "The value 'bright' is invalid for '<state>'. Please provide one of 'on', 'dim' or 'off'.",
         screenUsage, "tapgrid screen"),
        (["screen", "off", "dim"], "Unexpected argument 'dim'", screenUsage, "tapgrid screen"),
        // show --socket: the daemon's layout, drawn as SVG
        (["show", "--socket", "/s"],
         "'--socket <path>' only applies to '--format svg'; add --format svg to draw the daemon's layout with its cell state",
         showUsage, "tapgrid show"),
        (["show", "c.json", "--format", "svg", "--socket", "/s"],
         "'<config>' and '--socket <path>' cannot be combined; with --socket the layout comes from the running daemon",
         showUsage, "tapgrid show"),
        // errors come in a fixed order: options first, then positional values, unexpected, missing
        (["tap", "abc", "--bogus"], "Unknown option '--bogus'", tapUsage, "tapgrid tap"),
        (["tap", "abc", "--layout"], "Missing value for '--layout <name>'", tapUsage, "tapgrid tap"),
        (["tap", "abc", "2", "3"], "The value 'abc' is invalid for '<x>'", tapUsage, "tapgrid tap"),
    ]

    @Test(arguments: cases)
    func rejects(args: [String], message: String, usage: String, command: String) {
        #expect(throws: UsageError(message: message, usage: usage, commandName: command)) {
            try CLICommand.parse(args)
        }
    }

    static let daemonUsage = "tapgridd [--config <path>] [--socket <path>] [--check] [--verbose]"

    static let daemonCases: [([String], String)] = [
        (["--foo"], "Unknown option '--foo'"),
        (["-v"], "Unknown option '-v'"),
        (["--config"], "Missing value for '--config <path>'"),
        (["--socket", "--check"], "Missing value for '--socket <path>'"),
        (["--check=1"], "The option '--check' does not take any value, but '1' was specified."),
        (["--chekc"], "Unknown option '--chekc'; did you mean '--check'?"),
        (["--conf", "c.json"], "Unknown option '--conf'; did you mean '--config'?"),
        (["run"], "Unexpected argument 'run'"),
        (["help", "me"], "2 unexpected arguments: 'help', 'me'"),
        (["--", "--help"], "Unexpected argument '--help'"),
    ]

    @Test(arguments: daemonCases)
    func daemonRejects(args: [String], message: String) {
        #expect(throws: UsageError(message: message, usage: Self.daemonUsage, commandName: "tapgridd")) {
            try DaemonCommand.parse(args)
        }
    }

    /// The whole stderr text, in the shape of guide L4.
    @Test func rendersLikeArgumentParser() throws {
        let error = try #require(throws: UsageError.self) { try CLICommand.parse(["status", "--foo"]) }
        #expect(
            error.stderrText == """
                Error: Unknown option '--foo'
                Usage: tapgrid status [--socket <path>] [--config <path>] [--json]
                  See 'tapgrid status --help' for more information.

                """)
        #expect(error.description + "\n" == error.stderrText)
        #expect(UsageError.exitCode == 64)
    }

    @Test func rendersExclusiveAndRootErrors() throws {
        let exclusive = try #require(throws: UsageError.self) {
            try CLICommand.parse(["hit", "1", "2", "--socket", "/s", "--config", "c.json"])
        }
        #expect(
            exclusive.description == """
                Error: '--socket <path>' and '--config <path>' cannot be combined; use one or the other
                Usage: tapgrid hit <x> <y> [--layout <name>] [--socket <path> | --config <path>] [--json]
                  See 'tapgrid hit --help' for more information.
                """)
        let root = try #require(throws: UsageError.self) { try CLICommand.parse(["frobnicate"]) }
        #expect(
            root.description == """
                Error: Unknown subcommand 'frobnicate'; the subcommands are 'tap', 'touch', 'hit', 'status', 'reload', 'use', 'set', 'load', 'unload', 'wake', 'screen', 'check', 'show' and 'replay'
                Usage: tapgrid <subcommand>
                  See 'tapgrid --help' for more information.
                """)
        let daemon = try #require(throws: UsageError.self) { try DaemonCommand.parse(["--config"]) }
        #expect(
            daemon.description == """
                Error: Missing value for '--config <path>'
                Usage: tapgridd [--config <path>] [--socket <path>] [--check] [--verbose]
                  See 'tapgridd --help' for more information.
                """)
    }

    /// What a user who forgets the daemon of `--dispatch` sees, whole.
    @Test func rendersDispatchWithoutSocket() throws {
        let error = try #require(throws: UsageError.self) { try CLICommand.parse(["replay", "day.jsonl", "--dispatch", "--speed", "2"]) }
        #expect(
            error.stderrText == """
                Error: '--dispatch' needs '--socket <path>' to name the running daemon that gets the taps
                Usage: tapgrid replay <events> [--config <path> | --socket <path>] [--dispatch] [--speed <factor>] [--json]
                  See 'tapgrid replay --help' for more information.

                """)
    }

    @Test func everySubcommandUsageIsItsErrorUsage() {
        for sub in CLISubcommand.allCases {
            #expect(throws: UsageError(message: "Unknown option '--nope'", usage: sub.usage, commandName: "tapgrid \(sub.rawValue)")) {
                try CLICommand.parse([sub.rawValue, "--nope"])
            }
        }
    }
}
