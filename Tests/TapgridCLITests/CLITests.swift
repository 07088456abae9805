import Foundation
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// What `run` captured of `tapgrid`'s streams.
final class Captured: @unchecked Sendable {  // used from one test at a time
    var out = ""
    var err = ""
}

/// Runs `tapgrid` in-process with captured streams.
/// - Parameter stderrIsTerminal: whether stderr is taken for a terminal (progress lines).
func run(_ arguments: [String], environment: [String: String] = [:], stderrIsTerminal: Bool = false) -> ProgramResult {
    let captured = Captured()
    let console = Console(
        out: { captured.out += $0 }, err: { captured.err += $0 }, environment: environment, stderrIsTerminal: stderrIsTerminal)
    let code = TapgridCLIMain.main(["tapgrid"] + arguments, console: console)
    return (code, captured.out, captured.err)
}

/// A temporary folder (`makeTempDir`) holding `files` (name to content); remove it with
/// `removeTempDir`: tests leave nothing behind in the temporary directory.
func folder(_ files: [String: String]) throws -> String {
    let path = try makeTempDir()
    for (name, content) in files {
        let file = path + "/" + name
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try content.write(toFile: file, atomically: true, encoding: .utf8)
    }
    return path
}

let simpleConfig = """
    // two layouts, one from a file, trailing commas
    {
      "layouts": {
        "home": { "width": 300, "height": 100, "grid": {
          "cols": [ { "size": 100, "tag": 1, "name": "web", "action-data": "https://example.org" },
                    { "size": "fill", "tag": 2, "action-data": "echo hi" },
                    { "size": 50, "tag": 9 }, ] } },
        "other": { "width": 100, "height": 100, "direction": "rtl", "grid": "other.json" },
      },
      "initialLayout": "home",
      "handlers": {
        "browser": { "type": "url" },
        "shell": { "type": "script", "interpreter": ["/bin/sh", "-c"] },
      },
      "routes": [ { "tags": [1], "handler": "browser" }, { "tags": [2], "handler": "shell" } ],
    }
    """

let otherLayout = #"{"cols": [{"size": 40, "tag": 1}, {"size": "fill", "tag": 2}]}"#

