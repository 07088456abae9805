import Testing

@testable import TapgridCore

/// A slider's value as its grid's state `value` (docs/touch.md "Sliders"): each `change` and
/// `release` sets it (so `cells.json`, `layouts` with state and the page's `state` events follow),
/// and `set` of a `value` on a slider is rounded to `step`, or `bad_request` off its scale.
@Suite struct SliderStateTests {
    /// "pad": slider "volume" (0/0, 0-100 step 1, value = x) and "level" (0/1, 0-1 step 0.25,
    /// value = (x - 100) / 100), a plain grid "plain" below.
    static let config = #"""
    {"layouts": {"pad": {"width": 200, "height": 200, "grid": {"rows": [
        {"size": 100, "cols": [
           {"size": 100, "name": "volume", "tag": 1, "slider": {"min": 0, "max": 100, "step": 1}},
           {"size": 100, "name": "level", "tag": 2, "slider": {"min": 0, "max": 1, "step": 0.25, "vertical": false}}]},
        {"name": "plain", "tag": 3}]}}},
     "handlers": {"audit": {"type": "log"}, "live": {"type": "log"}},
     "routes": [{"tags": [1], "handler": "live", "on": "change"}, {"handler": "audit"}]}
    """#

    static func value(_ engine: TapEngine, _ path: String) -> String? {
        engine.cellState(layout: 0, grid: engine.active.layouts[0].tree.index(ofPath: path)!).valueJSON
    }

    @Test func aDragSetsTheValueAsItGoes() throws {
        var engine = try TouchRecognizerTests.engine(Self.config)
        let key = ContactKey(stream: 1, slot: 0)
        var taps: [ClassedTap] = []
        try engine.touch(.down, key: key, x: 10, y: 50, layout: nil, now: 0, into: &taps)
        #expect(Self.value(engine, "0/0") == nil, "the down sends nothing and sets nothing")
        let before = engine.cellsVersion
        try engine.touch(.move, key: key, x: 20.4, y: 50, layout: nil, now: 10_000_000, into: &taps)
        #expect(taps.map(\.decision.storedValue) == [true])
        #expect(Self.value(engine, "0/0") == "20")
        #expect(engine.cellsVersion != before)
        try engine.touch(.move, key: key, x: 60, y: 50, layout: nil, now: 200_000_000, into: &taps)
        try engine.touch(.up, key: key, x: 60, y: 50, layout: nil, now: 250_000_000, into: &taps)
        #expect(taps.map(\.decision.tapClass) == [.change, .change, .release])
        #expect(taps.map(\.decision.storedValue) == [true, true, false], "the release's value was already the state")
        #expect(Self.value(engine, "0/0") == "60")
        #expect(engine.cellSnapshot() == [TapEngine.NamedCell(layout: "pad", path: "0/0", state: CellState(valueJSON: "60"))])
    }

    @Test func aPlainTapOnASliderSetsItsValue() throws {
        var engine = try TouchRecognizerTests.engine(Self.config)
        let decision = engine.tap(layout: 0, x: 162.4, y: 10, explicitLayout: false, now: 0)
        #expect(decision.tapClass == .release && decision.value == 0.5 && decision.storedValue)
        #expect(Self.value(engine, "0/1") == "0.5")
        let plain = engine.tap(layout: 0, x: 50, y: 150, explicitLayout: false, now: 0)
        #expect(!plain.storedValue && Self.value(engine, "1") == nil)
    }

    @Test func aDisabledSliderKeepsItsValue() throws {
        var engine = try TouchRecognizerTests.engine(Self.config)
        _ = try engine.set(layout: nil, grid: "volume", CellChange(valueJSON: .set("30"), enabled: .set(false))).get()
        let decision = engine.tap(layout: 0, x: 70, y: 10, explicitLayout: false, now: 0)
        #expect(decision.outcome == .disabled && !decision.storedValue)
        #expect(Self.value(engine, "0/0") == "30")
    }

    @Test func setRoundsToStep() throws {
        var engine = try TouchRecognizerTests.engine(Self.config)
        let update = try engine.set(layout: nil, grid: "volume", CellChange(valueJSON: .set("42.5"))).get().update
        #expect(update?.state == CellState(valueJSON: "43"), "a tie rounds up")
        _ = try engine.set(layout: nil, grid: "level", CellChange(valueJSON: .set("0.6"))).get()
        #expect(Self.value(engine, "0/1") == "0.5")
        _ = try engine.set(layout: "pad", grid: "0/1", CellChange(valueJSON: .set("1"))).get()
        #expect(Self.value(engine, "0/1") == "1", "max itself")
        _ = try engine.set(layout: nil, grid: "volume", CellChange(valueJSON: .clear)).get()
        #expect(Self.value(engine, "0/0") == nil, "null clears it")
        _ = try engine.set(layout: nil, grid: "plain", CellChange(valueJSON: .set(#""any""#))).get()
        #expect(Self.value(engine, "1") == #""any""#, "a grid that is no slider takes any JSON")
    }

    @Test func setOffTheScaleIsRefused() throws {
        var engine = try TouchRecognizerTests.engine(Self.config)
        func failure(_ grid: String, _ value: String) -> TapEngine.CellFailure? {
            if case .failure(let failure) = engine.set(layout: nil, grid: grid, CellChange(valueJSON: .set(value))) { return failure }
            return nil
        }
        #expect(failure("volume", "150") == .badValue(
            #""value" 150 is off the scale of slider "volume" in layout "pad": expected a number from 0 to 100"#))
        #expect(failure("volume", "-0.5") == .badValue(
            #""value" -0.5 is off the scale of slider "volume" in layout "pad": expected a number from 0 to 100"#))
        #expect(failure("0/1", "1.25") == .badValue(
            #""value" 1.25 is off the scale of slider "0/1" in layout "pad": expected a number from 0 to 1"#))
        #expect(failure("volume", #""50""#) == .badValue(
            #""value" must be a number from 0 to 100 for slider "volume" in layout "pad", not a string"#))
        #expect(failure("volume", #"{"v":1}"#) == .badValue(
            #""value" must be a number from 0 to 100 for slider "volume" in layout "pad", not an object"#))
        #expect(!engine.hasCellState, "nothing refused was stored")
    }

    @Test func theRequestReadsTheValueAsTheEngineRoundsIt() throws {
        // The set line as the socket gets it: ControlRequest.set, then the engine.
        var engine = try TouchRecognizerTests.engine(Self.config)
        let object = try JSONParser.parse(#"{"op":"set","grid":"volume","value":7.49}"#, lenient: false)
        let request = try ControlRequest.set(object).get()
        _ = try engine.set(layout: request.layout, grid: request.grid, request.change).get()
        #expect(Self.value(engine, "0/0") == "7")
    }
}
