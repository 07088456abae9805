import Testing

@testable import TapgridCore

/// The `slider` key of a grid and its exact messages (docs/touch.md "Sliders").
@Suite struct SliderTests {
    typealias P = GridParserErrorTests

    // MARK: - The key

    @Test func aSliderIsReadWithItsDefaults() throws {
        let tree = try #require(P.expectWarnings(P.child(#"{"slider": {"min": 0, "max": 100, "step": 1}}"#), []))
        #expect(tree.sliders == [1: SliderSpec(min: 0, max: 100, step: 1, vertical: nil, changeMs: 100)])
        #expect(tree.nodes[1].hittable, "a slider is hittable without a tag, action or action-data")
        #expect(tree.nodes[1].info >= 0, "a hittable grid has an info slot")
    }

    @Test func everyKeyIsRead() throws {
        let tree = try #require(P.expectWarnings(
            P.child(#"{"tag": 4, "slider": {"min": -10.5, "max": 10, "step": 0.5, "vertical": false, "changeMs": 0}}"#), []))
        #expect(tree.sliders[1] == SliderSpec(min: -10.5, max: 10, step: 0.5, vertical: false, changeMs: 0))
        let root = try #require(P.expectWarnings(#"{"slider": {"min": 1, "max": 2, "step": 1, "vertical": true, "changeMs": 250}}"#, []))
        #expect(root.sliders[0] == SliderSpec(min: 1, max: 2, step: 1, vertical: true, changeMs: 250))
        #expect(root.nodes[0].hittable, "even the root")
    }

    @Test func aGridWithoutASliderHasNone() throws {
        let tree = try #require(P.expectWarnings(P.child(#"{"tag": 1}"#), []))
        #expect(tree.sliders.isEmpty)
    }

    @Test func wrongSliders() {
        let at = #"layout "home", grid 0: "#
        P.expectErrors(P.child(#"{"slider": [0, 100]}"#),
            [at + #""slider": expected an object such as {"min": 0, "max": 100, "step": 1}, found an array"#])
        P.expectErrors(P.child(#"{"slider": {}}"#), [
            at + #""slider".min: missing; expected a finite number"#,
            at + #""slider".max: missing; expected a finite number"#,
            at + #""slider".step: missing; expected a finite number > 0"#,
        ])
        P.expectErrors(P.child(#"{"slider": {"min": "0", "max": null, "step": 0}}"#), [
            at + #""slider".min: expected a finite number, found "0""#,
            at + #""slider".max: expected a finite number, found null"#,
            at + #""slider".step: expected a finite number > 0, found 0"#,
        ])
        P.expectErrors(P.child(#"{"slider": {"min": 0, "max": 1, "step": -0.5}}"#),
            [at + #""slider".step: expected a finite number > 0, found -0.5"#])
        P.expectErrors(P.child(#"{"slider": {"min": 100, "max": 0, "step": 1}}"#),
            [at + #""slider": min 100 is not below max 0; expected min < max"#])
        P.expectErrors(P.child(#"{"slider": {"min": 5, "max": 5, "step": 1}}"#),
            [at + #""slider": min 5 is not below max 5; expected min < max"#])
        P.expectErrors(P.child(#"{"slider": {"min": 0, "max": 1, "step": 1, "vertical": "yes"}}"#),
            [at + #""slider".vertical: expected true or false, found "yes""#])
        for changeMs in ["-1", "1.5", "3600001", #""100""#] {
            P.expectErrors(P.child(#"{"slider": {"min": 0, "max": 1, "step": 1, "changeMs": \#(changeMs)}}"#),
                [at + #""slider".changeMs: expected a whole number of milliseconds from 0 to 3600000, found \#(changeMs)"#])
        }
        P.expectErrors(P.child(#"{"slider": {"min": 0, "max": 1, "step": 1e-300}}"#),
            [at + #""slider": 1 from min to max is more than 10^15 steps of 1e-300; use a larger step"#])
    }

    @Test func anErrorNamesTheDeepPath() {
        P.expectErrors(#"{"rows": [{"size": 10}, {"cols": [{}, {"slider": {"min": 0, "max": 1}}]}]}"#,
            [#"layout "home", grid 1/1: "slider".step: missing; expected a finite number > 0"#])
    }

    @Test func warnings() {
        _ = P.expectWarnings(P.child(#"{"slider": {"min": 0, "max": 1, "step": 1, "mx": 2}}"#),
            [#"layout "home", grid 0: "slider": unknown key "mx" ignored; did you mean "max"?"#])
        _ = P.expectWarnings(P.child(#"{"slider": {"min": 0, "max": 1, "step": 1, "colour": 2}}"#),
            [#"layout "home", grid 0: "slider": unknown key "colour" ignored; use min, max, step, vertical or changeMs"#])
        _ = P.expectWarnings(P.child(#"{"slider": {"min": 0, "max": 10, "step": 4}}"#),
            [#"layout "home", grid 0: "slider": max 10 is not min 0 plus a whole number of steps of 4; the highest value is 8"#])
        _ = P.expectWarnings(P.child(#"{"toggle": true, "slider": {"min": 0, "max": 1, "step": 0.1}}"#),
            [#"layout "home", grid 0: "toggle" has no effect on a slider (its taps are change and release, never tap)"#])
        _ = P.expectWarnings(P.child(#"{"slidr": {}}"#), [#"layout "home", grid 0: unknown key "slidr" ignored; did you mean "slider"?"#])
        // 0.3 is three steps of 0.1, though 0.3 / 0.1 is 2.9999999999999996 in binary.
        _ = P.expectWarnings(P.child(#"{"slider": {"min": 0, "max": 0.3, "step": 0.1}}"#), [])
    }

    @Test func aSliderThroughTheConfig() throws {
        let document = try JSONParser.parse(#"""
            {"layouts": {"home": {"width": 200, "height": 100, "grid": {"cols": [{"tag": 1}, {"slider": {"min": 0, "max": 1, "step": 0}}]}}},
             "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
            """#, lenient: false)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (loaded, diagnostics) = parser.parse(document)
        #expect(loaded == nil)
        #expect(diagnostics.errors.map(\.description) == [#"t.json: layout "home", grid 1: "slider".step: expected a finite number > 0, found 0"#])
    }
}
