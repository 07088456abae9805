import Testing

@testable import TapgridCore

/// Finite but absurd values (sizes that overflow to infinity when added up) must resolve and
/// hit-test without trapping: a layout is user input.
@Suite struct ExtremeLayoutTests {
    @Test func clampingNaNGivesTheLowBound() {
        #expect(Double.nan.clamped(-2, 5) == -2)
        #expect((7.0).clamped(-2, 5) == 5)
        #expect((-9.0).clamped(-2, 5) == -2)
    }

    @Test(arguments: [1e308, 1.7e308, -1e308])
    func overflowingSizesDoNotTrap(size: Double) throws {
        let grid = try JSONParser.parse(#"""
            {"cols": [{"size": 1.7e308, "tag": 1}, {"size": 1.7e308, "tag": 2},
                      {"size": "fill", "matrix": {"cols": 40, "count": 80, "margin": 1e307, "tag": 10}},
                      {"size": "fill", "matrix": {"cols": 9, "count": 90, "cell": [1e308, 1e308], "distribute": "evenly", "tag": 100}},
                      {"size": 5e-324, "rows": [{"size": "fill", "tag": 3}, {"size": "fill", "tag": 4}]}]}
            """#, lenient: false)
        let (tree, diagnostics) = GridParser.parse(grid, layout: "x")
        let parsed = try #require(tree, "\(diagnostics.all)")
        for direction in [LayoutDirection.ltr, .rtl] {
            let resolved = Resolver.resolve(parsed, in: LayoutFrame(width: abs(size), height: 1e308, direction: direction))
            for x in [0, 1, -1, 1e300, 1.7e308, -1.7e308, size, .greatestFiniteMagnitude] {
                for y in [0, 1e307, 1.7e308] {
                    #expect(resolved.hit(x: x, y: y) == resolved.hitByScan(x: x, y: y))
                }
            }
            _ = resolved.geometryWarnings(layout: "x")
        }
    }
}
