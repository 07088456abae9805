import Foundation
import Testing
@testable import TapgridCore

/// Every error and warning of grid-semantics.md sections 1, 2 and 7, with its exact text.
@Suite struct GridParserErrorTests {
    /// Parses `grid` (JSON text) as layout "home"; returns the tree and every diagnostic as text.
    static func parse(_ grid: String, layout: String = "home") -> (tree: GridTree?, errors: [String], warnings: [String]) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(grid, lenient: false, maxDepth: 4096)
        } catch {
            Issue.record("test JSON does not parse: \(error): \(grid)")
            return (nil, [], [])
        }
        let (tree, diagnostics) = GridParser.parse(value, layout: layout)
        #expect((tree == nil) == diagnostics.hasErrors, "a tree must be returned exactly when there are no errors")
        return (tree, diagnostics.errors.map(\.description), diagnostics.warnings.map(\.description))
    }

    /// One grid under the root: `{"rows": [<child>]}`, so the child's path is `0`.
    static func child(_ child: String) -> String { #"{"rows": [\#(child)]}"# }

    static func expectErrors(_ grid: String, _ expected: [String], warnings: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        let result = parse(grid)
        #expect(result.errors == expected, sourceLocation: sourceLocation)
        #expect(result.warnings == warnings, sourceLocation: sourceLocation)
        #expect(result.tree == nil || expected.isEmpty, sourceLocation: sourceLocation)
    }

    static func expectWarnings(_ grid: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) -> GridTree? {
        let result = parse(grid)
        #expect(result.errors == [], sourceLocation: sourceLocation)
        #expect(result.warnings == expected, sourceLocation: sourceLocation)
        return result.tree
    }

    static let sizeHelp = #"is not a size; use a number (200), "fill", "wrap" or a percentage ("20%")"#

    // MARK: sizes (section 2)

    @Test(arguments: [
        #""200""#, #""auto""#, #""150%""#, "-5", "true", "null", #""0%""#, #"" 20%""#, #""20% ""#, #""+20%""#, #""2e1%""#,
        #""%""#, #""-%""#, #""20.%""#, #""-100.5%""#, #""100.001%""#, #""Fill""#, #""WRAP""#, #""-0%""#, #""0.0%""#, "-1", "-1.5",
        "[1]", "{}", #""""#, #""20%%""#, #""--20%""#, #""20""#, #""1,5%""#,
    ])
    func badSize(_ literal: String) {
        Self.expectErrors(Self.child(#"{"size": \#(literal)}"#), [#"layout "home", grid 0: "size": \#(literal) \#(Self.sizeHelp)"#])
    }

    @Test func badSizeNamesTheDeepPath() {
        Self.expectErrors(#"{"rows": [{"size": 10}, {"cols": [{"size": "200"}]}]}"#,
            [#"layout "home", grid 1/0: "size": "200" \#(Self.sizeHelp)"#])
    }

    @Test(arguments: [
        (#""100.0%""#, SizeSpec.fill), (#""-100%""#, .fill), (#""100%""#, .fill), (#""-100.000%""#, .fill), (#""fill""#, .fill),
        (#""wrap""#, .wrap), ("0", .zero), ("-0", .zero), ("1", .fixed(1)), ("200.5", .fixed(200.5)), ("0.25", .ratio(0.25)),
        (#""25%""#, .ratio(0.25)), (#"".5%""#, .ratio(0.005)), (#""-.5%""#, .remaining(0.005)), ("-0.5", .remaining(0.5)),
        (#""-20%""#, .remaining(0.2)), (#""99.5%""#, .ratio(0.995)), ("0.999", .ratio(0.999)), ("-0.999", .remaining(0.999)),
    ])
    func goodSize(_ literal: String, _ expected: SizeSpec) throws {
        let tree = try #require(Self.expectWarnings(Self.child(#"{"size": \#(literal)}"#), []))
        #expect(tree.nodes[1].size == expected)
    }

    @Test func missingSizeIsFill() throws {
        let tree = try #require(Self.expectWarnings(Self.child("{}"), []))
        #expect(tree.nodes[1].size == .fill)
    }

    @Test func nonFiniteNumbersAreErrors() {
        // JSON text cannot hold them (the JSON parser refuses overflow), but values built in code can.
        let inf = JSONValue.number(JSONNumber(.infinity)), nan = JSONValue.number(JSONNumber(.nan))
        for (key, value, message) in [
            ("size", inf, #""size": null \#(Self.sizeHelp)"#), ("size", nan, #""size": null \#(Self.sizeHelp)"#),
            ("spacing", inf, #""spacing": expected a finite number, found a number (null)"#),
            ("spacing", nan, #""spacing": expected a finite number, found a number (null)"#),
        ] {
            let grid = JSONValue.object([JSONMember(key: "rows", value: .array([.object([JSONMember(key: key, value: value)])]))])
            let (tree, diagnostics) = GridParser.parse(grid, layout: "home")
            #expect(tree == nil)
            #expect(diagnostics.all.map(\.description) == [#"layout "home", grid 0: \#(message)"#])
        }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(#"{"spacing": 1e400}"#, lenient: false) }
    }

    @Test func rootSizeIsIgnoredWithAWarning() throws {
        let tree = try #require(Self.expectWarnings(#"{"size": 50, "rows": [{}]}"#,
            [#"layout "home", grid (root): "size" on the root grid is ignored; the layout's width and height size it"#]))
        let layout = Resolver.resolve(tree, in: LayoutFrame(width: 100, height: 80))
        #expect(layout.rects[1] == Rect(x: 0, y: 0, width: 100, height: 80))
        // A bad root size is still validated.
        Self.expectErrors(#"{"size": "auto"}"#, [#"layout "home", grid (root): "size": "auto" \#(Self.sizeHelp)"#],
            warnings: [#"layout "home", grid (root): "size" on the root grid is ignored; the layout's width and height size it"#])
    }

    // MARK: padding, spacing, gravity

    static let paddingHelp = #"is not a padding; use "{top,left,bottom,right}", e.g. "{10,20,10,20}""#

    @Test(arguments: [
        #""""#, #""{}""#, #""{1,2,3}""#, #""{1,2,3,4,5}""#, #""{1,2,3,4,}""#, #""1,2,3,4""#, #""{1e1,0,0,0}""#, #""{+1,0,0,0}""#,
        #""{1.,0,0,0}""#, #""{- 1,0,0,0}""#, #""{1,2,3,4}x""#, #""{1;2;3;4}""#, #""(1,2,3,4)""#, #""{a,b,c,d}""#, #""{1,,3,4}""#,
        #""{0x1,0,0,0}""#, #""{1 2,0,0,0}""#, "10", "[1,2,3,4]", "null", #""{NaN,0,0,0}""#, #""{inf,0,0,0}""#,
    ])
    func badPadding(_ literal: String) {
        Self.expectErrors(Self.child(#"{"padding": \#(literal)}"#), [#"layout "home", grid 0: "padding": \#(literal) \#(Self.paddingHelp)"#])
    }

    @Test func paddingThatOverflowsToInfinityIsAnError() {
        let huge = String(repeating: "9", count: 400)
        Self.expectErrors(Self.child(#"{"padding": "{\#(huge),0,0,0}"}"#),
            [#"layout "home", grid 0: "padding": "{\#(huge),0,0,0}" \#(Self.paddingHelp)"#])
    }

    @Test(arguments: [
        (#""{1,2,3,4}""#, Padding(top: 1, left: 2, bottom: 3, right: 4)),
        (#""{ 1 , -2.5 ,\t3,4 }""#, Padding(top: 1, left: -2.5, bottom: 3, right: 4)),
        (#""{.5,-.5,0.0,-0}""#, Padding(top: 0.5, left: -0.5, bottom: 0, right: 0)),
        (#"" {10,20,10,20} ""#, Padding(top: 10, left: 20, bottom: 10, right: 20)),
    ])
    func goodPadding(_ literal: String, _ expected: Padding) throws {
        let tree = try #require(Self.expectWarnings(Self.child(#"{"padding": \#(literal)}"#), []))
        #expect(tree.style(of: 1).padding == expected)
    }

    @Test func spacing() throws {
        Self.expectErrors(Self.child(#"{"spacing": "10"}"#), [#"layout "home", grid 0: "spacing": expected a finite number, found a string ("10")"#])
        Self.expectErrors(Self.child(#"{"spacing": null}"#), [#"layout "home", grid 0: "spacing": expected a finite number, found null (null)"#])
        Self.expectErrors(Self.child(#"{"space": true}"#), [#"layout "home", grid 0: "space": expected a finite number, found a boolean (true)"#])
        let negative = try #require(Self.expectWarnings(Self.child(#"{"spacing": -3.5}"#), []))
        #expect(negative.style(of: 1).spacing == -3.5)
        let spaceWarning = #"layout "home", grid 0: "space" is MyLayout's old name (<= 1.9.9) for "spacing"; write "spacing""#
        let alias = try #require(Self.expectWarnings(Self.child(#"{"space": 7}"#), [spaceWarning]))
        #expect(alias.style(of: 1).spacing == 7)
        for grid in [#"{"space": 7, "spacing": 4}"#, #"{"spacing": 4, "space": 7}"#] {
            let both = try #require(Self.expectWarnings(Self.child(grid), [spaceWarning]))
            #expect(both.style(of: 1).spacing == 4, "spacing wins over space")
        }
    }

    @Test func gravity() throws {
        let unknown = #"layout "home", grid 0: "gravity": unknown gravity "middle" ignored; use top, bottom, left, right, leading, trailing, centerX, centerY, width or height"#
        let tree = try #require(Self.expectWarnings(Self.child(#"{"gravity": "centerX| middle"}"#), [unknown]))
        #expect(tree.style(of: 1).gravity == Gravity(bits: Gravity.centerX), "an unknown token adds nothing")
        _ = Self.expectWarnings(Self.child(#"{"gravity": "CenterX"}"#),
            [#"layout "home", grid 0: "gravity": unknown gravity "CenterX" ignored; use top, bottom, left, right, leading, trailing, centerX, centerY, width or height"#])
        _ = Self.expectWarnings(Self.child(#"{"overlap": "botom"}"#),
            [#"layout "home", grid 0: "overlap": unknown gravity "botom" ignored; use top, bottom, left, right, leading, trailing, centerX, centerY, width or height"#])
        let empty = try #require(Self.expectWarnings(Self.child(#"{"gravity": ""}"#), []))
        #expect(empty.style(of: 1).gravity == .none)
        let spaced = try #require(Self.expectWarnings(Self.child(#"{"gravity": " bottom | left "}"#), []))
        #expect(spaced.style(of: 1).gravity == Gravity(bits: Gravity.bottom | Gravity.left))
        Self.expectErrors(Self.child(#"{"gravity": 1}"#),
            [#"layout "home", grid 0: "gravity": expected a gravity string such as "centerX" or "bottom|left", found a number"#])
        Self.expectErrors(Self.child(#"{"overlap": true}"#),
            [#"layout "home", grid 0: "overlap": expected a gravity string such as "centerX" or "bottom|left", found a boolean"#])
    }

    @Test func overlapForcesZeroSizeButValidatesIt() throws {
        let tree = try #require(Self.expectWarnings(Self.child(#"{"overlap": "bottom", "size": 40}"#), []))
        #expect(tree.nodes[1].size == .zero && tree.nodes[1].anchor)
        #expect(tree.style(of: 1).gravity == Gravity(bits: Gravity.bottom))
        let explicit = try #require(Self.expectWarnings(Self.child(#"{"overlap": "bottom", "gravity": "top"}"#), []))
        #expect(explicit.style(of: 1).gravity == Gravity(bits: Gravity.top), "an explicit gravity wins")
        Self.expectErrors(Self.child(#"{"overlap": "bottom", "size": "200"}"#), [#"layout "home", grid 0: "size": "200" \#(Self.sizeHelp)"#])
    }

    // MARK: tag, placeholder, anchor, action, name

    @Test func tag() throws {
        Self.expectErrors(Self.child(#"{"tag": 1.5}"#), [#"layout "home", grid 0: "tag": 1.5 is not an integer (a signed 64-bit whole number)"#])
        Self.expectErrors(Self.child(#"{"tag": "1"}"#), [#"layout "home", grid 0: "tag": expected an integer, found a string ("1")"#])
        Self.expectErrors(Self.child(#"{"tag": null}"#), [#"layout "home", grid 0: "tag": expected an integer, found null (null)"#])
        Self.expectErrors(Self.child(#"{"tag": 9223372036854775808}"#),
            [#"layout "home", grid 0: "tag": 9.223372036854776e+18 is not an integer (a signed 64-bit whole number)"#])
        for (literal, value) in [("1.0", Int64(1)), ("9007199254740993", 9_007_199_254_740_993), ("-9223372036854775808", .min),
                                 ("9223372036854775807", .max), ("1e2", 100), ("-0", 0)] {
            let tree = try #require(Self.expectWarnings(Self.child(#"{"tag": \#(literal)}"#), []))
            #expect((tree.info(of: 1)?.tag ?? 0) == value, "tag \(literal)")
            #expect(tree.nodes[1].hittable == (value != 0))
        }
    }

    @Test func flagsActionNameAndRoutingKeys() throws {
        Self.expectErrors(Self.child(#"{"placeholder": "yes"}"#), [#"layout "home", grid 0: "placeholder": expected true or false, found a string ("yes")"#])
        Self.expectErrors(Self.child(#"{"anchor": 1}"#), [#"layout "home", grid 0: "anchor": expected true or false, found a number (1)"#])
        Self.expectErrors(Self.child(#"{"action": ""}"#), [#"layout "home", grid 0: "action": expected the name of a handler (a non-empty string), found """#])
        Self.expectErrors(Self.child(#"{"action": 3}"#), [#"layout "home", grid 0: "action": expected the name of a handler (a non-empty string), found 3"#])
        Self.expectErrors(Self.child(#"{"name": 3}"#), [#"layout "home", grid 0: "name": expected a string, found a number"#])
        let tree = try #require(Self.expectWarnings(#"{"tag": 5, "rows": [{"action-data": null}, {"action": "go"}, {"tag": 0}, {"placeholder": true, "anchor": false, "name": "n"}]}"#, []))
        #expect(tree.nodes.map(\.hittable) == [false, true, true, false, false], "root tag alone is not hittable; action-data null is")
        #expect(tree.info(of: 1)?.actionData == .null)
        #expect(tree.info(of: 4)?.name == "n" && tree.nodes[4].placeholder)
        let rootData = try #require(Self.expectWarnings(#"{"action-data": [1]}"#, []))
        #expect(rootData.nodes[0].hittable)
        let rootAction = try #require(Self.expectWarnings(#"{"action": "x"}"#, []))
        #expect(rootAction.nodes[0].hittable)
    }

    // MARK: rows and cols

    @Test func rowsAndCols() throws {
        Self.expectErrors(#"{"rows": [{}], "cols": [{}]}"#,
            [#"layout "home", grid (root): "rows" and "cols" in one grid; a grid splits one way, use one of them"#])
        Self.expectErrors(Self.child(#"{"cols": {"size": 1}}"#), [#"layout "home", grid 0: "cols": expected an array of grid objects, found an object"#])
        Self.expectErrors(#"{"rows": "x"}"#, [#"layout "home", grid (root): "rows": expected an array of grid objects, found a string"#])
        Self.expectErrors(#"{"rows": [{}, 1, [], null]}"#, [
            #"layout "home", grid (root): "rows"[1]: expected a grid object, found a number"#,
            #"layout "home", grid (root): "rows"[2]: expected a grid object, found an array"#,
            #"layout "home", grid (root): "rows"[3]: expected a grid object, found null"#,
        ])
        for empty in [#"{"rows": []}"#, #"{"cols": []}"#] {
            let tree = try #require(Self.expectWarnings(empty, []))
            #expect(tree.count == 1 && tree.nodes[0].childCount == 0, "an empty list makes a leaf")
        }
        let value = try JSONParser.parse("[1]", lenient: false)
        let (tree, diagnostics) = GridParser.parse(value, layout: "home")
        #expect(tree == nil)
        #expect(diagnostics.all.map(\.description) == [#"layout "home": the grid must be a JSON object (a grid dictionary), found an array"#])
    }

    // MARK: unknown keys and borderlines

    @Test func unknownKeys() {
        _ = Self.expectWarnings(Self.child(#"{"pading": "{1,1,1,1}"}"#), [#"layout "home", grid 0: unknown key "pading" ignored; did you mean "padding"?"#])
        _ = Self.expectWarnings(Self.child(#"{"colls": []}"#), [#"layout "home", grid 0: unknown key "colls" ignored; did you mean "cols"?"#])
        _ = Self.expectWarnings(#"{"Size": 5}"#, [#"layout "home", grid (root): unknown key "Size" ignored; did you mean "size"?"#])
        _ = Self.expectWarnings(Self.child(#"{"colour": "red"}"#), [#"layout "home", grid 0: unknown key "colour" ignored"#])
        _ = Self.expectWarnings(Self.child(#"{"": 1}"#), [#"layout "home", grid 0: unknown key "" ignored"#])
    }

    @Test func borderlines() throws {
        let tree = try #require(Self.expectWarnings(Self.child(##"{"top-borderline": {"color": "#D1D1D1", "thick": 2, "head": 1, "tail": 1, "offset": 0.5, "dash": 3}}"##), []))
        #expect(tree.borderlines[1] == [Borderline(edge: .top, color: "#D1D1D1", thick: 2, head: 1, tail: 1, offset: 0.5, dash: 3)])
        Self.expectErrors(Self.child(#"{"left-borderline": "red"}"#),
            [#"layout "home", grid 0: "left-borderline": expected an object with color, thick, head, tail, offset, dash; found a string"#])
        Self.expectErrors(Self.child(#"{"bottom-borderline": {"thick": "2"}}"#),
            [#"layout "home", grid 0: "bottom-borderline".thick: expected a finite number, found a string"#])
        Self.expectErrors(Self.child(#"{"right-borderline": {"color": 1}}"#),
            [##"layout "home", grid 0: "right-borderline".color: expected a colour string such as "#D1D1D1", found a number"##])
        _ = Self.expectWarnings(Self.child(#"{"top-borderline": {"width": 2}}"#),
            [#"layout "home", grid 0: "top-borderline": unknown key "width" ignored; use color, thick, head, tail, offset or dash"#])
        _ = Self.expectWarnings(Self.child(#"{"top-borderline": {"colour": "red"}}"#),
            [#"layout "home", grid 0: "top-borderline": unknown key "colour" ignored; did you mean "color"?"#])
    }

    // MARK: wrap (section 2.2)

    @Test func wrapWithShareChildren() {
        Self.expectErrors(#"{"rows": [{"size": 10}, {"size": "wrap", "rows": [{"size": 10}, {"size": "fill"}, {"size": "20%"}, {"size": -0.5}, {}]}]}"#, [
            #"layout "home", grid 1/1: "size": a fill child of the wrap grid 1 has nothing to share; use a fixed size or "wrap""#,
            #"layout "home", grid 1/2: "size": a ratio child of the wrap grid 1 has nothing to share; use a fixed size or "wrap""#,
            #"layout "home", grid 1/3: "size": a remaining-ratio child of the wrap grid 1 has nothing to share; use a fixed size or "wrap""#,
            #"layout "home", grid 1/4: "size": missing, which means fill, but the wrap grid 1 has nothing to share; give a fixed size or "wrap""#,
        ])
        // Allowed: zero, overlap, fixed and wrap children; share children inside a cross-direction wrap.
        _ = Self.expectWarnings(#"{"rows": [{"size": "wrap", "rows": [{"size": 0}, {"overlap": "top"}, {"size": 5}, {"size": "wrap", "cols": [{}, {"size": "fill"}]}]}]}"#, [])
        _ = Self.expectWarnings(#"{"cols": [{"size": "wrap", "cols": [{"size": "wrap", "rows": [{"size": "50%"}]}]}]}"#, [])
    }

    // MARK: matrix (section 6)

    @Test func matrixErrors() {
        func m(_ body: String) -> String { Self.child(#"{"matrix": \#(body)}"#) }
        let g = #"layout "home", grid 0: "#
        Self.expectErrors(m(#"{"count": 3, "margin": 5}"#), [g + #""matrix"."cols" is required (an integer >= 1)"#])
        Self.expectErrors(m(#"{"cols": 3, "margin": 5}"#), [g + #""matrix"."count" is required (an integer >= 0)"#])
        Self.expectErrors(m(#"{"cols": 0, "count": 3, "margin": 5}"#), [g + #""matrix"."cols": must be at least 1, found 0"#])
        Self.expectErrors(m(#"{"cols": 2, "count": -1, "margin": 5}"#), [g + #""matrix"."count": must be at least 0, found -1"#])
        Self.expectErrors(m(#"{"cols": 2.5, "count": 1, "margin": 5}"#), [g + #""matrix"."cols": 2.5 is not an integer (a signed 64-bit whole number)"#])
        Self.expectErrors(m(#"{"cols": "2", "count": 1, "margin": 5}"#), [g + #""matrix"."cols": expected an integer, found a string ("2")"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 3, "margin": 5, "cell": [1, 1], "distribute": "evenly"}"#),
            [g + #""matrix": give exactly one of "cell" ([width, height]) and "margin" (a number)"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 3}"#), [g + #""matrix": give exactly one of "cell" ([width, height]) and "margin" (a number)"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 3, "cell": [60, 70]}"#), [g + #""matrix"."distribute" is required with "cell": "between" or "evenly""#])
        Self.expectErrors(m(#"{"cols": 3, "count": 3, "cell": [60, 70], "distribute": "around"}"#),
            [g + #""matrix"."distribute": expected "between" or "evenly", found "around""#])
        Self.expectErrors(m(#"{"cols": 3, "count": 3, "margin": 5, "distribute": "evenly"}"#),
            [g + #""matrix"."distribute" goes with "cell", not with "margin""#])
        Self.expectErrors(m(#"{"cols": 1, "count": 3, "cell": [60, 70], "distribute": "between"}"#),
            [g + #""matrix"."distribute": "between" needs at least 2 columns (the margin is shared between them)"#])
        Self.expectErrors(m(#"{"cols": 3, "rows": 1, "count": 5, "margin": 5}"#), [g + #""matrix"."rows": 1 rows of 3 hold fewer than 5 cells"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "margin": 5, "action-data": {"a": 1}}"#),
            [g + #""matrix"."action-data": expected an array (one element per cell), found an object"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "margin": 5, "names": "a"}"#),
            [g + #""matrix"."names": expected an array of strings (one name per cell), found a string"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "margin": 5, "names": ["a", 2, null, {"b": 1}]}"#), [
            g + #""matrix"."names"[1]: expected a string or null, found a number (2)"#,
            g + #""matrix"."names"[3]: expected a string or null, found an object ({"b":1})"#,
        ])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "cell": [60, -1], "distribute": "evenly"}"#),
            [g + #""matrix"."cell": expected [width, height] with numbers >= 0, found [60,-1]"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "cell": [60], "distribute": "evenly"}"#),
            [g + #""matrix"."cell": expected [width, height] with numbers >= 0, found [60]"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "margin": "5"}"#), [g + #""matrix"."margin": expected a finite number, found "5""#])
        Self.expectErrors(m(#"{"cols": 3, "count": 2, "margin": 5, "tag": "1"}"#), [g + #""matrix"."tag": expected an integer, found a string ("1")"#])
        Self.expectErrors(m(#"{"cols": 3, "count": 3, "margin": 5, "tag": 9223372036854775807}"#),
            [g + #""matrix"."tag": 9223372036854775807 + 2 overflows a 64-bit integer"#])
        Self.expectErrors(m("[3, 3]"), [g + #""matrix": expected an object such as {"cols": 3, "count": 9, "margin": 5}, found an array"#])
        Self.expectErrors(Self.child(#"{"size": "wrap", "matrix": {"cols": 3, "count": 3, "margin": 5}}"#),
            [g + #""size": "wrap" cannot size a matrix grid; its cells have no content to wrap"#])
        Self.expectErrors(Self.child(#"{"cols": [{}], "matrix": {"cols": 3, "count": 3, "margin": 5}}"#),
            [g + #""matrix" and "cols" in one grid; a matrix generates its own cells"#])
    }

    /// A negative margin is allowed (nothing is clamped) but warned about once, saying what it does.
    @Test func negativeMatrixMarginWarnsOnce() throws {
        let tree = try #require(Self.expectWarnings(Self.child(#"{"matrix": {"cols": 3, "count": 9, "margin": -2.5}}"#), [
            #"layout "home", grid 0: "matrix"."margin": -2.5 is negative, so neighbouring cells overlap by 2.5 and the outer cells reach 2.5 past the grid's edges (taps in an overlap go to the lower-numbered cell); margin is the gap between cells and around them: use 0 or more"#
        ]))
        #expect(tree.count == 11)
        _ = Self.expectWarnings(Self.child(#"{"matrix": {"cols": 3, "count": 9, "margin": 0}}"#), [])
    }

    @Test func matrixWarningsAndAssignment() throws {
        let g = #"layout "home", grid 0: "#
        let tree = try #require(Self.expectWarnings(Self.child(#"{"spacing": 4, "gravity": "centerX", "tag": 7, "name": "m", "matrix": {"cols": 2, "count": 4, "margin": 1, "tag": -1, "action-data": [null, "b", "c", "d", "e"], "colls": 3, "width": 1}}"#), [
            g + #""spacing" has no effect on a matrix grid"#,
            g + #""gravity" has no effect on a matrix grid"#,
            g + #""matrix": unknown key "colls" ignored; did you mean "cols"?"#,
            g + #""matrix": unknown key "width" ignored; use cols, count, rows, cell, margin, distribute, tag, action-data or names"#,
        ]))
        #expect(tree.count == 6 && tree.nodes[1].axis == .matrix && tree.nodes[1].hittable)
        #expect(tree.path(of: 5) == "0/3" && tree.index(ofPath: "0/3") == 5)
        #expect((2...5).map { tree.info(of: $0)?.tag ?? 0 } == [-1, 0, 1, 2], "cell i gets tag + i; 0 is no tag")
        #expect((2...5).map { tree.info(of: $0)?.actionData } == [.null, .string("b"), .string("c"), .string("d")])
        #expect((2...5).allSatisfy { tree.nodes[$0].hittable })
        let empty = try #require(Self.expectWarnings(#"{"matrix": {"cols": 4, "count": 0, "cell": [1, 1], "distribute": "between"}}"#, []))
        #expect(empty.count == 1)
        // A cell with tag + i == 0 and no action-data is not hittable.
        let zero = try #require(Self.expectWarnings(#"{"matrix": {"cols": 2, "count": 3, "margin": 0, "tag": -1}}"#, []))
        #expect(zero.nodes.map(\.hittable) == [false, true, false, true])
    }

    /// `names` names cell i with element i, as a grid's own `name` does: a label, never a reason to
    /// be hittable; a null element and cells past the array's end have none, elements past `count` are ignored.
    @Test func matrixNamesNameTheCells() throws {
        let tree = try #require(Self.expectWarnings(
            #"{"matrix": {"cols": 2, "count": 4, "margin": 0, "tag": -1, "names": ["minus", "zero", null, "two"]}}"#, []))
        #expect((1...4).map { tree.info(of: $0)?.name } == ["minus", "zero", nil, "two"])
        #expect((1...4).map { tree.info(of: $0)?.tag ?? 0 } == [-1, 0, 1, 2])
        #expect(tree.nodes.map(\.hittable) == [false, true, false, true, true], "the name of cell 1 (tag 0) does not make it hittable")
        let short = try #require(Self.expectWarnings(
            #"{"matrix": {"cols": 2, "count": 3, "margin": 0, "action-data": [1, 2, 3], "names": ["a"]}}"#, []))
        #expect((1...3).map { short.info(of: $0)?.name } == ["a", nil, nil])
        let long = try #require(Self.expectWarnings(#"{"matrix": {"cols": 2, "count": 1, "margin": 0, "names": ["a", "b"]}}"#, []))
        #expect(long.count == 2 && long.info(of: 1)?.name == "a" && !long.nodes[1].hittable)
    }

    @Test func matrixHugeNumbersDoNotTrap() throws {
        // (count + cols - 1) / cols and rows * cols must not overflow Int64 (a trap would kill the daemon).
        Self.expectErrors(#"{"matrix": {"cols": 2, "count": 9223372036854775807, "margin": 0}}"#,
            [#"layout "home": more than 1000000 grids (matrix cells included); the limit is 1000000"#])
        let wide = try #require(Self.expectWarnings(#"{"matrix": {"cols": 4611686018427387904, "rows": 4, "count": 5, "margin": 0}}"#, []))
        #expect(wide.count == 6)
        // And hit-testing such a matrix (8+ cells: searched by arithmetic) must not trap either.
        let huge = try #require(Self.expectWarnings(#"{"matrix": {"cols": 9223372036854775807, "count": 8, "margin": 0, "tag": 1}}"#, []))
        let layout = Resolver.resolve(huge, in: LayoutFrame(width: 100, height: 10))
        for x in [-1.0, 0, 1e-17, 50, 99.9, 1e300] {
            #expect(layout.hit(x: x, y: 5) == layout.hitByScan(x: x, y: 5))
        }
        Self.expectErrors(#"{"matrix": {"cols": 3, "rows": 9223372036854775807, "count": 9223372036854775807, "margin": 0}}"#,
            [#"layout "home": more than 1000000 grids (matrix cells included); the limit is 1000000"#])
    }

    // MARK: limits (section 7)

    @Test(.timeLimit(.minutes(1))) func depthLimit() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: #"{"rows": ["#, count: depth - 1) + "{}" + String(repeating: "]}", count: depth - 1)
        }
        let ok = try #require(Self.expectWarnings(nested(256), []))
        #expect(ok.count == 256)
        let deep = Self.parse(nested(257))
        #expect(deep.tree == nil && deep.errors.count == 1)
        let path = (1...255).map { _ in "0" }.joined(separator: "/")
        #expect(deep.errors.first == #"layout "home", grid \#(path): the grid tree is deeper than 256 levels; the limit is 256"#)
        let deeper = Self.parse(nested(1500))
        #expect(deeper.tree == nil && deeper.errors.count == 1)
    }

    @Test(.timeLimit(.minutes(1))) func gridLimit() throws {
        let limit = #"layout "home": more than 1000000 grids (matrix cells included); the limit is 1000000"#
        Self.expectErrors(#"{"matrix": {"cols": 1000, "count": 1000000, "margin": 0}}"#, [limit])
        Self.expectErrors(#"{"rows": [{"matrix": {"cols": 10, "count": 999999, "margin": 0}}]}"#, [limit])
        Self.expectErrors(#"{"rows": [{"matrix": {"cols": 10, "count": 600000, "margin": 0}}, {"matrix": {"cols": 10, "count": 600000, "margin": 0}}]}"#, [limit])
        let exact = try #require(Self.expectWarnings(#"{"matrix": {"cols": 1000, "count": 999999, "margin": 0}}"#, []))
        #expect(exact.count == 1_000_000)
    }
}