@Suite struct CheckCommandTests {
    @Test func validConfigListsLayoutsAndWarnings() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 0)
        #expect(result.out.contains("layout \"home\": 4 grids, 3 hittable (300x100 ltr), initial"))
        #expect(result.out.contains("layout \"other\": 3 grids, 2 hittable (100x100 rtl)"))
        // Tag 9 has no route and there is no default route.
        #expect(result.out.contains("warning: \(dir)/tapgrid.json: layout \"home\": tag 9 matches no route and there is no default route; taps there are \"unrouted\""))
        #expect(result.out.hasSuffix("\(dir)/tapgrid.json: 0 errors, 1 warning\n"))
    }

    @Test func errorsNameFileLayoutGridAndKey() throws {
        let bad = simpleConfig.replacingOccurrences(of: #""size": "fill", "tag": 2"#, with: #""size": "200", "tag": 2"#)
        let dir = try folder(["tapgrid.json": bad, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out.contains(#"error: \#(dir)/tapgrid.json: layout "home", grid 1: "size": "200" is not a size; use a number (200), "fill", "wrap" or a percentage ("20%")"#))
    }

    @Test func malformedJSONGivesFileLineColumn() throws {
        let dir = try folder(["tapgrid.json": "{\n  \"layouts\": {\n    \"home\": [1 2]\n  }\n}\n"])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out.contains("error: \(dir)/tapgrid.json:3:16: expected ',' or ']'"))
    }

    @Test func errorInLayoutFileNamesThatFile() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": #"{"cols": [{"size": "auto"}]}"#])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out.contains(#"error: \#(dir)/other.json: layout "other", grid 0: "size": "auto" is not a size"#))
    }

    @Test func missingFileIsAnError() {
        let result = run(["check", "/nonexistent/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out.contains("cannot read /nonexistent/tapgrid.json: No such file or directory (errno 2)"))
    }

    @Test func overlapAndNegativeSizeWarnings() throws {
        let config = #"{"layouts": {"a": {"width": 100, "height": 10, "grid": {"cols": [{"size": 80, "tag": 1}, {"size": 60, "tag": 2}, {"size": "fill", "tag": 3}]}}}}"#
        let dir = try folder(["c.json": config])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/c.json"])
        #expect(result.code == 0)
        #expect(result.out.contains(#"layout "a", grid 2: resolved size is negative (-40 x 10)"#))
        #expect(result.out.contains(#"layout "a", grid 1: overlaps its sibling 2"#))
    }

    /// A negative matrix margin: one warning about the margin, none for the cells it makes overlap.
    @Test func negativeMarginIsOneWarning() throws {
        let config = #"{"layouts": {"a": {"width": 300, "height": 300, "grid": {"matrix": {"cols": 3, "count": 9, "margin": -5, "tag": 1}}}}}"#
        let dir = try folder(["c.json": config])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/c.json"])
        #expect(result.code == 0)
        #expect(result.out == """
            layout "a": 10 grids, 9 hittable (300x300 ltr), initial
            warning: \(dir)/c.json: layout "a", grid (root): "matrix"."margin": -5 is negative, so neighbouring cells overlap by 5 and the outer cells reach 5 past the grid's edges (taps in an overlap go to the lower-numbered cell); margin is the gap between cells and around them: use 0 or more
            \(dir)/c.json: 0 errors, 1 warning

            """)
    }
}

@Suite struct ShowAndHitTests {
    @Test func showJSONHasTheContractShape() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let result = run(["show", dir + "/tapgrid.json", "--format", "json"])
        #expect(result.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["layout"] as? String == "home")
        #expect(object["width"] as? Double == 300)
        #expect(object["direction"] as? String == "ltr")
        let grids = try #require(object["grids"] as? [[String: Any]])
        #expect(grids.map { $0["path"] as? String } == ["", "0", "1", "2"])
        #expect(grids[1]["name"] as? String == "web")
        #expect(grids[1]["rect"] as? [Double] == [0, 0, 100, 100])
        #expect(grids[1]["tag"] as? Int == 1)
        #expect(grids[1]["actionData"] as? String == "https://example.org")
        #expect(grids[1]["hittable"] as? Bool == true)
        #expect(grids[1]["handler"] as? String == "browser")
        #expect(grids[0]["hittable"] as? Bool == false)
        #expect(grids[0]["handler"] is NSNull)
        #expect(grids[3]["handler"] is NSNull)  // tag 9: unrouted
        #expect(grids[2]["rect"] as? [Double] == [100, 0, 150, 100])
    }

    @Test func showRTLLayoutMirrorsColumns() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let result = run(["show", dir + "/tapgrid.json", "--layout=other", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let grids = try #require(object["grids"] as? [[String: Any]])
        #expect(grids[1]["rect"] as? [Double] == [60, 0, 40, 100])
        #expect(grids[2]["rect"] as? [Double] == [0, 0, 60, 100])
    }

    @Test func showTableAndSVGToFile() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let table = run(["show", dir + "/tapgrid.json"])
        #expect(table.out.contains("PATH"))
        #expect(table.out.contains("browser"))
        let svgPath = dir + "/out.svg"
        let svg = run(["show", dir + "/tapgrid.json", "--format", "svg", "--output", svgPath])
        #expect(svg.code == 0 && svg.out.isEmpty)
        let text = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"100\""))
        #expect(text.contains(">web</text>"))
        #expect(text.contains(">tag 2</text>"))
        #expect(text.hasSuffix("</svg>\n"))
    }

    @Test func unknownLayoutIsAnError() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let result = run(["show", dir + "/tapgrid.json", "--layout", "nope"])
        #expect(result.code == 1)
        #expect(result.err.contains(#"Error: no layout "nope""#))
    }

    @Test func offlineHitJSONAndHuman() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let json = run(["hit", "150", "50", "--config", dir + "/tapgrid.json", "--json"])
        #expect(json.code == 0)
        #expect(json.out == #"{"layout": "home", "hit": {"path": "1", "name": null, "tag": 2, "actionData": "echo hi"}, "handler": "shell", "outcome": "checked"}"# + "\n")
        let miss = run(["hit", "300", "50", "--config", dir + "/tapgrid.json", "--json"])
        #expect(miss.out == #"{"layout": "home", "hit": null, "handler": null, "outcome": "checked"}"# + "\n")
        let human = run(["hit", "10", "10", "--config", dir + "/tapgrid.json"])
        #expect(human.out == "home: 0 \"web\" tag 1 actionData \"https://example.org\" -> browser\n")
        let rtl = run(["hit", "99", "10", "--config", dir + "/tapgrid.json", "--layout", "other", "--json"])
        #expect(rtl.out.contains(#""path": "0""#))
    }
}

@Suite struct DaemonClientTests {
    @Test func unreachableDaemonExits69() {
        let result = run(["status", "--socket", "/nonexistent/tapgrid.sock"])
        #expect(result.code == 69)
        #expect(result.err.hasPrefix("Error: cannot connect to /nonexistent/tapgrid.sock: No such file or directory (errno 2)"))
    }

    @Test func usageErrorExits64() {
        let result = run(["tap", "1"])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: Missing expected argument '<y>'"))
    }
}

@Suite struct ReplayTests {
    @Test func replayReportsChangedTapsAndUnreadableLines() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let events = """
            {"time":"2026-11-29T10:00:00.000Z","run":"r","seq":1,"layout":"home","generation":1,"x":10,"y":10,"hit":"0","name":"web","tag":1,"actionData":"https://example.org","handler":"browser","outcome":"dispatched"}
            {"time":"2026-11-29T10:00:00.000Z","run":"r","seq":2,"layout":"home","generation":1,"x":150,"y":10,"hit":"0","name":null,"tag":1,"actionData":null,"handler":"browser","outcome":"dispatched"}
            {"time":"2026-11-29T10:00:00.000Z","run":"r","seq":1,"event":"exit","status":0,"durationMs":3}
            {"time":"2026-11-29T10:00:00.000Z","run":"r","seq":3,"layout":"gone","generation":1,"x":1,"y":1,"hit":null,"tag":null,"actionData":null,"handler":null,"outcome":"miss"}
            {"seq":4,"layout":"ho
            """
        let path = dir + "/events.jsonl"
        try events.write(toFile: path, atomically: true, encoding: .utf8)
        let result = run(["replay", path, "--config", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out == """
            line 2 seq 2 (150, 10) home: 0 tag 1 -> 1 tag 2, actionData null -> "echo hi", handler browser -> shell
            line 4 seq 3 (1, 1) gone: miss -> layout "gone" no longer exists
            line 5: unreadable: not JSON (1:19: unterminated string)
            3 taps, 2 differ, 1 unreadable

            """)
    }

    @Test func replayOfUnchangedLogExitsZero() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let events = #"{"seq":1,"layout":"home","x":10,"y":10,"hit":"0","tag":1,"actionData":"https://example.org","handler":"browser","outcome":"dispatched"}"# + "\n"
        try events.write(toFile: dir + "/e.jsonl", atomically: true, encoding: .utf8)
        let result = run(["replay", dir + "/e.jsonl", "--config", dir + "/tapgrid.json", "--json"])
        #expect(result.code == 0)
        #expect(result.out == #"{"taps": 1, "differ": 0, "unreadable": 0}"# + "\n")
    }
}

/// Replay follows cell state: sets applied (an MQTT one too), toggles flipped by the replay itself,
/// and `active` and `disabled` compared like the other fields.
@Suite struct CellStateReplayTests {
    static let recordedConfig = """
        {"layouts": {"panel": {"width": 200, "height": 100, "grid": {"cols": [
            {"name": "lamp", "size": 100, "tag": 1, "toggle": true}, {"name": "fan", "size": "fill", "tag": 2}]}}},
         "handlers": {"audit": {"type": "log"}}, "routes": [{"tags": [1, 2], "handler": "audit"}]}
        """
    /// The lamp narrowed to 40 and no longer a toggle: x 50 lands on the fan, which a set disabled.
    static let changedConfig = recordedConfig.replacingOccurrences(
        of: #"{"name": "lamp", "size": 100, "tag": 1, "toggle": true}"#, with: #"{"name": "lamp", "size": 40, "tag": 1}"#)
    static let events = """
        {"seq":1,"event":"state","layout":"panel","grid":"1","text":null,"active":null,"value":null,"enabled":false,"source":"mqtt"}
        {"seq":2,"event":"state","layout":"panel","grid":"0","text":null,"active":true,"value":null,"enabled":null,"source":"toggle"}
        {"seq":2,"layout":"panel","x":50,"y":50,"hit":"0","tag":1,"actionData":null,"handler":"audit","outcome":"dispatched","active":true}
        {"seq":3,"layout":"panel","x":150,"y":50,"hit":"1","tag":2,"actionData":null,"handler":"audit","outcome":"disabled"}
        {"seq":4,"event":"state","layout":"panel","source":"socket"}
        {"seq":5,"event":"state","layout":"panel","grid":"0","text":null,"active":false,"value":null,"enabled":null,"source":"toggle"}
        {"seq":5,"layout":"panel","x":50,"y":50,"hit":"0","tag":1,"actionData":null,"handler":"audit","outcome":"dispatched","active":false}

        """

    @Test func theRecordedConfigReplaysClean() throws {
        let dir = try folder(["recorded.json": Self.recordedConfig, "e.jsonl": Self.events])
        defer { removeTempDir(dir) }
        let result = run(["replay", dir + "/e.jsonl", "--config", dir + "/recorded.json"])
        #expect(result.out == """
            line 5: unreadable: not a state record (needs layout, grid, source and seq)
            3 taps, 0 differ, 1 unreadable

            """)
        #expect(result.code == 1)
    }

    @Test func aChangedConfigShowsActiveAndDisabledDifferences() throws {
        let dir = try folder(["changed.json": Self.changedConfig, "e.jsonl": Self.events])
        defer { removeTempDir(dir) }
        let text = run(["replay", dir + "/e.jsonl", "--config", dir + "/changed.json"])
        #expect(text.out == """
            line 3 seq 2 (50, 50) panel: 0 tag 1 -> 1 tag 2, active true -> none, enabled -> disabled
            line 5: unreadable: not a state record (needs layout, grid, source and seq)
            line 7 seq 5 (50, 50) panel: 0 tag 1 -> 1 tag 2, active false -> none, enabled -> disabled
            3 taps, 2 differ, 1 unreadable

            """)
        #expect(text.code == 1)
        let json = run(["replay", dir + "/e.jsonl", "--config", dir + "/changed.json", "--json"])
        #expect(json.out.split(separator: "\n").first == #"{"line": 3, "seq": 2, "x": 50, "y": 50, "layout": "panel", "recorded": {"hit": "0", "tag": 1, "actionData": null, "handler": "audit", "active": true, "disabled": false}, "replayed": {"hit": "1", "tag": 2, "actionData": null, "handler": "audit", "active": null, "disabled": true}}"#)
    }
}

@Suite struct LimitTests {
    @Test func aTreeFarPastTheDepthLimitNamesTheLimit() throws {
        var grid = #"{"tag": 1}"#
        for _ in 0..<300 { grid = #"{"rows": [\#(grid)]}"# }
        let dir = try folder(["c.json": #"{"layouts": {"deep": {"width": 10, "height": 10, "grid": \#(grid)}}}"#])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/c.json"])
        #expect(result.code == 1)
        #expect(result.out.contains("nesting is deeper than 528 levels; a grid tree may be at most 256 levels deep"))
    }

    @Test func justPastTheDepthLimitNamesLayoutAndGrid() throws {
        var grid = #"{"tag": 1}"#
        for _ in 0..<256 { grid = #"{"rows": [\#(grid)]}"# }
        let dir = try folder(["c.json": #"{"layouts": {"deep": {"width": 10, "height": 10, "grid": \#(grid)}}}"#])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/c.json"])
        #expect(result.code == 1)
        #expect(result.out.contains(#"layout "deep", grid 0/0/0/"#))
        #expect(result.out.contains("the grid tree is deeper than 256 levels; the limit is 256"))
    }
}
