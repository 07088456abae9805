import Testing

@testable import TapgridArguments

/// Command lines that parse, and what they parse to.
@Suite struct ParseTests {
    static let cases: [([String], CLICommand)] = [
        // tap
        (["tap", "1", "2"], .tap(TapOptions(x: 1, y: 2))),
        (["tap", "120.5", "340"], .tap(TapOptions(x: 120.5, y: 340))),
        (["tap", "-5", "-0.25"], .tap(TapOptions(x: -5, y: -0.25))),
        (["tap", "-1e2", "3E1"], .tap(TapOptions(x: -100, y: 30))),
        (["tap", "--json", "-5", "7"], .tap(TapOptions(x: -5, y: 7, json: true))),
        (["tap", "1", "2", "--layout", "home", "--socket", "/tmp/s.sock", "--json"],
         .tap(TapOptions(x: 1, y: 2, layout: "home", socket: "/tmp/s.sock", json: true))),
        (["tap", "--layout=home", "1", "--socket=/tmp/s.sock", "2"],
         .tap(TapOptions(x: 1, y: 2, layout: "home", socket: "/tmp/s.sock"))),
        (["tap", "--layout=", "1", "2"], .tap(TapOptions(x: 1, y: 2, layout: ""))),
        (["tap", "--layout=a=b", "1", "2"], .tap(TapOptions(x: 1, y: 2, layout: "a=b"))),
        (["tap", "--layout", "-3", "1", "2"], .tap(TapOptions(x: 1, y: 2, layout: "-3"))),
        (["tap", "--layout", "a", "--layout", "b", "1", "2"], .tap(TapOptions(x: 1, y: 2, layout: "b"))),
        (["tap", "--json", "--json", "1", "2"], .tap(TapOptions(x: 1, y: 2, json: true))),
        (["tap", "--", "-5", "-6"], .tap(TapOptions(x: -5, y: -6))),
        (["tap", "1", "--json", "--", "2"], .tap(TapOptions(x: 1, y: 2, json: true))),
        // touch
        (["touch", "1", "2"], .touch(TouchOptions(x: 1, y: 2))),
        (["touch", "1", "2", "--hold", "600", "--layout", "home", "--json"],
         .touch(TouchOptions(x: 1, y: 2, holdMs: 600, layout: "home", json: true))),
        (["touch", "--double", "1", "2", "--socket=/s"], .touch(TouchOptions(x: 1, y: 2, double: true, socket: "/s"))),
        // hit
        (["hit", "10", "20"], .hit(HitOptions(x: 10, y: 20))),
        (["hit", "10", "20", "--config", "cfg.json", "--layout", "home", "--json"],
         .hit(HitOptions(x: 10, y: 20, layout: "home", config: "cfg.json", json: true))),
        (["hit", "-10", "-20", "--socket=/s"], .hit(HitOptions(x: -10, y: -20, socket: "/s"))),
        (["hit", "1", "2", "--config", "a", "--config", "b"], .hit(HitOptions(x: 1, y: 2, config: "b"))),
        // status, reload, use
        (["status"], .status(ControlOptions())),
        (["status", "--json", "--socket", "/s"], .status(ControlOptions(socket: "/s", json: true))),
        (["status", "--config", "c.json", "--socket", "/s"], .status(ControlOptions(socket: "/s", config: "c.json"))),
        (["reload"], .reload(ControlOptions())),
        (["reload", "--config=c.json", "--json"], .reload(ControlOptions(config: "c.json", json: true))),
        (["use", "settings"], .use(UseOptions(layout: "settings"))),
        (["use", "--json", "settings", "--socket", "/s", "--config", "c"],
         .use(UseOptions(layout: "settings", socket: "/s", config: "c", json: true))),
        (["use", "--", "--weird"], .use(UseOptions(layout: "--weird"))),
        // set, load, unload
        (["set", "home", "volume", "--text", "42 %"], .set(SetOptions(layout: "home", grid: "volume", text: "42 %"))),
        (["set", "home", "0/1", "--active", "true", "--enabled=false", "--value", #"{"v":1}"#, "--json"],
         .set(SetOptions(layout: "home", grid: "0/1", active: true, value: #"{"v":1}"#, enabled: false, json: true))),
        (["set", "home", "", "--clear", "value", "--clear=text", "--clear", "value", "--socket", "/s"],
         .set(SetOptions(layout: "home", grid: "", clear: [.value, .text], socket: "/s"))),
        (["set", "home", "volume", "--text", "", "--clear", "active", "--config", "c.json"],
         .set(SetOptions(layout: "home", grid: "volume", text: "", clear: [.active], config: "c.json"))),
        (["set", "home", "volume", "--text", "-5"], .set(SetOptions(layout: "home", grid: "volume", text: "-5"))),
        (["load", "promo", "promo.json"], .load(LoadOptions(name: "promo", file: "promo.json"))),
        (["load", "promo", "promo.json", "--socket", "/s", "--json"],
         .load(LoadOptions(name: "promo", file: "promo.json", socket: "/s", json: true))),
        (["load", "--check", "promo", "promo.json", "--config", "c.json"],
         .load(LoadOptions(name: "promo", file: "promo.json", check: true, config: "c.json"))),
        (["unload", "promo"], .unload(UseOptions(layout: "promo"))),
        (["unload", "promo", "--socket=/s", "--json"], .unload(UseOptions(layout: "promo", socket: "/s", json: true))),
        // wake, screen
        (["wake"], .wake(ControlOptions())),
        (["wake", "--json", "--config", "c.json"], .wake(ControlOptions(config: "c.json", json: true))),
        (["screen", "off"], .screen(ScreenOptions(state: .off))),
        (["screen", "--socket=/s", "dim", "--json"], .screen(ScreenOptions(state: .dim, socket: "/s", json: true))),
        (["screen", "on", "--config", "c.json"], .screen(ScreenOptions(state: .on, config: "c.json"))),
        // check
        (["check"], .check(CheckOptions())),
        (["check", "examples/tapgrid.json"], .check(CheckOptions(config: "examples/tapgrid.json"))),
        (["check", "-"], .check(CheckOptions(config: "-"))),
        // show
        (["show"], .show(ShowOptions())),
        (["show", "c.json", "--layout", "home", "--format", "svg", "--output", "out.svg"],
         .show(ShowOptions(config: "c.json", layout: "home", format: .svg, output: "out.svg"))),
        (["show", "--format=json"], .show(ShowOptions(format: .json))),
        (["show", "--format", "table", "c.json"], .show(ShowOptions(config: "c.json", format: .table))),
        (["show", "--output", "-"], .show(ShowOptions(output: "-"))),
        (["show", "--format", "svg", "--socket", "/s", "--layout", "promo"],
         .show(ShowOptions(layout: "promo", format: .svg, socket: "/s"))),
        // replay
        (["replay", "events.jsonl"], .replay(ReplayOptions(events: "events.jsonl"))),
        (["replay", "events.jsonl", "--config", "c.json", "--json"],
         .replay(ReplayOptions(events: "events.jsonl", config: "c.json", json: true))),
        (["replay", "--socket=/s", "events.jsonl"], .replay(ReplayOptions(events: "events.jsonl", socket: "/s"))),
        (["replay", "events.jsonl", "--dispatch", "--socket", "/s"],
         .replay(ReplayOptions(events: "events.jsonl", socket: "/s", dispatch: true, speed: 1))),
        (["replay", "events.jsonl", "--dispatch", "--socket=/s", "--speed", "2.5", "--json"],
         .replay(ReplayOptions(events: "events.jsonl", socket: "/s", dispatch: true, speed: 2.5, json: true))),
        (["replay", "--speed=0", "--socket", "/s", "events.jsonl", "--dispatch"],
         .replay(ReplayOptions(events: "events.jsonl", socket: "/s", dispatch: true, speed: 0))),
        (["replay", "events.jsonl", "--dispatch", "--socket", "/s", "--speed", "1e3"],
         .replay(ReplayOptions(events: "events.jsonl", socket: "/s", dispatch: true, speed: 1000))),
    ]

    @Test(arguments: cases)
    func parses(args: [String], expected: CLICommand) throws {
        #expect(try CLICommand.parse(args) == expected)
    }

    static let helpCases: [([String], String)] = [
        ([], CLICommand.mainHelpText),
        (["--help"], CLICommand.mainHelpText),
        (["-h"], CLICommand.mainHelpText),
        (["help"], CLICommand.mainHelpText),
        (["help", "--help"], CLICommand.mainHelpText),
        (["help", "tap"], CLISubcommand.tap.helpText),
        (["help", "tap", "--help"], CLISubcommand.tap.helpText),
        (["help", "replay"], CLISubcommand.replay.helpText),
        (["tap", "--help"], CLISubcommand.tap.helpText),
        (["tap", "-h"], CLISubcommand.tap.helpText),
        (["-h", "status"], CLISubcommand.status.helpText),
        (["tap", "1", "2", "--json", "--help"], CLISubcommand.tap.helpText),
        (["tap", "nope", "--bogus", "-h"], CLISubcommand.tap.helpText),  // help wins over errors
        (["show", "--layout", "--help"], CLISubcommand.show.helpText),
        (["--version", "--help"], CLICommand.mainHelpText),
        (["nosuch", "--help"], CLICommand.mainHelpText),
    ]

    @Test(arguments: helpCases)
    func help(args: [String], expected: String) throws {
        #expect(try CLICommand.parse(args) == .help(expected))
    }

    @Test(arguments: [["--version"], ["status", "--version"], ["tap", "1", "2", "--version"]])
    func version(args: [String]) throws {
        #expect(try CLICommand.parse(args) == .version)
    }

    @Test func everySubcommandHasItsHelp() throws {
        for sub in CLISubcommand.allCases {
            #expect(try CLICommand.parse([sub.rawValue, "--help"]) == .help(sub.helpText))
            #expect(try CLICommand.parse(["help", sub.rawValue]) == .help(sub.helpText))
        }
    }

    @Test func helpAndVersionAfterTerminatorArePositionals() throws {
        #expect(try CLICommand.parse(["use", "--", "--help"]) == .use(UseOptions(layout: "--help")))
        #expect(try CLICommand.parse(["check", "--", "--version"]) == .check(CheckOptions(config: "--version")))
    }

    @Test func versionString() {
        #expect(tapgridVersion == "0.1.0")
    }

    static let daemonCases: [([String], DaemonCommand)] = [
        ([], .run(DaemonOptions())),
        (["--config", "c.json"], .run(DaemonOptions(config: "c.json"))),
        (["--config=c.json", "--socket=/s", "--check", "--verbose"],
         .run(DaemonOptions(config: "c.json", socket: "/s", check: true, verbose: true))),
        (["--verbose", "--socket", "/s"], .run(DaemonOptions(socket: "/s", verbose: true))),
        (["--"], .run(DaemonOptions())),
        (["--help"], .help(DaemonCommand.helpText)),
        (["-h"], .help(DaemonCommand.helpText)),
        (["help"], .help(DaemonCommand.helpText)),
        (["--check", "--help"], .help(DaemonCommand.helpText)),
        (["--version"], .version),
        (["--verbose", "--version"], .version),
    ]

    @Test(arguments: daemonCases)
    func daemonParses(args: [String], expected: DaemonCommand) throws {
        #expect(try DaemonCommand.parse(args) == expected)
    }
}
