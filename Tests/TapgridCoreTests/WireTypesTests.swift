import Testing

@testable import TapgridCore

/// The requests the CLI sends, the replies it reads back, and the lines `--json` prints: all
/// written by `JSONObjectWriter`, compared exactly.
@Suite struct WireTypesTests {
    @Test func objectWriterStyles() {
        var compact = JSONObjectWriter(.compact)
        compact.string("a", "x\"y")
        compact.number("b", 1.5)
        compact.int("c", nil)
        compact.bool("d", false)
        compact.value("e", .array([.number(JSONNumber(1)), .null]))
        compact.object("f") { $0.int("g", 2) }
        compact.numbers("h", [0, 33.333333333333336])
        #expect(compact.text == #"{"a":"x\"y","b":1.5,"c":null,"d":false,"e":[1,null],"f":{"g":2},"h":[0,33.333333333333336]}"#)
        var spaced = JSONObjectWriter(.spaced)
        spaced.string("a", nil)
        spaced.value("e", .object([JSONMember(key: "k", value: .string("v")), JSONMember(key: "n", value: .null)]))
        spaced.object("f") { $0.int("g", 2); $0.null("h") }
        spaced.numbers("r", [1, 2])
        #expect(spaced.text == #"{"a": null, "e": {"k":"v","n":null}, "f": {"g": 2, "h": null}, "r": [1, 2]}"#)
        var lines = JSONObjectWriter(.spaced)
        var one = JSONObjectWriter(.spaced)
        one.int("p", 1)
        lines.objectLines("l", [one, one])
        lines.objectLines("none", [])
        #expect(lines.text == "{\"l\": [\n  {\"p\": 1},\n  {\"p\": 1}\n], \"none\": [\n]}")
        #expect(JSONObjectWriter().text == "{}")
    }

