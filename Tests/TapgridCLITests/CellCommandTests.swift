import Foundation
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// `set`, `load`, `unload` in-process: what they refuse before any daemon is asked, the request
/// lines they send (read by a `FakeDaemon`), and what they print of its replies.
@Suite(.serialized) struct CellCommandTests {
    static let setUsage =
        "Usage: tapgrid set <layout> <grid> [--text <text>] [--active <bool>] [--value <json>] [--enabled <bool>] [--icon <mdi:name>] [--style <name>] [--clear <key> ...] [--socket <path>] [--config <path>] [--json]\n  See 'tapgrid set --help' for more information.\n"

    /// Runs `arguments` plus `--socket` of a fake daemon answering `reply`; returns what was
    /// printed and the request lines the daemon got.
    func against(_ arguments: [String], reply: String) throws -> (result: ProgramResult, requests: [String]) {
        let daemon = try FakeDaemon { _, _ in reply }
        let result = run(arguments + ["--socket", daemon.path])
        daemon.finish()
        return (result, daemon.state.withLock { $0.requests })
    }

    @Test func setSendsEachKeyItChangesAndPrintsThem() throws {
        let (result, requests) = try against(
            ["set", "home", "volume", "--text", "42 %", "--active", "true", "--value", #" {"level": [4, 2.5]} "#],
            reply: #"{"ok":true,"layout":"home","grid":"0/1"}"#)
        #expect(requests == [#"{"op":"set","layout":"home","grid":"volume","text":"42 %","active":true,"value":{"level":[4,2.5]}}"#])
        #expect(result.out == #"home: 0/1 "volume": text "42 %", active true, value {"level":[4,2.5]}"# + "\n")
        #expect(result.err == "" && result.code == 0)
    }

    @Test func setClearsKeysWithNull() throws {
        let (result, requests) = try against(
            ["set", "home", "0/1", "--clear", "text", "--enabled", "false", "--clear", "value", "--json"],
            reply: #"{"ok":true,"layout":"home","grid":"0/1"}"#)
        #expect(requests == [#"{"op":"set","layout":"home","grid":"0/1","text":null,"value":null,"enabled":false}"#])
        #expect(result.out == #"{"ok":true,"layout":"home","grid":"0/1"}"# + "\n")  // --json: the reply as it came
        let human = try against(["set", "home", "0/1", "--clear", "active", "--value", "null"], reply: #"{"ok":true,"layout":"home","grid":"0/1"}"#)
        #expect(human.requests == [#"{"op":"set","layout":"home","grid":"0/1","active":null,"value":null}"#])
        #expect(human.result.out == "home: 0/1: active cleared, value cleared\n")
    }

    /// `--icon` and `--style` (docs/panel.md "What a cell shows"): sent as the socket takes them,
    /// cleared with `--clear`; an icon that is not `mdi:NAME` is a usage error, asking no daemon.
    @Test func setSendsIconAndStyle() throws {
        let (_, requests) = try against(
            ["set", "home", "volume", "--icon", "mdi:lightbulb", "--style", "warm"], reply: #"{"ok":true,"layout":"home","grid":"0/1"}"#)
        #expect(requests == [#"{"op":"set","layout":"home","grid":"volume","icon":"mdi:lightbulb","style":"warm"}"#])
        let cleared = try against(["set", "home", "volume", "--clear", "icon", "--clear", "style"], reply: #"{"ok":true,"layout":"home","grid":"0/1"}"#)
        #expect(cleared.requests == [#"{"op":"set","layout":"home","grid":"volume","icon":null,"style":null}"#])
        let result = run(["set", "home", "volume", "--icon", "lightbulb", "--socket", "/nonexistent/d.sock"])
        #expect(result.code == 64)
        #expect(result.err == "Error: The value 'lightbulb' is invalid for '--icon <mdi:name>': expected mdi: and an icon's name, such as mdi:lightbulb\n" + Self.setUsage)
    }

    /// `--value` is read as the socket reads it, strictly; what is wrong is the parser's own words.
    @Test(arguments: [
        ("on", #"The value 'on' is invalid for '--value <json>': it is not JSON (1:1: expected a value, found 'on'); a string needs its quotes: --value '"on"'"#),
        (#"{"a": 1,}"#, #"The value '{"a": 1,}' is invalid for '--value <json>': it is not JSON (1:8: trailing comma is not allowed)"#),
        ("", "The value '' is invalid for '--value <json>': it is not JSON (1:1: unexpected end of input)"),
    ])
    func aValueThatIsNotJSONIsAUsageError(value: String, message: String) {
        let result = run(["set", "home", "volume", "--value", value, "--socket", "/nonexistent/d.sock"])
        #expect(result.code == 64)
        #expect(result.out == "")
        #expect(result.err == "Error: \(message)\n" + Self.setUsage)
    }

    @Test func aBooleanMustBeSpelledOut() {
        let result = run(["set", "home", "volume", "--active", "maybe"])
        #expect(result.code == 64)
        #expect(result.err == "Error: The value 'maybe' is invalid for '--active <bool>'. Please provide one of 'true' and 'false'.\n" + Self.setUsage)
    }

    @Test func errorRepliesExitOneWithTheDaemonsMessage() throws {
        let (result, _) = try against(
            ["set", "home", "nope", "--text", "x"],
            reply: #"{"error":{"code":"unknown_grid","message":"unknown grid \"nope\" in layout \"home\"; its grids are \"volume\", \"mute\""}}"#)
        #expect(result.code == 1)
        #expect(result.out == "")
        #expect(result.err == #"Error: unknown_grid: unknown grid "nope" in layout "home"; its grids are "volume", "mute""# + "\n")
    }

    /// The definition goes as compact JSON whatever the file's comments and layout; the reply's
    /// generation is printed, and an identical definition says it changed nothing.
    @Test func loadSendsTheFilesDefinition() throws {
        let dir = try folder(["promo.json": "// a pushed layout\n{ \"width\": 200, \"height\": 100,\n  \"grid\": {\"cols\": [{\"name\": \"buy\", \"tag\": 7},],},\n}\n"])
        defer { removeTempDir(dir) }
        let (result, requests) = try against(["load", "promo", dir + "/promo.json"], reply: #"{"ok":true,"generation":5}"#)
        #expect(requests == [#"{"op":"load","layout":"promo","definition":{"width":200,"height":100,"grid":{"cols":[{"name":"buy","tag":7}]}}}"#])
        #expect(result.out == "layout \"promo\" loaded: generation 5\n")
        #expect(result.code == 0)
        let again = try against(["load", "promo", dir + "/promo.json"], reply: #"{"ok":true,"generation":5,"unchanged":true}"#)
        #expect(again.result.out == "layout \"promo\" unchanged: the daemon has this definition already (generation 5)\n")
        let json = try against(["load", "promo", dir + "/promo.json", "--json"], reply: #"{"ok":true,"generation":6}"#)
        #expect(json.result.out == #"{"ok":true,"generation":6}"# + "\n")
    }

    /// A refused definition can have several errors, one a line in the message: one `Error:` line each.
    @Test func aRefusedLoadPrintsEachError() throws {
        let dir = try folder(["bad.json": #"{"width": 200, "height": 100, "grid": {"cols": [{"size": "200"}]}}"#])
        defer { removeTempDir(dir) }
        let (result, _) = try against(
            ["load", "promo", dir + "/bad.json"],
            reply: #"{"error":{"code":"config_error","message":"load.definition.width: first\nload.definition.grid 0: second"}}"#)
        #expect(result.code == 1)
        #expect(result.err == "Error: config_error: load.definition.width: first\nError: config_error: load.definition.grid 0: second\n")
    }

    /// A file that cannot be read or is not JSON is said before any daemon is asked.
    @Test func loadOfAnUnreadableFileAsksNoDaemon() throws {
        let dir = try folder(["broken.json": "{\"width\": 200,\n  \"height\"\n}\n"])
        defer { removeTempDir(dir) }
        let missing = run(["load", "promo", dir + "/none.json", "--socket", "/nonexistent/d.sock"])
        #expect(missing.code == 1)
        #expect(missing.err == "Error: cannot read \(dir)/none.json: No such file or directory (errno 2)\n")
        let broken = run(["load", "promo", dir + "/broken.json", "--socket", "/nonexistent/d.sock"])
        #expect(broken.code == 1)
        #expect(broken.err == "Error: \(dir)/broken.json:3:1: expected ':' after an object key, found '}'\n")
    }

    @Test func unloadSendsTheName() throws {
        let (result, requests) = try against(["unload", "promo"], reply: #"{"ok":true,"generation":7}"#)
        #expect(requests == [#"{"op":"unload","layout":"promo"}"#])
        #expect(result.out == "layout \"promo\" unloaded: generation 7\n")
        let refused = try against(
            ["unload", "home"], reply: #"{"error":{"code":"unknown_layout","message":"layout \"home\" was not pushed; the pushed layouts are \"promo\""}}"#)
        #expect(refused.result.code == 1)
        #expect(refused.result.err == #"Error: unknown_layout: layout "home" was not pushed; the pushed layouts are "promo""# + "\n")
    }

    static let layoutsReply = #"{"layouts":[{"name":"home","width":300,"height":100,"current":true,"grids":[{"path":"","rect":[0,0,300,100]},{"path":"0","rect":[0,0,100,100],"name":"volume","tag":1,"text":"42 %","active":true,"value":42,"enabled":null},{"path":"1","rect":[100,0,100,100],"name":"mute","tag":2,"toggle":true,"text":null,"active":null,"value":null,"enabled":false},{"path":"2","rect":[200,0,100,100],"name":"off","tag":3}]},{"name":"promo","width":200,"height":100,"current":false,"grids":[{"path":"","rect":[0,0,200,100],"tag":7,"text":"Buy <now>","active":null,"value":null,"enabled":null}]}]}"#

    /// The daemon's current layout as its panel shows it (`CellLook`): the state text instead of
    /// the name, the active cell in the page's accent, the disabled one at the page's opacity;
    /// the tooltips say the state.
    @Test func showWithASocketDrawsTheCellState() throws {
        let (result, requests) = try against(["show", "--format", "svg"], reply: Self.layoutsReply)
        #expect(requests == [#"{"op":"layouts","state":true}"#])
        #expect(result.code == 0 && result.err == "")
        #expect(result.out == """
            <svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" viewBox="0 0 300 100" font-family="sans-serif">
            <title>tapgrid layout home, cell state from the daemon</title>
            <rect x="0" y="0" width="300" height="100" fill="#ffffff"/>
            <rect x="0" y="0" width="300" height="100" fill="none" stroke="#555555" stroke-width="1" vector-effect="non-scaling-stroke"><title>(root)</title></rect>
            <rect x="2" y="2" width="96" height="96" fill="#1f6feb"><title>0 &quot;volume&quot;: text &quot;42 %&quot;, active, value 42</title></rect>
            <rect x="102" y="2" width="96" height="96" fill="#2a2e37" opacity="0.35"><title>1 &quot;mute&quot;: disabled, toggle</title></rect>
            <rect x="202" y="2" width="96" height="96" fill="#2a2e37"><title>2 &quot;off&quot;</title></rect>
            <text x="50" y="50" font-size="16" text-anchor="middle" dy="0.35em" fill="#ffffff">42 %</text>
            <text x="150" y="50" font-size="16" text-anchor="middle" dy="0.35em" fill="#e8eaed" opacity="0.35">mute</text>
            <text x="250" y="50" font-size="16" text-anchor="middle" dy="0.35em" fill="#e8eaed">off</text>
            </svg>

            """)
        // --layout picks another of the daemon's layouts (here a pushed one, its root a cell).
        let promo = try against(["show", "--format", "svg", "--layout", "promo"], reply: Self.layoutsReply)
        #expect(promo.result.out.contains(#">Buy &lt;now&gt;</text>"#))
        #expect(promo.result.out.contains(#"width="200" height="100""#))
    }

    @Test func showWithASocketNamesTheDaemonsLayouts() throws {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon { _, _ in Self.layoutsReply }
        let result = run(["show", "--format", "svg", "--layout", "nope", "--socket", daemon.path, "--output", dir + "/x.svg"])
        daemon.finish()
        #expect(result.code == 1)
        #expect(result.err == "Error: no layout \"nope\" in the daemon at \(daemon.path); the layouts are \"home\", \"promo\"\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.svg"))
    }

    @Test func unreachableDaemonExits69() {
        for arguments in [["set", "home", "v", "--text", "x"], ["unload", "promo"], ["show", "--format", "svg"]] {
            let result = run(arguments + ["--socket", "/nonexistent/tapgrid.sock"])
            #expect(result.code == 69)
            #expect(result.err.hasPrefix("Error: cannot connect to /nonexistent/tapgrid.sock: No such file or directory (errno 2)"))
        }
    }
}

/// `load --check`: the daemon's own check, offline, reported as `check` reports a config.
@Suite struct LoadCheckTests {
    static let config = #"{"layouts": {"home": {"width": 10, "height": 10, "grid": {}}}, "handlers": {"audit": {"type": "log"}}, "routes": [{"tags": [7], "handler": "audit"}]}"#

    @Test func aBadDefinitionGetsTheDaemonsMessage() throws {
        let dir = try folder(["c.json": Self.config, "bad.json": #"{"width": 200, "height": 100, "grid": {"cols": [{"size": "200", "tag": 7}, {"tag": 8}]}, "hieght": 5}"#])
        defer { removeTempDir(dir) }
        let result = run(["load", "promo", dir + "/bad.json", "--check", "--config", dir + "/c.json"])
        #expect(result.code == 1)
        #expect(result.out == """
            warning: load.definition.hieght: unknown key ignored; did you mean "height"?
            error: load.definition.grid 0: "size": "200" is not a size; use a number (200), "fill", "wrap" or a percentage ("20%")
            \(dir)/bad.json: 1 error, 1 warning

            """)
        #expect(result.err == "")
    }

    /// Routed by the config's routes: the tag no route takes is a warning, as in `check`.
    @Test func aGoodDefinitionIsListedWithItsWarnings() throws {
        let dir = try folder(["c.json": Self.config, "promo.json": #"{"width": 200, "height": 100, "grid": {"cols": [{"tag": 7}, {"tag": 8}]}}"#])
        defer { removeTempDir(dir) }
        let result = run(["load", "promo", dir + "/promo.json", "--check"], environment: ["TAPGRID_CONFIG": dir + "/c.json"])
        #expect(result.code == 0)
        #expect(result.out == """
            layout "promo": 3 grids, 2 hittable (200x100 ltr)
            warning: layout "promo": tag 8 matches no route and there is no default route; taps there are "unrouted"
            \(dir)/promo.json: 0 errors, 1 warning

            """)
    }

    @Test func aFileTheDaemonCouldNotReadEither() throws {
        let dir = try folder(["c.json": Self.config, "file.json": #"{"width": 20, "height": 10, "grid": "grid.json"}"#])
        defer { removeTempDir(dir) }
        let named = run(["load", "promo", dir + "/file.json", "--check", "--config", dir + "/c.json"])
        #expect(named.code == 1)
        #expect(named.out == """
            error: load.definition.grid: expected a grid dictionary inline; a pushed layout cannot name a file, found "grid.json"
            \(dir)/file.json: 1 error, 0 warnings

            """)
        let missing = run(["load", "promo", dir + "/none.json", "--check", "--config", dir + "/c.json"])
        #expect(missing.code == 1)
        #expect(missing.out == "error: cannot read \(dir)/none.json: No such file or directory (errno 2)\n\(dir)/none.json: 1 error, 0 warnings\n")
    }

    /// The config gives the routes; one that does not load is an error of its own.
    @Test func theConfigMustLoad() throws {
        let dir = try folder(["promo.json": #"{"width": 20, "height": 10, "grid": {}}"#])
        defer { removeTempDir(dir) }
        let result = run(["load", "promo", dir + "/promo.json", "--check", "--config", dir + "/missing.json"])
        #expect(result.code == 1)
        #expect(result.out == "")
        #expect(result.err == "Error: cannot read \(dir)/missing.json: No such file or directory (errno 2)\n")
    }
}
