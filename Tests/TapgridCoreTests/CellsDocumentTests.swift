import Testing

@testable import TapgridCore

/// `cells.json`'s text (docs/cell-state.md "Cell state across restarts"): what the daemon writes, that it reads it back as
/// it was, and that a torn or wrong file is refused with a message saying what is wrong.
@Suite struct CellsDocumentTests {
    typealias Cell = TapEngine.NamedCell

    static let sample: [Cell] = [
        Cell(layout: "home", path: "0/1", state: CellState(text: "42 %", active: true, valueJSON: "42", enabled: nil)),
        Cell(layout: "home", path: "", state: CellState(enabled: false)),
        Cell(layout: "other", path: "2", state: CellState(text: "é \"q\"\n😀", valueJSON: #"{"k":[1,"two",null,-0.5]}"#)),
    ]

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func encodesOneCompactObjectAndANewline() {
        #expect(text(CellsDocument.encode(Self.sample)) == #"""
            {"version":1,"layouts":{"home":{"0/1":{"text":"42 %","active":true,"value":42,"enabled":null},"":{"text":null,"active":null,"value":null,"enabled":false}},"other":{"2":{"text":"é \"q\"\n😀","active":null,"value":{"k":[1,"two",null,-0.5]},"enabled":null}}}}

            """#)
        #expect(text(CellsDocument.encode([])) == "{\"version\":1,\"layouts\":{}}\n")
    }

    @Test func groupsALayoutsGridsAndLeavesEmptyStatesOut() throws {
        let cells = [
            Cell(layout: "a", path: "0", state: CellState(active: false)),
            Cell(layout: "b", path: "0", state: CellState(active: true)),
            Cell(layout: "a", path: "1", state: CellState()),
            Cell(layout: "a", path: "2", state: CellState(text: "")),
        ]
        let encoded = CellsDocument.encode(cells)
        #expect(text(encoded).hasPrefix(#"{"version":1,"layouts":{"a":{"0":"#))
        #expect(try CellsDocument.decode(encoded) == [cells[0], cells[3], cells[1]])
    }

    @Test func roundTrips() throws {
        #expect(try CellsDocument.decode(CellsDocument.encode(Self.sample)) == Self.sample)
        // The limits `set` enforces, exactly reached.
        let longest = String(repeating: "é", count: CellState.maxTextBytes / 2)
        let biggest = "\"" + String(repeating: "v", count: CellState.maxValueBytes - 2) + "\""
        let edges = [
            Cell(layout: "x y/ü", path: "0/0/0", state: CellState(text: longest, active: false, valueJSON: biggest, enabled: true)),
            Cell(layout: "n", path: "1", state: CellState(valueJSON: "[1e+300,9007199254740993,-7,0.1,true,{}]")),
        ]
        #expect(try CellsDocument.decode(CellsDocument.encode(edges)) == edges)
    }

    @Test func roundTripsAnEnginesState() throws {
        var engine = try TapEngineTests.engine()
        _ = engine.set(layout: "home", grid: "0", CellChange(text: .set("on"), active: .set(true)))
        _ = engine.set(layout: "settings", grid: "1", CellChange(valueJSON: .set(#"{"level":3}"#), enabled: .set(false)))
        _ = engine.set(layout: nil, grid: "3", CellChange(active: .set(false)))
        let decoded = try CellsDocument.decode(CellsDocument.encode(engine.cellSnapshot()))
        var fresh = try TapEngineTests.engine()
        #expect(fresh.restoreCells(decoded) == 0)
        #expect(fresh.cellSnapshot() == engine.cellSnapshot())
        #expect(fresh.cellState(layout: 1, grid: try fresh.grid("1", in: 1).get()).isDisabled)
    }

    /// Every cut of a valid document (a crash or a full disk mid-write) is refused, none crashes.
    @Test func everyTornPrefixIsRefused() throws {
        let whole = CellsDocument.encode(Self.sample)
        for length in 0..<(whole.count - 1) {  // the last byte is the newline: without it, still whole
            #expect(throws: CellsDocument.Problem.self, "cut at \(length)") { _ = try CellsDocument.decode(Array(whole[..<length])) }
        }
        #expect(try CellsDocument.decode(Array(whole.dropLast())) == Self.sample)
    }

    static let refused: [(String, String)] = [
        ("", "the file is empty"),
        (#"{"version":1,"layouts":{"home":{"0":{"te"#,
         "not valid JSON: 1:38: unterminated string (the file is cut short: torn by a crash, or a full disk?)"),
        (#"{"version":1,"layouts":{"#, "not valid JSON: 1:25: unexpected end of input (the file is cut short: torn by a crash, or a full disk?)"),
        ("{\"version\":1,\"layouts\":{}} xx", "not valid JSON: 1:28: expected end of input after the JSON value, found 'xx'"),
        (#"{"version":1,"version":1,"layouts":{}}"#, #"not valid JSON: 1:14: duplicate key "version""#),
        ("[1]", #"expected an object {"version": 1, "layouts": {...}}, found an array"#),
        (#"{"layouts":{}}"#, #""version" is missing (this tapgridd reads version 1)"#),
        (#"{"version":"1","layouts":{}}"#, #""version" must be the number 1, not a string"#),
        (#"{"version":2,"layouts":{}}"#, "version 2 is not one this tapgridd reads (it reads version 1)"),
        (#"{"version":1.5,"layouts":{}}"#, "version 1.5 is not one this tapgridd reads (it reads version 1)"),
        (#"{"version":1}"#, #""layouts" is missing"#),
        (#"{"version":1,"layouts":[]}"#, #""layouts" must be an object of layouts by name, not an array"#),
        (#"{"version":1,"layouts":{"home":true}}"#, "layouts.home: expected an object of grids by path, found a boolean"),
        (#"{"version":1,"layouts":{"home":{"0":"on"}}}"#,
         #"layouts.home, grid "0": expected an object {"text", "active", "value", "enabled"}, found a string"#),
        (#"{"version":1,"layouts":{"home":{"0":{"text":5}}}}"#, #"layouts.home, grid "0": "text" must be a string or null, not a number"#),
        (#"{"version":1,"layouts":{"home":{"0/1":{"active":"yes"}}}}"#,
         #"layouts.home, grid "0/1": "active" must be true, false or null, not a string"#),
        (#"{"version":1,"layouts":{"home":{"":{"enabled":0}}}}"#, #"layouts.home, grid "": "enabled" must be true, false or null, not a number"#),
        (#"{"version":1,"layouts":{"home":{"0":{"text":""# + String(repeating: "x", count: 257) + #""}}}}"#,
         #"layouts.home, grid "0": "text" is 257 bytes; at most 256"#),
        (#"{"version":1,"layouts":{"home":{"0":{"value":""# + String(repeating: "x", count: 4095) + #""}}}}"#,
         #"layouts.home, grid "0": "value" is 4097 bytes as compact JSON; at most 4096"#),
    ]

    @Test(arguments: refused)
    func refusesWithWhatIsWrong(_ document: String, _ message: String) {
        let problem = #expect(throws: CellsDocument.Problem.self) { _ = try CellsDocument.decode(Array(document.utf8)) }
        #expect(problem?.message == message)
    }

    @Test func nullsAndMissingKeysAreNullAndUnknownKeysIgnored() throws {
        let document = #"""
            {"version": 1, "written": "later", "layouts": {
              "home": {"0": {"text": null, "active": true, "extra": [1]}, "1": {}, "2": {"value": null, "enabled": null}},
              "empty": {}}}
            """#
        #expect(try CellsDocument.decode(Array(document.utf8)) == [Cell(layout: "home", path: "0", state: CellState(active: true))])
        // A value is kept as the writer writes it: compact, numbers as `set` would store them.
        let spaced = #"{"version":1,"layouts":{"home":{"0":{"value": { "a" : [ 1.0, 2e3 ] }}}}}"#
        #expect(try CellsDocument.decode(Array(spaced.utf8)).first?.state.valueJSON == #"{"a":[1,2000]}"#)
    }
}