    @Test func requestsAreWrittenAndReadBack() throws {
        let requests: [(Request, String)] = [
            (Request(op: .tap, x: 120, y: 340.5, layout: "home"), #"{"op":"tap","x":120,"y":340.5,"layout":"home"}"#),
            (Request(op: .hit, x: -0.25, y: 1e300), #"{"op":"hit","x":-0.25,"y":1e+300}"#),
            (Request(op: .status), #"{"op":"status"}"#),
            (Request(op: .reload), #"{"op":"reload"}"#),
            (Request(op: .layouts), #"{"op":"layouts"}"#),
            (Request(op: .use, layout: "a \"b\""), #"{"op":"use","layout":"a \"b\""}"#),
            (Request(op: .down, x: 1, y: 2, layout: nil), #"{"op":"down","x":1,"y":2}"#),
            (Request(op: .move, x: 3, y: 4), #"{"op":"move","x":3,"y":4}"#),
            (Request(op: .up), #"{"op":"up"}"#),
            (Request(op: .cancel), #"{"op":"cancel"}"#),
        ]
        for (request, text) in requests {
            #expect(String(decoding: request.json, as: UTF8.self) == text)
            #expect(request.line == Array(text.utf8) + [0x0A])
            #expect(RequestScanner.scan(request.json) == .success(request))
        }
        var touch = Request(op: .down, x: 5, y: 6)
        touch.slot = 2
        #expect(String(decoding: touch.json, as: UTF8.self) == #"{"op":"down","x":5,"y":6,"slot":2}"#)
    }

    /// `set`, `load` and `layouts` with state as the CLI writes them, and what the daemon's
    /// reader (`ControlRequest`) reads back from those very lines.
    @Test func controlRequestsAreWrittenAndReadBack() throws {
        let sets: [(ControlRequest.Set, String)] = [
            (ControlRequest.Set(layout: "home", grid: "volume", change: CellChange(text: .set("42 %"), active: .set(true), valueJSON: .set(#"{"v":[1,"a"]}"#), enabled: .set(false))),
             #"{"op":"set","layout":"home","grid":"volume","text":"42 %","active":true,"value":{"v":[1,"a"]},"enabled":false}"#),
            (ControlRequest.Set(layout: nil, grid: "0/1", change: CellChange(text: .clear, valueJSON: .clear)),
             #"{"op":"set","grid":"0/1","text":null,"value":null}"#),
            (ControlRequest.Set(layout: "a \"b\"", grid: "", change: CellChange(active: .clear, enabled: .clear)),
             #"{"op":"set","layout":"a \"b\"","grid":"","active":null,"enabled":null}"#),
        ]
        for (request, text) in sets {
            #expect(String(decoding: request.json, as: UTF8.self) == text)
            #expect(RequestScanner.scan(request.json).map(\.op) == .success(.set))
            #expect(ControlRequest.set(try JSONParser.parse(request.json, lenient: false)) == .success(request))
        }
        let definition = try JSONParser.parse(#"{"width": 200, "height": 100, "grid": {"cols": [{"tag": 7, "size": 0.5}]}}"#, lenient: false)
        let load = ControlRequest.Load(layout: "promo", definition: definition)
        #expect(String(decoding: load.json, as: UTF8.self) == #"{"op":"load","layout":"promo","definition":{"width":200,"height":100,"grid":{"cols":[{"tag":7,"size":0.5}]}}}"#)
        #expect(ControlRequest.load(try JSONParser.parse(load.json, lenient: false)) == .success(load))
        #expect(String(decoding: Request(op: .unload, layout: "promo").json, as: UTF8.self) == #"{"op":"unload","layout":"promo"}"#)
        let layouts = ControlRequest.layoutsWithStateJSON
        #expect(String(decoding: layouts, as: UTF8.self) == #"{"op":"layouts","state":true}"#)
        #expect(ControlRequest.layoutsWithState(try JSONParser.parse(layouts, lenient: false)) == .success(true))
    }

    @Test func cellAndLayoutRepliesAreReadIntoTypes() throws {
        func value(_ text: String) throws -> JSONValue { try JSONParser.parse(text, lenient: false) }
        let set = CellSetReply(try value(#"{"ok":true,"layout":"home","grid":"0/1"}"#))
        #expect(set.layout == "home" && set.grid == "0/1")
        let loaded = LoadReply(try value(#"{"ok":true,"generation":5}"#))
        #expect(loaded.generation == 5 && !loaded.unchanged)
        #expect(LoadReply(try value(#"{"ok":true,"generation":4,"unchanged":true}"#)).unchanged)
        let reply = LayoutsReply(try value(#"""
            {"layouts":[{"name":"home","width":300,"height":100,"current":true,"grids":[
              {"path":"","rect":[0,0,300,100]},
              {"path":"0","rect":[0,0,100,100],"name":"volume","tag":1,"text":"42 %","active":true,"value":{"v":42},"enabled":null},
              {"path":"1","rect":[100,0,100,100],"tag":2,"toggle":true,"text":null,"active":null,"value":null,"enabled":false},
              {"path":"2","rect":"bad"}]},
             {"name":"promo","width":200,"height":50.5,"current":false,"grids":[]}]}
            """#))
        #expect(reply.layouts.map(\.name) == ["home", "promo"])
        let home = try #require(reply.layout(named: nil))
        #expect(home.name == "home" && home.width == 300 && home.current)
        #expect(home.grids.map(\.path) == ["", "0", "1"])  // the unreadable grid is left out
        #expect(home.grids[1].rect == Rect(x: 0, y: 0, width: 100, height: 100))
        #expect(home.grids[1].name == "volume" && home.grids[1].tag == 1 && !home.grids[1].toggle)
        #expect(home.grids[1].state == CellState(text: "42 %", active: true, valueJSON: #"{"v":42}"#, enabled: nil))
        #expect(home.grids[2].toggle && home.grids[2].state == CellState(enabled: false) && home.grids[2].state.isDisabled)
        #expect(home.grids[0].state.isEmpty)
        #expect(reply.layout(named: "promo")?.height == 50.5)
        #expect(reply.layout(named: "nope") == nil)
        #expect(LayoutsReply(try value(#"{"ok":true}"#)).layouts.isEmpty)
    }

    /// What `tapgrid load --check` runs offline is what the daemon's `load` runs: the same
    /// messages, named from `load.definition`, routed by the config's routes.
    @Test func pushedLayoutCheckIsTheLoadsCheck() throws {
        var parser = ConfigParser(file: "t.json", directory: "/") { path in .failure(Diagnostic(.error, "no files: \(path)")) }
        let (parsed, _) = parser.parse(try JSONParser.parse(#"{"layouts": {"a": {"width": 10, "height": 10, "grid": {}}}, "handlers": {"audit": {"type": "log"}}, "routes": [{"tags": [7], "handler": "audit"}]}"#, lenient: false))
        let config = try #require(parsed)
        let bad = try JSONParser.parse(#"{"width": 200, "height": 100, "grid": {"cols": [{"size": "200", "tag": 7}]}}"#, lenient: false)
        let (refused, problems) = PushedLayouts.check("promo", definition: bad, config: config)
        #expect(refused == nil)
        let expected = #"load.definition.grid 0: "size": "200" is not a size; use a number (200), "fill", "wrap" or a percentage ("20%")"#
        #expect(problems.errors.map(\.description) == [expected])
        var pushed = PushedLayouts()
        guard case .refused(let errors) = pushed.load("promo", definition: bad, config: config) else {
            Issue.record("a bad definition was loaded")
            return
        }
        #expect(errors.map(\.description) == [expected])
        let good = try JSONParser.parse(#"{"width": 200, "height": 100, "grid": {"cols": [{"tag": 7}, {"tag": 8}]}}"#, lenient: false)
        let (layout, warnings) = PushedLayouts.check("promo", definition: good, config: config)
        #expect(layout?.name == "promo" && layout?.tree.count == 3)
        #expect(warnings.errors.isEmpty)
        #expect(warnings.warnings.map(\.description) == [#"layout "promo": tag 8 matches no route and there is no default route; taps there are "unrouted""#])
        #expect(PushedLayouts.check("", definition: good, config: config).diagnostics.errors.map(\.description) == ["load.layout: a layout needs a non-empty name"])
    }

    @Test func repliesAreReadIntoTypes() throws {
        let error = try DaemonReply.read(Array(#"{"id":7,"error":{"code":"unknown_layout","message":"unknown layout \"x\""}}"#.utf8))
        guard case .error(let refused) = error else { Issue.record("not an error: \(error)"); return }
        #expect(refused.code == "unknown_layout" && refused.message == #"unknown layout "x""# && refused.isUnknownLayout)
        let tap = try DaemonReply.read(Array(#"{"seq":4,"layout":"home","generation":2,"hit":{"path":"0/1","name":null,"tag":3,"actionData":{"a":1}},"handler":"h","outcome":"dispatched","class":"long","logged":false}"#.utf8))
        guard case .ok(let value) = tap else { Issue.record("not ok: \(tap)"); return }
        let reply = TapReply(value)
        #expect(reply.seq == 4 && reply.layout == "home" && reply.generation == 2 && reply.handler == "h")
        #expect(reply.outcome == "dispatched" && reply.tapClass == "long" && !reply.logged && reply.reason == nil)
        #expect(reply.hit?.path == "0/1" && reply.hit?.name == nil && reply.hit?.tag == 3)
        #expect(reply.hit?.actionData == .object([JSONMember(key: "a", value: .number(JSONNumber(1)))]))
        let miss = TapReply(try JSONParser.parse(#"{"layout":"home","hit":null,"handler":null,"outcome":"checked"}"#, lenient: false))
        #expect(miss.hit == nil && miss.seq == nil && miss.logged)
        let touch = TouchReply(try JSONParser.parse(#"{"ok":true,"taps":[{"seq":1,"outcome":"miss"},{"seq":2,"outcome":"miss"}]}"#, lenient: false))
        #expect(touch.taps.map(\.seq) == [1, 2])
        #expect(TouchReply(try JSONParser.parse(#"{"ok":true}"#, lenient: false)).taps.isEmpty)
    }

    /// Byte for byte what `tapgridd` writes for `status` (`TapService.writeStatus`), and read back.
    @Test func statusReplyIsWrittenAndReadBack() throws {
        let status = StatusReply(
            uptime: 12.5, generation: 3, layout: "home", taps: 42,
            outcomes: [.init(name: "dispatched", count: 40), .init(name: "miss", count: 2)],
            children: 1, queued: 0, clients: 2, eventLog: .init(path: "/var/log/tapgrid/events.jsonl", ok: false, error: "disk full"))
        let out = ByteBuffer(capacity: 64)
        let id: [UInt8] = Array(#""a""#.utf8)
        id.withUnsafeBufferPointer { status.write(id: $0, into: out) }
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text == #"{"id":"a","uptime":12.5,"generation":3,"layout":"home","taps":42,"outcomes":{"dispatched":40,"miss":2},"children":1,"queued":0,"clients":2,"eventLog":{"path":"/var/log/tapgrid/events.jsonl","ok":false,"error":"disk full"}}"# + "\n")
        #expect(StatusReply(try JSONParser.parse(String(text.dropLast()), lenient: false)) == status)
        let none = StatusReply(uptime: 0, generation: 1, layout: "a", taps: 0, outcomes: [], children: 0, queued: 0, clients: 1,
                               eventLog: .init(path: nil, ok: true))
        let empty = ByteBuffer(capacity: 64)
        none.write(id: nil, into: empty)
        #expect(String(decoding: empty.bytes, as: UTF8.self) == #"{"uptime":0,"generation":1,"layout":"a","taps":0,"outcomes":{},"children":0,"queued":0,"clients":1,"eventLog":{"path":null,"ok":true}}"# + "\n")
    }

    @Test func replayReportLines() {
        var record = TapRecord(seq: "8", layout: "home", x: 250, y: 50.5, hit: "0/2", tag: 3, actionData: .string("s"), handler: "pages")
        let recorded = ReplayReport.Resolution(hit: "0/2", tag: 3, actionData: .string("s"), handler: "pages", problem: nil)
        let replayed = ReplayReport.Resolution(hit: nil, tag: nil, actionData: .null, handler: nil, problem: #"layout "home" no longer exists"#)
        #expect(ReplayReport.differs(line: 11, record: record, recorded: recorded, replayed: replayed).json
            == #"{"line": 11, "seq": 8, "x": 250, "y": 50.5, "layout": "home", "recorded": {"hit": "0/2", "tag": 3, "actionData": "s", "handler": "pages"}, "replayed": {"hit": null, "tag": null, "actionData": null, "handler": null, "problem": "layout \"home\" no longer exists"}}"#)
        record.tapClass = "long"
        #expect(ReplayReport.replayOnly(record).json
            == #"{"line": null, "seq": null, "x": 250, "y": 50.5, "layout": "home", "recorded": null, "replayed": {"class": "long", "hit": "0/2", "handler": "pages"}}"#)
        #expect(ReplayReport.unreadable(line: 4, message: "not JSON").json == #"{"line": 4, "unreadable": "not JSON"}"#)
        #expect(ReplayReport.summary(taps: 11, differ: 3, unreadable: 0).json == #"{"taps": 11, "differ": 3, "unreadable": 0}"#)
        let error = JSONValue.object([JSONMember(key: "code", value: .string("busy")), JSONMember(key: "message", value: .string("m"))])
        #expect(DispatchReport.error(line: 2, record: record, .reply(error)).json
            == #"{"line": 2, "seq": 8, "x": 250, "y": 50.5, "layout": "home", "error": {"code":"busy","message":"m"}}"#)
        #expect(DispatchReport.error(line: 2, record: record, .unexpected(code: "not_json", message: "the daemon answered x")).json
            == #"{"line": 2, "seq": 8, "x": 250, "y": 50.5, "layout": "home", "error": {"code": "not_json", "message": "the daemon answered x"}}"#)
        #expect(DispatchReport.summary(taps: 3, sets: 1, outcomes: [("dispatched", 2), ("miss", 1)], errors: 0, notLogged: 1, unreadable: 0).json
            == #"{"taps": 3, "sets": 1, "outcomes": {"dispatched": 2, "miss": 1}, "errors": 0, "notLogged": 1, "unreadable": 0}"#)
        let state = RecordedState(seq: "5", layout: "panel", grid: "2", state: CellState(enabled: false), source: "socket")
        #expect(DispatchReport.setError(line: 7, state: state, .reply(error)).json
            == #"{"line": 7, "seq": 5, "event": "state", "layout": "panel", "grid": "2", "error": {"code":"busy","message":"m"}}"#)
    }

    /// `active` on both sides when either has one (null where the grid does not toggle);
    /// `disabled` on both sides when either was; neither otherwise, as before cell state.
    @Test func replayReportLinesWithCellState() {
        var record = TapRecord(seq: "3", layout: "panel", x: 50, y: 50, hit: "0", tag: 1, handler: "audit")
        let toggled = ReplayReport.Resolution(hit: "0", tag: 1, actionData: .null, handler: "audit", problem: nil, active: true)
        let plain = ReplayReport.Resolution(hit: "0", tag: 1, actionData: .null, handler: "audit", problem: nil)
        #expect(ReplayReport.differs(line: 4, record: record, recorded: toggled, replayed: plain).json
            == #"{"line": 4, "seq": 3, "x": 50, "y": 50, "layout": "panel", "recorded": {"hit": "0", "tag": 1, "actionData": null, "handler": "audit", "active": true}, "replayed": {"hit": "0", "tag": 1, "actionData": null, "handler": "audit", "active": null}}"#)
        let disabled = ReplayReport.Resolution(hit: "0", tag: 1, actionData: .null, handler: "audit", problem: nil, disabled: true)
        #expect(ReplayReport.differs(line: 4, record: record, recorded: plain, replayed: disabled).json
            == #"{"line": 4, "seq": 3, "x": 50, "y": 50, "layout": "panel", "recorded": {"hit": "0", "tag": 1, "actionData": null, "handler": "audit", "disabled": false}, "replayed": {"hit": "0", "tag": 1, "actionData": null, "handler": "audit", "disabled": true}}"#)
        record.tapClass = "tap"
        record.active = false
        #expect(ReplayReport.replayOnly(record).json
            == #"{"line": null, "seq": null, "x": 50, "y": 50, "layout": "panel", "recorded": null, "replayed": {"class": "tap", "hit": "0", "handler": "audit", "active": false}}"#)
        record.active = nil
        record.outcome = "disabled"
        #expect(ReplayReport.replayOnly(record).json
            == #"{"line": null, "seq": null, "x": 50, "y": 50, "layout": "panel", "recorded": null, "replayed": {"class": "tap", "hit": "0", "handler": "audit", "disabled": true}}"#)
    }
}
