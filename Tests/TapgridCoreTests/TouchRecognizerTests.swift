import Testing

@testable import TapgridCore

/// The tap-class recognizer, driven by given times: each rule of the contract, and what users
/// of similar tools report (a long press that also taps, a swipe that taps, every tap delayed by
/// one double-tap grid, presses carried across a page switch, hold repeats after the release).
@Suite struct TouchRecognizerTests {
    /// "pad" 100x100, five 20-wide columns: A tag 1 (tap), B tag 2 (tap + long), C tag 3 (hold),
    /// D tag 4 (tap + double), E tag 5 (long: page to "other"). "other": one grid tag 9.
    static let config = #"""
    {"layouts": {
       "pad": {"width": 100, "height": 100, "grid": {"cols": [
          {"size": "20%", "tag": 1}, {"size": "20%", "tag": 2}, {"size": "20%", "tag": 3},
          {"size": "20%", "tag": 4}, {"size": "20%", "tag": 5, "action-data": "other"}]}},
       "other": {"width": 100, "height": 100, "longPressMs": 300, "grid": {"rows": [{"tag": 9}]}}},
     "initialLayout": "pad",
     "handlers": {"audit": {"type": "log"}, "menu": {"type": "log"}, "volume": {"type": "log"},
                  "zoom": {"type": "log"}, "pages": {"type": "layout"}},
     "routes": [{"tags": [2], "handler": "menu", "on": "long"}, {"tags": [3], "handler": "volume", "on": ["hold"]},
                {"tags": [4], "handler": "zoom", "on": "double"}, {"tags": [5], "handler": "pages", "on": "long"},
                {"handler": "audit"}]}
    """#

    static func engine(_ text: String = config) throws -> TapEngine {
        let document = try JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (loaded, diagnostics) = parser.parse(document)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
        return TapEngine(config: try #require(loaded), generation: 1)
    }

    /// A script of contact events at given milliseconds; returns what fired, as
    /// `"<ms of the event> <class> <grid path or miss> <handler> <outcome>"`.
    struct Script {
        var engine: TapEngine
        var fired: [String] = []
        /// Adds `" <value or -> at (x, y)"` to each line (`SliderRecognizerTests`).
        var showValues = false

        init() throws { engine = try TouchRecognizerTests.engine() }
        init(config: String) throws { engine = try TouchRecognizerTests.engine(config) }

        mutating func event(
            _ phase: TouchPhase, _ ms: UInt64, x: Double? = nil, y: Double? = nil, slot: Int = 0, stream: Int = 1, layout: Int? = nil
        ) {
            var taps: [ClassedTap] = []
            _ = try? engine.touch(phase, key: ContactKey(stream: stream, slot: slot), x: x, y: y, layout: layout,
                                  now: ms * 1_000_000, into: &taps)
            record(taps, ms)
        }

        mutating func advance(_ ms: UInt64) {
            var taps: [ClassedTap] = []
            engine.advanceTouch(to: ms * 1_000_000, into: &taps)
            record(taps, ms)
        }

        mutating func record(_ taps: [ClassedTap], _ ms: UInt64) {
            for tap in taps {
                let d = tap.decision
                let grid = d.target.map { engine.active.layouts[d.layout].tree.path(of: $0.grid) } ?? "miss"
                let handler = engine.active.config.handlerName(d.handler) ?? "none"
                let line = "\(ms) \(d.tapClass.name) \(grid) \(handler) \(d.outcome.name)"
                fired.append(showValues ? line + " \(tap.value.map(formatNumber) ?? "-") at (\(formatNumber(tap.x)), \(formatNumber(tap.y)))" : line)
            }
        }
    }

    /// From the `touch` fuzz target (Fuzz/corpus/touch/regression-one-slot-two-waits), which
    /// first took it for a double firing: one slot taps a double-tap grid on a layout it names,
    /// then one on the current layout; each tap waits on its own grid and fires once, as a tap,
    /// when its window ends.
    @Test func oneSlotsTapsWaitingOnTwoLayoutsFireOnceEach() throws {
        var s = try Script(config: #"""
            {"layouts": {
               "pad": {"width": 100, "height": 100, "doubleTapMs": 30, "grid": {"cols": [
                  {"size": "20%", "tag": 1}, {"size": "20%", "tag": 2}, {"size": "20%", "tag": 3},
                  {"size": "20%", "tag": 4}, {"size": "20%", "tag": 5}]}},
               "other": {"width": 100, "height": 100, "doubleTapMs": 20, "grid": {"cols": [{"tag": 9}, {"tag": 4}, {"tag": 6}]}}},
             "initialLayout": "pad", "handlers": {"audit": {"type": "log"}, "zoom": {"type": "log"}},
             "routes": [{"tags": [4], "handler": "zoom", "on": ["tap", "double"]}, {"handler": "audit"}]}
            """#)
        let other = try #require(s.engine.layoutIndex(for: "other"))
        s.event(.down, 0, x: 60, y: 10, layout: other)
        s.event(.up, 4)
        s.event(.down, 8, x: 60, y: 10)
        s.event(.up, 12)
        #expect(s.fired.isEmpty)
        s.advance(200)
        #expect(s.fired == ["200 tap 1 zoom dispatched", "200 tap 3 zoom dispatched"])
    }

    @Test func aQuickReleaseIsATapAtOnce() throws {
        var s = try Script()
        s.event(.down, 0, x: 10, y: 50)
        s.event(.up, 80)
        #expect(s.fired == ["80 tap 0 audit dispatched"])
    }

    @Test func holdingAPlainButtonStillPressesIt() throws {
        var s = try Script()
        s.event(.down, 0, x: 10, y: 50)
        s.advance(2000)
        s.event(.up, 2000)
        #expect(s.fired == ["2000 tap 0 audit dispatched"])
    }

    @Test func aLongPressFiresWhileDownAndTheReleaseDoesNothing() throws {
        var s = try Script()
        s.event(.down, 0, x: 30, y: 50)
        s.advance(499)
        #expect(s.fired.isEmpty)
        s.advance(500)
        s.event(.up, 900)
        #expect(s.fired == ["500 long 1 menu dispatched"])
        // Released before longPressMs: a tap, and no long afterwards.
        s.event(.down, 1000, x: 30, y: 50)
        s.event(.up, 1300)
        s.advance(3000)
        #expect(s.fired == ["500 long 1 menu dispatched", "1300 tap 1 audit dispatched"])
    }

    @Test func holdRepeatsUntilTheRelease() throws {
        var s = try Script()
        s.event(.down, 0, x: 50, y: 50)
        s.advance(1000)
        s.event(.up, 1050)
        s.advance(5000)
        // Caught up at 1000: the repeats due at 500, 700 and 900, none after the release at 1050.
        #expect(s.fired == ["1000 hold 2 volume dispatched", "1000 hold 2 volume dispatched", "1000 hold 2 volume dispatched"])
        // At 500, 700, 900 as due (given in the order their times came), then nothing after the release.
        var t = try Script()
        t.event(.down, 0, x: 50, y: 50)
        for ms in stride(from: 100 as UInt64, through: 1000, by: 100) { t.advance(ms) }
        t.event(.up, 1010)
        t.advance(2000)
        #expect(t.fired == ["500 hold 2 volume dispatched", "700 hold 2 volume dispatched", "900 hold 2 volume dispatched"])
    }

    @Test func doubleTapOnlyWhereRoutedAndTheSingleTapAfterTheWindow() throws {
        var s = try Script()
        s.event(.down, 0, x: 70, y: 50)
        s.event(.up, 50)
        s.event(.down, 150, x: 71, y: 50)
        s.event(.up, 200)
        #expect(s.fired == ["200 double 3 zoom dispatched"])
        // One tap: it fires when the window ends, not at the release.
        s.event(.down, 1000, x: 70, y: 50)
        s.event(.up, 1050)
        s.advance(1299)
        #expect(s.fired.count == 1)
        s.advance(1300)
        #expect(s.fired.last == "1300 tap 3 audit dispatched")
        // A grid that routes no double never waits, even while another does.
        s.event(.down, 2000, x: 70, y: 50)
        s.event(.up, 2010)
        s.event(.down, 2020, x: 10, y: 50, slot: 1)
        s.event(.up, 2030, slot: 1)
        #expect(s.fired.last == "2030 tap 0 audit dispatched")
    }

    @Test func aSwipeIsNoTapAndSlopIsForgiven() throws {
        var s = try Script()
        s.event(.down, 0, x: 10, y: 50)
        s.event(.move, 20, x: 18, y: 55)  // 9.4 from the down point: still a press
        s.event(.up, 40)
        s.event(.down, 100, x: 10, y: 50)
        s.event(.move, 120, x: 10, y: 61)  // 11: a swipe
        s.event(.move, 130, x: 10, y: 50)  // coming back does not make it a press again
        s.event(.up, 140)
        // A swipe over a hold grid stops its repeats too.
        s.event(.down, 200, x: 50, y: 50)
        s.advance(700)
        s.event(.move, 750, x: 50, y: 80)
        s.advance(2000)
        s.event(.up, 2000)
        #expect(s.fired == ["40 tap 0 audit dispatched", "700 hold 2 volume dispatched"])
    }

    @Test func aReleaseOverAnotherGridOrACancelIsNothing() throws {
        var s = try Script()
        s.event(.down, 0, x: 19, y: 50)
        s.event(.up, 30, x: 21, y: 50)  // within slop, but over the next grid
        s.event(.down, 100, x: 10, y: 50)
        s.event(.cancel, 130)
        s.event(.up, 140)  // the slot is free again: nothing
        #expect(s.fired.isEmpty)
        // A press on nothing that lifts on nothing is a tap that missed.
        s.event(.down, 200, x: 150, y: 50)
        s.event(.up, 220)
        #expect(s.fired == ["220 tap miss none miss"])
    }

    @Test func aPageSwitchEndsEveryPressInFlight() throws {
        var s = try Script()
        s.event(.down, 0, x: 90, y: 50, slot: 3)  // a long press on E switches to "other" at 500
        s.event(.down, 100, x: 50, y: 50, slot: 1)  // a hold on C, due at 600
        s.event(.down, 380, x: 70, y: 50, slot: 2)
        s.event(.up, 400, slot: 2)  // a tap waiting for its double until 650
        s.advance(5000)
        #expect(s.fired == ["5000 long 4 pages dispatched"])
        #expect(s.engine.currentLayoutName == "other")
        #expect(s.engine.takeEndedContacts() == [ContactKey(stream: 1, slot: 1), ContactKey(stream: 1, slot: 3)])
        s.event(.up, 5100, slot: 1)
        s.event(.up, 5100, slot: 3)
        #expect(s.fired.count == 1 && s.engine.touchIsIdle)
    }

    @Test func slotsBelongToTheirStreamAndClosingEndsThem() throws {
        var s = try Script()
        s.event(.down, 0, x: 10, y: 50, slot: 0, stream: 1)
        s.event(.down, 0, x: 30, y: 50, slot: 0, stream: 2)
        var taps: [ClassedTap] = []
        #expect(throws: TouchError.slotAlreadyDown(0)) {
            try s.engine.touch(.down, key: ContactKey(stream: 1, slot: 0), x: 1, y: 1, layout: nil, now: 1, into: &taps)
        }
        #expect(throws: TouchError.missingPosition) {
            try s.engine.touch(.down, key: ContactKey(stream: 1, slot: 5), x: nil, y: nil, layout: nil, now: 1, into: &taps)
        }
        #expect(s.engine.endContacts(stream: 2) == [ContactKey(stream: 2, slot: 0)])
        s.advance(1000)  // B's long press never comes: its connection closed
        s.event(.up, 1000, slot: 0, stream: 1)
        #expect(s.fired == ["1000 tap 0 audit dispatched"])
    }

    @Test func debounceAppliesToClassesButNotToHoldRepeats() throws {
        var engine = try Self.engine(Self.config.replacingOccurrences(of: #""pad": {"width": 100,"#, with: #""pad": {"debounceMs": 1500, "width": 100,"#))
        var taps: [ClassedTap] = []
        func at(_ phase: TouchPhase, _ ms: UInt64, _ x: Double? = nil) {
            _ = try? engine.touch(phase, key: ContactKey(stream: 1, slot: 0), x: x, y: x.map { _ in 50 }, layout: nil, now: ms * 1_000_000, into: &taps)
        }
        at(.down, 0, 50)
        engine.advanceTouch(to: 950_000_000, into: &taps)
        at(.up, 950)
        at(.down, 1_000, 50)
        engine.advanceTouch(to: 1_600_000_000, into: &taps)
        at(.up, 1_650)
        // The hold at 500 and its repeats at 700 and 900 (repeats are never suppressed); the next
        // press's first hold (1500) is within 1500 ms of the dispatch at 500: suppressed.
        #expect(taps.map(\.decision.outcome) == [.dispatched, .dispatched, .dispatched, .suppressed])
    }

    @Test func longAndHoldOnOneGridIsAConfigError() throws {
        let text = Self.config.replacingOccurrences(of: #"{"tags": [3], "handler": "volume", "on": ["hold"]}"#,
                                                    with: #"{"tags": [2, 3], "handler": "volume", "on": ["hold", "tap"]}"#)
        let document = try JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (_, diagnostics) = parser.parse(document)
        #expect(diagnostics.errors.map(\.description) == [
            #"t.json: layout "pad", grid 1: tag 2 is routed for both "long" (routes[0], handler "menu") and "hold" (routes[1], handler "volume"); a press held down is one or the other: route only one of them"#,
        ])
        let bad = Self.config.replacingOccurrences(of: #""on": "double""#, with: #""on": "triple""#)
        var parser2 = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (_, d2) = parser2.parse(try JSONParser.parse(bad, lenient: true))
        #expect(d2.errors.map(\.description) == [
            #"t.json: routes[2].on: expected "tap", "long", "hold", "double", "change" or "release", or a list of them, found "triple""#,
        ])
    }
}
