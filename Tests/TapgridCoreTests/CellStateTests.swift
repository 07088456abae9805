import Testing

@testable import TapgridCore

/// Cell state and pushed layouts in-process (docs/cell-state.md "Cell state", "Pushed layouts"): what `set`
/// keeps, clears and refuses, what toggles and disabled grids do to taps, and how state follows
/// a grid across reloads and pushed layouts by layout name and path.
@Suite struct CellStateTests {
    /// "home": cols of three 100x100 thirds: "light" (toggle, tag 1), "cart" (tag 2), and an
    /// unnamed grid at path 2 (tag 3); "other": one grid "volume". Every tag goes to `audit`.
    static let config = #"""
    {"layouts": {
       "home": {"width": 300, "height": 100, "grid": {"cols": [
          {"size": 100, "tag": 1, "name": "light", "toggle": true}, {"size": 100, "tag": 2, "name": "cart"},
          {"size": 100, "tag": 3}]}},
       "other": {"width": 100, "height": 100, "grid": {"rows": [{"size": "100%", "tag": 4, "name": "volume"}]}}},
     "initialLayout": "home",
     "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
    """#

    static func load(_ text: String = config) throws -> Config {
        let document = try JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (loaded, diagnostics) = parser.parse(document)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
        return try #require(loaded)
    }

    static func engine() throws -> TapEngine { TapEngine(config: try load(), generation: 1) }

    static func set(_ line: String) throws -> ControlRequest.Set {
        try ControlRequest.set(JSONParser.parse(line, lenient: false)).get()
    }

    static func setError(_ line: String) throws -> String? {
        guard case .failure(let error) = ControlRequest.set(try JSONParser.parse(line, lenient: false)) else { return nil }
        return error.message
    }

    func tap(_ engine: inout TapEngine, x: Double, layout: String = "home") -> TapDecision {
        engine.tap(layout: engine.layoutIndex(for: layout)!, x: x, y: 50, explicitLayout: true, now: 1_000_000)
    }

    // MARK: - set

    @Test func setKeepsKeysLeftOutAndNullClearsOne() throws {
        var engine = try Self.engine()
        let first = try Self.set(#"{"op":"set","grid":"cart","text":"2 items","value":{"n":2},"enabled":true}"#)
        let result = try engine.set(layout: first.layout, grid: first.grid, first.change).get()
        #expect(result.grid == 2 && result.layout == engine.layoutIndex(for: "home"))
        #expect(result.update?.seq == 1)
        #expect(engine.cellState(layout: 0, grid: 2) == CellState(text: "2 items", valueJSON: #"{"n":2}"#, enabled: true))
        let second = try Self.set(#"{"op":"set","grid":"1","text":null,"active":true}"#)
        _ = try engine.set(layout: nil, grid: second.grid, second.change).get()
        #expect(engine.cellState(layout: 0, grid: 2) == CellState(active: true, valueJSON: #"{"n":2}"#, enabled: true))
    }

    /// The state alone, as the fleet's retained state message carries it: all four keys, nulls included.
    @Test func aStateAsOneObject() {
        #expect(String(decoding: CellState(text: "a \"b\"", valueJSON: #"{"n":[1,2]}"#, enabled: false).jsonObject, as: UTF8.self)
            == #"{"text":"a \"b\"","active":null,"value":{"n":[1,2]},"enabled":false}"#)
        #expect(String(decoding: CellState().jsonObject, as: UTF8.self) == #"{"text":null,"active":null,"value":null,"enabled":null}"#)
    }

    @Test func aSetThatChangesNothingIsNotRecorded() throws {
        var engine = try Self.engine()
        let request = try Self.set(#"{"op":"set","grid":"cart","text":"x"}"#)
        let v1 = try engine.set(layout: nil, grid: request.grid, request.change).get()
        #expect(v1.update?.seq == 1)
        let v2 = try engine.set(layout: nil, grid: request.grid, request.change).get()
        #expect(v2.update == nil)
        #expect(engine.seq == 1)
    }

    @Test func clearingEveryKeyForgetsTheCell() throws {
        var engine = try Self.engine()
        let set = try Self.set(#"{"op":"set","grid":"cart","text":"x","enabled":false}"#)
        _ = try engine.set(layout: nil, grid: set.grid, set.change).get()
        #expect(engine.hasCellState)
        let clear = try Self.set(#"{"op":"set","grid":"cart","text":null,"enabled":null}"#)
        _ = try engine.set(layout: nil, grid: clear.grid, clear.change).get()
        #expect(!engine.hasCellState)
        #expect(engine.cellSnapshot().isEmpty)
    }

    @Test func everyBadSetIsRefusedWithItsReason() throws {
        #expect(try Self.setError(#"{"op":"set"}"#) == "\"grid\" is required: a grid's name or path")
        #expect(try Self.setError(#"{"op":"set","grid":3}"#) == "\"grid\" must be a string")
        #expect(try Self.setError(#"{"op":"set","grid":"a","layout":7}"#) == "\"layout\" must be a string, not a number")
        #expect(try Self.setError(#"{"op":"set","grid":"a","text":5}"#) == "\"text\" must be a string or null, not a number")
        #expect(try Self.setError(#"{"op":"set","grid":"a","active":"yes"}"#) == "\"active\" must be true, false or null, not a string")
        #expect(try Self.setError(#"{"op":"set","grid":"a","enabled":1}"#) == "\"enabled\" must be true, false or null, not a number")
        let long = String(repeating: "é", count: 129)  // 258 bytes
        #expect(try Self.setError(#"{"op":"set","grid":"a","text":"\#(long)"}"#) == "\"text\" is 258 bytes; at most 256")
        #expect(try Self.setError(#"{"op":"set","grid":"a","text":"\#(String(repeating: "a", count: 256))"}"#) == nil)
        let big = "[" + Array(repeating: "1", count: 2049).joined(separator: ",") + "]"  // 4099 bytes
        #expect(try Self.setError(#"{"op":"set","grid":"a","value":\#(big)}"#) == "\"value\" is 4099 bytes as compact JSON; at most 4096")
    }

    @Test func unknownLayoutsAndGridsAreNamed() throws {
        var engine = try Self.engine()
        func failure(_ layout: String?, _ grid: String) -> TapEngine.CellFailure? {
            if case .failure(let failure) = engine.set(layout: layout, grid: grid, CellChange()) { return failure }
            return nil
        }
        #expect(failure("nope", "cart") == .unknownLayout(#"unknown layout "nope"; the layouts are "home", "other""#))
        #expect(failure(nil, "sofa") == .unknownGrid(#"unknown grid "sofa" in layout "home"; its grids are "light", "cart""#))
        #expect(failure(nil, "0/7") == .unknownGrid(#"unknown grid "0/7" in layout "home"; its grids are "light", "cart""#))
        let volume = try engine.set(layout: "other", grid: "volume", CellChange(text: .set("x"))).get()
        #expect(volume.grid == 1)
    }

    // MARK: - Taps

    @Test func aToggleGridFlipsOnEachTapBeforeItIsRouted() throws {
        var engine = try Self.engine()
        let actives = (0..<3).map { _ in tap(&engine, x: 50).toggledActive }
        #expect(actives == [true, false, true])
        #expect(engine.cellState(layout: 0, grid: 1).active == true)
        #expect(tap(&engine, x: 150).toggledActive == nil)  // not a toggle grid
        let v3 = tap(&engine, x: 50)
        #expect(v3.outcome == .dispatched)
    }

    @Test func aToggleStartsFromASetValue() throws {
        var engine = try Self.engine()
        _ = try engine.set(layout: nil, grid: "light", CellChange(active: .set(true))).get()
        let v4 = tap(&engine, x: 50)
        #expect(v4.toggledActive == false)
    }

    @Test func aDisabledGridsTapsAreDisabledNotRoutedAndDoNotToggle() throws {
        var engine = try Self.engine()
        _ = try engine.set(layout: nil, grid: "light", CellChange(enabled: .set(false))).get()
        let refused = tap(&engine, x: 50)
        #expect(refused.outcome == .disabled && refused.action == .none && refused.toggledActive == nil)
        #expect(engine.cellState(layout: 0, grid: 1).active == nil)
        #expect(engine.outcomeCounts[.disabled] == 1)
        _ = try engine.set(layout: nil, grid: "light", CellChange(enabled: .clear)).get()
        let v5 = tap(&engine, x: 50)
        #expect(v5.outcome == .dispatched)
    }

    /// A state changed in place keeps the count of disabled grids: disabling twice and enabling
    /// once lets taps through again, and a toggle on a disabled grid's neighbour is not refused.
    @Test func disablingTwiceAndEnablingOnceLetsTapsThrough() throws {
        var engine = try Self.engine()
        for _ in 0..<2 { _ = try engine.set(layout: nil, grid: "cart", CellChange(enabled: .set(false))).get() }
        #expect(tap(&engine, x: 150).outcome == .disabled)
        #expect(tap(&engine, x: 50).toggledActive == true)
        let enabled = try engine.set(layout: nil, grid: "cart", CellChange(enabled: .clear)).get()
        #expect(enabled.update?.state == CellState())
        #expect(tap(&engine, x: 150).outcome == .dispatched)
        #expect(engine.cellSnapshot().map(\.path) == ["0"])  // cart's all-null state is forgotten
    }

    /// `apply(to:)` changes a state in place and says whether anything changed.
    @Test func aChangeInPlaceSaysWhetherItChangedAnything() {
        var state = CellState(text: "a", active: true)
        #expect(!CellChange(text: .set("a"), valueJSON: .clear).apply(to: &state))
        #expect(CellChange(text: .set("b"), icon: .set("mdi:x")).apply(to: &state))
        #expect(state == CellState(text: "b", active: true, icon: "mdi:x"))
        #expect(CellChange(active: .clear).apply(to: &state) && state.active == nil)
    }

    @Test func onlyTapClassTapsToggle() throws {
        var engine = try Self.engine()
        var taps: [ClassedTap] = []
        let key = ContactKey(stream: 1, slot: 0)
        _ = try engine.touch(.down, key: key, x: 50, y: 50, layout: nil, now: 1_000_000_000, into: &taps)
        engine.advanceTouch(to: 3_000_000_000, into: &taps)  // past the long-press time: no long route, so no tap
        _ = try engine.touch(.up, key: key, x: 50, y: 50, layout: nil, now: 3_000_000_000, into: &taps)
        #expect(taps.allSatisfy { $0.decision.toggledActive == nil || $0.decision.tapClass == .tap })
        let quick = ContactKey(stream: 1, slot: 1)
        taps.removeAll()
        _ = try engine.touch(.down, key: quick, x: 50, y: 50, layout: nil, now: 4_000_000_000, into: &taps)
        _ = try engine.touch(.up, key: quick, x: 50, y: 50, layout: nil, now: 4_050_000_000, into: &taps)
        #expect(taps.map(\.decision.tapClass) == [.tap])
        #expect(taps.first?.decision.toggledActive != nil)
    }

    @Test func aHitTestNeitherTogglesNorRefuses() throws {
        var engine = try Self.engine()
        _ = try engine.set(layout: nil, grid: "cart", CellChange(enabled: .set(false))).get()
        #expect(engine.check(layout: 0, x: 150, y: 50).outcome == .checked)
        #expect(engine.check(layout: 0, x: 50, y: 50).toggledActive == nil)
        #expect(engine.cellState(layout: 0, grid: 1).active == nil)
    }

    // MARK: - Kept by layout and path

    @Test func stateFollowsItsGridAcrossAReloadByLayoutAndPath() throws {
        var engine = try Self.engine()
        _ = try engine.set(layout: nil, grid: "cart", CellChange(text: .set("kept"))).get()
        _ = try engine.set(layout: "other", grid: "volume", CellChange(text: .set("gone"))).get()
        // The new config renames "cart" (same path) and drops "other".
        let changed = #"""
        {"layouts": {"home": {"width": 300, "height": 100, "grid": {"cols": [
            {"size": 100, "tag": 1, "name": "light", "toggle": true}, {"size": 100, "tag": 2, "name": "basket"},
            {"size": 100, "tag": 3}]}}}, "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
        """#
        engine.swap(to: try Self.load(changed), generation: 2)
        #expect(engine.cellSnapshot() == [TapEngine.NamedCell(layout: "home", path: "1", state: CellState(text: "kept"))])
        #expect(engine.cellState(layout: 0, grid: 2).text == "kept")
    }

    @Test func aSnapshotRestoresIntoAFreshEngine() throws {
        var engine = try Self.engine()
        _ = try engine.set(layout: nil, grid: "cart", CellChange(enabled: .set(false))).get()
        _ = tap(&engine, x: 50)
        var fresh = try Self.engine()
        let v6 = fresh.restoreCells(engine.cellSnapshot() + [TapEngine.NamedCell(layout: "gone", path: "0", state: CellState(text: "x"))])
        #expect(v6 == 1)
        #expect(fresh.cellSnapshot() == engine.cellSnapshot())
        let v7 = tap(&fresh, x: 150)
        #expect(v7.outcome == .disabled)
        let v8 = tap(&fresh, x: 50)
        #expect(v8.toggledActive == false)
    }

    // MARK: - Pushed layouts

    static func definition(_ text: String) throws -> JSONValue { try JSONParser.parse(text, lenient: false) }

    @Test func aPushedLayoutIsCheckedAsAConfigLayoutAndNamedFromTheRequest() throws {
        let config = try Self.load()
        var pushed = PushedLayouts()
        guard case .refused(let errors) = pushed.load("promo", definition: try Self.definition(
            #"{"width": 800, "height": 480, "grid": {"cols": [{"size": 100}, {"rows": [{"size": "200"}]}]}}"#), config: config)
        else { Issue.record("a bad size was taken"); return }
        #expect(errors.map(\.description) == [
            #"load.definition.grid 1/0: "size": "200" is not a size; use a number (200), "fill", "wrap" or a percentage ("20%")"#])
        guard case .refused(let missing) = pushed.load("promo", definition: try Self.definition(#"{"height": 4, "grid": {}}"#), config: config)
        else { Issue.record("a definition without width was taken"); return }
        #expect(missing.map(\.description) == [#"load.definition.width: missing; expected a finite number >= 0"#])
        guard case .refused(let file) = pushed.load("promo", definition: try Self.definition(#"{"width": 4, "height": 4, "grid": "/etc/passwd"}"#), config: config)
        else { Issue.record("a grid file path was taken"); return }
        #expect(file.map(\.description) == [
            #"load.definition.grid: expected a grid dictionary inline; a pushed layout cannot name a file, found "/etc/passwd""#])
        #expect(pushed.isEmpty)
    }

    @Test func aPushedLayoutIsRoutedByTheConfigAndReplacesOrAdds() throws {
        let config = try Self.load()
        var pushed = PushedLayouts()
        let promo = try Self.definition(#"{"width": 10, "height": 10, "grid": {"cols": [{"tag": 7, "name": "buy"}]}}"#)
        guard case .loaded = pushed.load("promo", definition: promo, config: config) else { Issue.record("refused"); return }
        guard case .unchanged = pushed.load("promo", definition: promo, config: config) else { Issue.record("not unchanged"); return }
        let home = try Self.definition(#"{"width": 10, "height": 10, "grid": {"cols": [{"tag": 8, "name": "only"}]}}"#)
        guard case .loaded = pushed.load("home", definition: home, config: config) else { Issue.record("refused"); return }
        let combined = pushed.combined(with: config)
        #expect(combined.layouts.map(\.name) == ["home", "other", "promo"])
        var engine = TapEngine(config: combined, generation: 2)
        let decision = engine.tap(layout: engine.layoutIndex(for: "promo")!, x: 5, y: 5, explicitLayout: true, now: 1)
        #expect(decision.outcome == .dispatched && combined.handlerName(decision.handler) == "audit")
        let v9 = engine.tap(layout: 0, x: 5, y: 5, explicitLayout: true, now: 2)
        #expect(v9.target.map { combined.layouts[0].tree.infos[$0.info].name } == "only")
        let v10 = pushed.unload("home")
        #expect(v10)
        let v11 = pushed.unload("home")
        #expect(!v11)
        #expect(pushed.combined(with: config).layouts[0].tree.infos.map(\.name) == ["light", "cart", nil])
        #expect(pushed.names == ["promo"])
    }

    @Test func aDefinitionOverOneMebibyteIsRefused() throws {
        let config = try Self.load()
        var pushed = PushedLayouts()
        let huge = JSONValue.object([
            JSONMember(key: "width", value: .number(JSONNumber(1))), JSONMember(key: "height", value: .number(JSONNumber(1))),
            JSONMember(key: "grid", value: .object([JSONMember(key: "name", value: .string(String(repeating: "x", count: 1 << 20)))])),
        ])
        guard case .refused(let errors) = pushed.load("big", definition: huge, config: config) else { Issue.record("taken"); return }
        #expect(errors.map(\.description) == ["load.definition: \((1 << 20) + 41) bytes as compact JSON; at most 1048576 (1 MiB)"])
    }

    @Test func loadLinesAreToldApartByTheirStart() {
        func starts(_ text: String) -> Bool { Array(text.utf8).withUnsafeBufferPointer { RequestScanner.startsAsLoad($0) } }
        #expect(starts(#"{"op":"load","layout":"x"}"#))
        #expect(starts(#"  { "op" : "load" ,"#))
        #expect(!starts(#"{"layout":"x","op":"load"}"#))
        #expect(!starts(#"{"op":"loader"}"#))
        #expect(!starts(#"{"op":"set"}"#))
        #expect(!starts(#"{"op":"lo"#))
    }
}
