import Testing

@testable import TapgridCore

/// The tap engine's rules in-process: routing order, every outcome it decides, debounce,
/// layout switches. Times are given, so nothing sleeps.
@Suite struct TapEngineTests {
    /// Two 100x100 pages. "home": cols of 4 grids (x 0-25 tag 1 -> pages to "settings",
    /// 25-50 tag 2 -> shell, 50-75 tag 3 untagged route -> audit, 75-100 tag 9 unrouted); "settings":
    /// one grid tag 20 back to "home". Debounce 100 ms on home, 300 ms on settings.
    static let config = #"""
    {"layouts": {
       "home": {"width": 100, "height": 100, "debounceMs": 100, "grid": {"cols": [
          {"size": "25%", "tag": 1, "action-data": "settings"}, {"size": "25%", "tag": 2, "action-data": "echo hi"},
          {"size": "25%", "tag": 3, "action": "audit"}, {"size": "25%", "tag": 9}]}},
       "settings": {"width": 100, "height": 100, "debounceMs": 300, "grid": {"rows": [
          {"size": "50%", "tag": 20, "action-data": "home"}, {"size": "50%", "tag": 21, "action-data": "nowhere"}]}}},
     "initialLayout": "home",
     "handlers": {"pages": {"type": "layout"}, "shell": {"type": "script", "interpreter": ["/bin/sh", "-c"]},
                  "audit": {"type": "log"}},
     "routes": [{"tags": [1, 20, 21], "handler": "pages"}, {"tags": [2], "handler": "shell"}, {"tags": [3], "handler": "shell"}]}
    """#

    static func engine() throws -> TapEngine {
        let document = try JSONParser.parse(config, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            .failure(Diagnostic(.error, "no files here: \(path)"))
        }
        let (loaded, diagnostics) = parser.parse(document)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
        return TapEngine(config: try #require(loaded), generation: 1)
    }

    static let ms: UInt64 = 1_000_000

    func tap(_ engine: inout TapEngine, _ x: Double, _ y: Double, layout: String? = nil, at ms: UInt64) -> TapDecision {
        let index = engine.layoutIndex(for: layout)!
        return engine.tap(layout: index, x: x, y: y, explicitLayout: layout != nil, now: ms * Self.ms)
    }

    func handlerName(_ engine: TapEngine, _ decision: TapDecision) -> String? {
        engine.active.config.handlerName(decision.handler)
    }

    @Test func missUnroutedAndSequenceNumbers() throws {
        var engine = try Self.engine()
        let miss = tap(&engine, 150, 50, at: 0)
        #expect(miss.seq == 1 && miss.outcome == .miss && miss.target == nil && miss.action == .none)
        let unrouted = tap(&engine, 90, 50, at: 1)
        #expect(unrouted.seq == 2 && unrouted.outcome == .unrouted && unrouted.target?.grid != nil)
        #expect(engine.seq == 2 && engine.outcomeCounts[.miss] == 1 && engine.outcomeCounts[.unrouted] == 1)
    }

    @Test func theGridsOwnActionComesBeforeTheRoutes() throws {
        var engine = try Self.engine()
        // tag 3 is routed to shell, but the grid's "action": "audit" wins.
        let decision = tap(&engine, 60, 50, at: 0)
        #expect(decision.outcome == .dispatched && decision.action == .log)
        #expect(handlerName(engine, decision) == "audit")
    }

    @Test func childrenAreTheDaemonsToStartAndSettle() throws {
        var engine = try Self.engine()
        var decision = tap(&engine, 30, 50, at: 0)
        #expect(decision.action == .spawn && handlerName(engine, decision) == "shell")
        #expect(engine.outcomeCounts[.dispatched] == 0)  // not counted until settled
        engine.settle(&decision, outcome: .busy, reason: nil, now: 0)
        #expect(decision.outcome == .busy && engine.outcomeCounts[.busy] == 1)
        // busy is not a dispatch: no debounce follows it.
        var again = tap(&engine, 30, 50, at: 10)
        #expect(again.action == .spawn)
        engine.settle(&again, outcome: .dispatched, reason: nil, now: 10 * Self.ms)
        #expect(tap(&engine, 30, 50, at: 50).outcome == .suppressed)
        #expect(tap(&engine, 30, 50, at: 110).action == .spawn)
    }

    @Test func debounceIsPerGridAndOnlyAfterADispatch() throws {
        var engine = try Self.engine()
        #expect(tap(&engine, 60, 50, at: 0).outcome == .dispatched)
        #expect(tap(&engine, 60, 50, at: 99).outcome == .suppressed)
        #expect(tap(&engine, 90, 50, at: 50).outcome == .unrouted)  // another grid
        #expect(tap(&engine, 60, 50, at: 100).outcome == .dispatched)  // the window is over
        #expect(tap(&engine, 90, 50, at: 101).outcome == .unrouted)  // unrouted taps start no window
    }

    @Test func layoutSwitchQuietsUnaimedTapsForTheLargerWindow() throws {
        var engine = try Self.engine()
        let flip = tap(&engine, 10, 50, at: 0)
        #expect(flip.outcome == .dispatched && flip.action == .switchLayout(from: 0, to: 1))
        #expect(engine.currentLayoutName == "settings")
        // settings' 300 ms (the larger of 100 and 300) quiets taps that name no layout...
        #expect(tap(&engine, 50, 25, at: 299).outcome == .suppressed)
        // ...but not one aimed at a layout: its client knows which page it tapped.
        let aimed = tap(&engine, 60, 50, layout: "home", at: 100)
        #expect(aimed.outcome == .dispatched && aimed.layout == 0)
        let back = tap(&engine, 50, 25, at: 300)
        #expect(back.action == .switchLayout(from: 1, to: 0) && engine.currentLayoutName == "home")
    }

    @Test func layoutHandlerDenials() throws {
        var engine = try Self.engine()
        let used = engine.use(layout: "settings")
        #expect(used)
        let denied = tap(&engine, 50, 75, at: 0)
        #expect(denied.outcome == .denied && denied.reason == "unknown layout \"nowhere\"" && denied.action == .none)
        #expect(engine.currentLayoutName == "settings")
        let unknown = engine.use(layout: "nowhere")
        #expect(!unknown)
    }

    @Test func hitTestsChangeNothing() throws {
        var engine = try Self.engine()
        let check = engine.check(layout: 0, x: 10, y: 50)
        #expect(check.seq == 0 && check.outcome == .checked && check.action == .none && check.target != nil)
        #expect(engine.seq == 0 && engine.currentLayoutName == "home")
        #expect(tap(&engine, 10, 50, at: 0).seq == 1)
    }

    @Test func swapKeepsTheCurrentLayoutAndForgetsDebounce() throws {
        var engine = try Self.engine()
        _ = tap(&engine, 10, 50, at: 0)
        #expect(engine.currentLayoutName == "settings")
        engine.swap(to: try Self.engine().active.config, generation: 2)
        #expect(engine.currentLayoutName == "settings" && engine.active.generation == 2)
        #expect(tap(&engine, 50, 25, at: 1).outcome == .dispatched)  // no quiet time carried over
    }
}
