import Testing

import TapgridConfig
import TapgridCore
import TapgridTestSupport

/// `make run` serves examples/tapgrid.json to the browser panel, the first page a newcomer opens.
@Suite struct ExamplePanelTests {
    /// Every button the page draws for the example says what it is: the `label` of each grid of
    /// `/layout` (``PanelDocuments/label(name:state:)``, which the page draws) for every layout,
    /// with no cell state set, is a non-empty text.
    @Test func everyHittableGridOfTheExampleDrawsALabel() throws {
        let path = packageRoot.appendingPathComponent("examples/tapgrid.json").path
        let (loaded, diagnostics) = ConfigLoader.load(path: path, missingHint: nil)
        #expect(diagnostics.all.isEmpty, "\(diagnostics.all)")
        let active = ActiveConfig(config: try #require(loaded), generation: 1)
        var blank: [String] = []
        var drawn = 0
        for index in active.layouts.indices {
            let name = active.layouts[index].name
            let document = try JSONParser.parse(PanelDocuments.layout(active, layout: index) { _ in CellState() }, lenient: false)
            guard case .array(let grids)? = document["grids"] else {
                Issue.record("layout \(name): no grids in /layout")
                continue
            }
            for grid in grids {
                drawn += 1
                if case .string(let label)? = grid["label"], !label.isEmpty { continue }
                guard case .string(let gridPath)? = grid["path"] else { continue }
                blank.append("\(name) \(gridPath)")
            }
        }
        #expect(active.layouts.map(\.name).sorted() == ["home", "settings"])
        #expect(drawn == 21)
        #expect(blank.isEmpty, "\(blank.count) hittable grids of the example draw no label: \(blank.joined(separator: ", "))")
    }
}
