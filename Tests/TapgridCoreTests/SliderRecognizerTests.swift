import Testing

@testable import TapgridCore

/// A slider's `change` and `release` through the recognizer (docs/touch.md "Sliders"), driven
/// by given times: a drag, a still press, a drag that leaves the grid, two fingers on two
/// sliders, `changeMs` with the trailing change, and routing (a route without `on` takes only
/// `release`).
@Suite struct SliderRecognizerTests {
    /// "pad" 200x100: A (0, x 0-100, value = x, tag 1; its changes go to "live") and B (1,
    /// x 100-200, vertical, value = 100 - y, tag 2, changes unrouted), then C (2, a plain grid
    /// tag 3) below them. Long and double routed for every tag, so a slider ignoring them shows.
    static let config = #"""
    {"layouts": {"pad": {"width": 200, "height": 200, "grid": {"rows": [
        {"size": 100, "cols": [
           {"size": 100, "tag": 1, "slider": {"min": 0, "max": 100, "step": 1}},
           {"size": 100, "tag": 2, "slider": {"min": 0, "max": 100, "step": 1, "vertical": true, "changeMs": 50}}]},
        {"tag": 3}]}}},
     "handlers": {"audit": {"type": "log"}, "live": {"type": "log"}, "press": {"type": "log"}},
     "routes": [{"tags": [1], "handler": "live", "on": "change"}, {"handler": "press", "on": ["long", "double"]},
                {"handler": "audit"}]}
    """#

    /// `"<ms> <class> <grid> <handler> <outcome> <value> at (x, y)"` per tap fired.
    static func script(_ config: String = config) throws -> TouchRecognizerTests.Script {
        var script = try TouchRecognizerTests.Script(config: config)
        script.showValues = true
        return script
    }

    @Test func aDrag() throws {
        var s = try Self.script()
        s.event(.down, 0, x: 10, y: 50)
        #expect(s.fired.isEmpty, "the down itself sends no change")
        s.event(.move, 10, x: 20, y: 50)
        s.event(.move, 50, x: 30, y: 60)   // within 100 ms of the last change: held
        s.event(.move, 90, x: 40, y: 70)   // held, replacing 30
        s.advance(109)
        s.advance(110)                     // its time is up: the held value goes out, at its point
        s.event(.move, 150, x: 45, y: 50)  // held until 210
        s.event(.up, 180, x: 60, y: 50)    // the release drops it and carries the final value
        s.advance(1000)
        #expect(s.fired == [
            "10 change 0/0 live dispatched 20 at (20, 50)",
            "110 change 0/0 live dispatched 40 at (40, 70)",
            "180 release 0/0 audit dispatched 60 at (60, 50)",
        ])
        #expect(s.engine.touchIsIdle)
    }

    @Test func aStillPressIsAReleaseAtItsPoint() throws {
        var s = try Self.script()
        s.event(.down, 0, x: 33.4, y: 50)
        s.advance(2000)  // no long press on a slider, though long is routed
        s.event(.up, 2000, x: 33.4, y: 50)
        s.event(.down, 2050, x: 70, y: 50)  // and no double
        s.event(.up, 2060)
        s.advance(5000)
        #expect(s.fired == [
            "2000 release 0/0 audit dispatched 33 at (33.4, 50)",
            "2060 release 0/0 audit dispatched 70 at (70, 50)",
        ])
    }

    @Test func aDragThatLeavesTheGridStaysTheSliders() throws {
        var s = try Self.script()
        s.event(.down, 0, x: 50, y: 50)
        s.event(.move, 10, x: 150, y: 50)   // over B: still A's, clamped to max
        s.event(.move, 200, x: -20, y: 500) // off the layout: min
        s.event(.move, 400, x: 180, y: 150) // over C
        s.event(.up, 410, x: 300, y: -5)
        #expect(s.fired == [
            "10 change 0/0 live dispatched 100 at (150, 50)",
            "200 change 0/0 live dispatched 0 at (-20, 500)",
            "400 change 0/0 live dispatched 100 at (180, 150)",
            "410 release 0/0 audit dispatched 100 at (300, -5)",
        ])
    }

    @Test func twoFingersOnTwoSliders() throws {
        var s = try Self.script()
        s.event(.down, 0, x: 10, y: 50, slot: 0)
        s.event(.down, 5, x: 150, y: 90, slot: 1)  // B: vertical, value 100 - y
        s.event(.move, 10, x: 20, y: 50, slot: 0)
        s.event(.move, 20, x: 150, y: 80, slot: 1)
        s.event(.move, 40, x: 25, y: 50, slot: 0)   // held for A until 110
        s.event(.move, 50, x: 150, y: 60, slot: 1)  // held for B until 70 (changeMs 50)
        s.advance(200)
        s.event(.up, 210, x: 150, y: 0, slot: 1)
        s.event(.up, 220, x: 30, y: 50, slot: 0)
        // Timers fire in time order: B's at 70, A's at 110, both caught up by the advance to 200
        // (each at its own time, as replay must fire them).
        #expect(s.fired == [
            "10 change 0/0 live dispatched 20 at (20, 50)",
            "20 change 0/1 none unrouted 20 at (150, 80)",
            "200 change 0/1 none unrouted 40 at (150, 60)",
            "200 change 0/0 live dispatched 25 at (25, 50)",
            "210 release 0/1 audit dispatched 100 at (150, 0)",
            "220 release 0/0 audit dispatched 30 at (30, 50)",
        ])
    }

    @Test func changesOnlyWhenTheValueDiffers() throws {
        var s = try Self.script()
        s.event(.down, 0, x: 10, y: 50)
        s.event(.move, 10, x: 20, y: 50)
        s.event(.move, 500, x: 20.3, y: 10)  // still 20: no change
        s.event(.move, 510, x: 40, y: 50)    // differs, and 100 ms have passed since the last change
        s.event(.move, 520, x: 50, y: 50)    // held until 610
        s.event(.move, 530, x: 40.2, y: 50)  // back to the last change's value: the held one is dropped
        s.advance(2000)
        s.event(.up, 2000)
        #expect(s.fired == [
            "10 change 0/0 live dispatched 20 at (20, 50)",
            "510 change 0/0 live dispatched 40 at (40, 50)",
            "2000 release 0/0 audit dispatched 40 at (40.2, 50)",
        ])
    }

    @Test func aHeldChangeDiesWithItsContact() throws {
        var s = try Self.script()
        s.event(.down, 0, x: 10, y: 50)
        s.event(.move, 10, x: 20, y: 50)
        s.event(.move, 20, x: 30, y: 50)  // held until 110
        #expect(s.engine.nextTouchDeadline == 110_000_000)
        s.event(.cancel, 30)              // a cancel ends it with no release
        s.advance(500)
        #expect(s.fired == ["10 change 0/0 live dispatched 20 at (20, 50)"])
        #expect(s.engine.touchIsIdle)
    }

    @Test func changeMsZeroSendsEveryDifferingMove() throws {
        var s = try Self.script(#"""
            {"layouts": {"pad": {"width": 100, "height": 10, "grid": {"cols": [{"slider": {"min": 0, "max": 10, "step": 1, "changeMs": 0}}]}}},
             "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit", "on": ["change", "release"]}]}
            """#)
        s.event(.down, 0, x: 0, y: 5)
        s.event(.move, 0, x: 10, y: 5)
        s.event(.move, 0, x: 20, y: 5)
        s.event(.move, 1, x: 24, y: 5)
        s.event(.up, 1)
        #expect(s.fired == [
            "0 change 0 audit dispatched 1 at (10, 5)",
            "0 change 0 audit dispatched 2 at (20, 5)",
            "1 release 0 audit dispatched 2 at (24, 5)",
        ])
    }

    @Test func aPlainTapOnASliderIsARelease() throws {
        var engine = try TouchRecognizerTests.engine(Self.config)
        let onSlider = engine.tap(layout: 0, x: 42, y: 10, explicitLayout: false, now: 0)
        #expect(onSlider.tapClass == .release)
        #expect(onSlider.value == 42)
        #expect(engine.active.config.handlerName(onSlider.handler) == "audit")
        #expect(onSlider.outcome == .dispatched)
        let vertical = engine.tap(layout: 0, x: 120, y: 25, explicitLayout: false, now: 0)
        #expect(vertical.tapClass == .release && vertical.value == 75)
        let plain = engine.tap(layout: 0, x: 50, y: 150, explicitLayout: false, now: 0)
        #expect(plain.tapClass == .tap && plain.value == nil)
    }

    @Test func routes() throws {
        // A route without "on" takes only release on a slider; "on": "release" takes it too, and
        // so does the grid's action; a change route applies to sliders only.
        let config = #"""
            {"layouts": {"pad": {"width": 400, "height": 100, "grid": {"cols": [
                {"tag": 1, "slider": {"min": 0, "max": 1, "step": 1}}, {"tag": 2, "slider": {"min": 0, "max": 1, "step": 1}},
                {"tag": 3}, {"tag": 4, "action": "act", "slider": {"min": 0, "max": 1, "step": 1}}]}}},
             "handlers": {"audit": {"type": "log"}, "rel": {"type": "log"}, "ch": {"type": "log"}, "act": {"type": "log"}},
             "routes": [{"tags": [2], "handler": "rel", "on": "release"}, {"tags": [2, 3], "handler": "ch", "on": ["change"]},
                        {"handler": "audit"}]}
            """#
        let engine = try TouchRecognizerTests.engine(config)
        let layout = engine.active.layouts[0]
        func handlers(_ path: String) -> (release: String?, change: String?) {
            let grid = layout.tree.index(ofPath: path)!
            let slot = Int(layout.tree.nodes[grid].info)
            return (engine.active.config.handlerName(layout.tree.infos[slot].handler),
                    engine.active.config.handlerName(layout.classHandlers[slot]?.change ?? -1))
        }
        #expect(handlers("0") == ("audit", nil))
        #expect(handlers("1") == ("rel", "ch"))
        #expect(handlers("2") == ("audit", nil), "a plain grid: its tap, no change")
        #expect(handlers("3") == ("act", nil))
    }

    @Test func aDisabledSliderSendsNoChangeAndItsReleaseIsRefused() throws {
        var s = try Self.script()
        guard case .success = s.engine.set(layout: nil, grid: "0/0", CellChange(enabled: .set(false))) else {
            Issue.record("set failed")
            return
        }
        s.event(.down, 0, x: 10, y: 50)
        s.event(.move, 10, x: 20, y: 50)
        s.event(.move, 500, x: 30, y: 50)
        s.event(.up, 600)
        #expect(s.fired == ["600 release 0/0 audit disabled 30 at (30, 50)"])
    }

    @Test func aLayoutWithoutSlidersKeepsItsClasses() throws {
        // The slider rules stay out of the way of a config without sliders.
        let engine = try TouchRecognizerTests.engine()
        #expect(!engine.active.hasSliders)
        #expect(!engine.cellRules)
    }
}
