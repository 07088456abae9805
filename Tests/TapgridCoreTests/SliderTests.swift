import Testing

@testable import TapgridCore

/// The `slider` key of a grid (its exact messages) and the value a contact's position gives
/// (docs/touch.md "Sliders"): hand-derived, no clock.
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

    // MARK: - The value

    static let volume = SliderSpec(min: 0, max: 100, step: 1)
    /// 200 wide, 50 high, at (100, 20): horizontal unless told.
    static let wide = Rect(x: 100, y: 20, width: 200, height: 50)
    /// 50 wide, 200 high, at (10, 100): vertical unless told.
    static let tall = Rect(x: 10, y: 100, width: 50, height: 200)

    @Test(arguments: [
        // (x, expected): left edge, quarter, middle, right edge (outside the half-open rect), beyond both ends.
        (100.0, 0.0), (150, 25), (200, 50), (299, 99.5), (300, 100), (90, 0), (1000, 100), (-1e308, 0),
    ])
    func horizontalFromTheLeftEdge(x: Double, expected: Double) {
        let slider = SliderSpec(min: 0, max: 100, step: 0.5)
        #expect(slider.value(atX: x, y: 45, in: Self.wide, direction: .ltr) == expected)
        // y does not matter, inside the rect or not.
        #expect(slider.value(atX: x, y: -500, in: Self.wide, direction: .ltr) == expected)
    }

    @Test(arguments: [(300.0, 0.0), (250, 25), (200, 50), (100, 100), (310, 0), (0, 100)])
    func rtlFromTheRightEdge(x: Double, expected: Double) {
        let slider = SliderSpec(min: 0, max: 100, step: 0.5)
        #expect(slider.value(atX: x, y: 45, in: Self.wide, direction: .rtl) == expected)
    }

    @Test(arguments: [(300.0, 0.0), (250, 25), (200, 50), (100, 100), (310, 0), (0, 100)])
    func verticalFromTheBottomEdge(y: Double, expected: Double) {
        let slider = SliderSpec(min: 0, max: 100, step: 0.5)
        #expect(slider.value(atX: 30, y: y, in: Self.tall, direction: .ltr) == expected)
        #expect(slider.value(atX: 30, y: y, in: Self.tall, direction: .rtl) == expected, "rtl does not turn a vertical slider")
        #expect(slider.value(atX: 9999, y: y, in: Self.tall, direction: .ltr) == expected)
    }

    @Test func verticalDefaultsToTheRectsShape() {
        let slider = Self.volume
        #expect(slider.isVertical(in: Self.tall))
        #expect(!slider.isVertical(in: Self.wide))
        #expect(!slider.isVertical(in: Rect(x: 0, y: 0, width: 50, height: 50)), "a square is horizontal")
        var told = slider
        told.vertical = false
        #expect(!told.isVertical(in: Self.tall))
        #expect(told.value(atX: 35, y: 100, in: Self.tall, direction: .ltr) == 50, "across the tall rect when told so")
        told.vertical = true
        #expect(told.isVertical(in: Self.wide))
        #expect(told.value(atX: 0, y: 45, in: Self.wide, direction: .ltr) == 50, "up the wide rect when told so")
    }

    @Test func roundedToStepsFromMin() {
        // min 10, max 40, step 3: 10, 13, 16, ... 40; x / 10 + 10 along the 300-wide rect.
        let slider = SliderSpec(min: 10, max: 40, step: 3)
        let rect = Rect(x: 0, y: 0, width: 300, height: 10)
        #expect(slider.value(atX: 190, y: 0, in: rect, direction: .ltr) == 28)  // 29: 6.33 steps
        #expect(slider.value(atX: 165, y: 0, in: rect, direction: .ltr) == 28)  // 26.5: 5.5 steps, a tie, up
        #expect(slider.value(atX: 150, y: 0, in: rect, direction: .ltr) == 25)  // 25: 5 steps
        #expect(slider.value(atX: 164, y: 0, in: rect, direction: .ltr) == 25)  // 26.4: 5.47 steps
        #expect(slider.rounded(11.5) == 13, "a tie (half a step) rounds up")
        #expect(slider.rounded(11.4) == 10)
        #expect(slider.rounded(39) == 40)
        #expect(slider.rounded(-7) == 10, "clamped before rounding")
        #expect(slider.rounded(.nan) == 10)
        #expect(slider.rounded(.infinity) == 40)
    }

    @Test func aMaxThatIsNoStepGivesTheStepBelow() {
        let slider = SliderSpec(min: 0, max: 10, step: 4)
        #expect(slider.highestValue == 8)
        #expect(slider.rounded(10) == 8, "12 would pass max")
        #expect(slider.rounded(9.99) == 8)
        #expect(slider.rounded(6) == 8, "a tie rounds up")
        #expect(slider.rounded(5.9) == 4)
        #expect(slider.value(atX: 1e9, y: 0, in: Self.wide, direction: .ltr) == 8)
    }

    @Test func decimalStepsHaveNoBinaryNoise() {
        let slider = SliderSpec(min: 0, max: 1, step: 0.1)
        let rect = Rect(x: 0, y: 0, width: 100, height: 10)
        #expect(slider.value(atX: 30, y: 0, in: rect, direction: .ltr) == 0.3, "not 0.30000000000000004")
        #expect(slider.value(atX: 70, y: 0, in: rect, direction: .ltr) == 0.7)
        #expect(slider.value(atX: 100, y: 0, in: rect, direction: .ltr) == 1)
        #expect(SliderSpec(min: -0.3, max: 0.3, step: 0.1).rounded(0.1) == 0.1)
        #expect(SliderSpec(min: 0.05, max: 1, step: 0.05).rounded(0.35) == 0.35)
        #expect(SliderSpec(min: 0, max: 0.001, step: 1e-5).rounded(0.00031) == 0.00031)
        #expect(SliderSpec.decimalPlaces(1e-5) == 5)
        #expect(SliderSpec.decimalPlaces(2.5e3) == 0)
        #expect(SliderSpec.decimalPlaces(0.25) == 2)
        #expect(SliderSpec.decimalPlaces(100) == 0)
    }

    @Test func degenerateRects() {
        let slider = Self.volume
        // An empty rect has no length to go along: its value is min.
        #expect(slider.value(atX: 5, y: 5, in: Rect(x: 5, y: 5, width: 0, height: 0), direction: .ltr) == 0)
        // A negative width (overflow) is the same rect normalised.
        #expect(slider.value(atX: 150, y: 0, in: Rect(x: 300, y: 20, width: -200, height: 50), direction: .ltr) == 25)
        #expect(slider.value(atX: .nan, y: 0, in: Self.wide, direction: .ltr) == 0)
    }
}
