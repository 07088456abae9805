import Testing

@testable import TapgridCore

/// A slider's fill (docs/touch.md "Sliders"): how much of the cell's fill rect its value covers,
/// from which edge, and what `/layout` and `layouts` with state tell the page and the SVG of it.
@Suite struct SliderFillTests {
    /// "pad" (ltr): "volume" across the top (0-100, 200x100 at 0,0), "blind" standing (0-10,
    /// 100x300 at 0,100), "plain" beside it; "arabic" (rtl): "fader" across it.
    static let config = #"""
    {"layouts": {
       "pad": {"width": 200, "height": 400, "grid": {"rows": [
          {"size": 100, "name": "volume", "tag": 1, "slider": {"min": 0, "max": 100, "step": 1}},
          {"size": 300, "cols": [{"size": 100, "name": "blind", "tag": 2, "slider": {"min": 0, "max": 10, "step": 0.5}},
                                 {"name": "plain", "tag": 3}]}]}},
       "arabic": {"width": 200, "height": 100, "direction": "rtl", "grid": {"cols": [
          {"name": "fader", "tag": 4, "slider": {"min": -50, "max": 50, "step": 5, "vertical": false}}]}}},
     "initialLayout": "pad", "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
    """#

    static func active() throws -> ActiveConfig { try PanelDocumentsTests.lookActive(config) }

    static func place(_ active: ActiveConfig, _ layout: String, _ name: String) throws -> SliderPlace {
        let index = try #require(active.layoutIndex(named: layout))
        let grid = try #require(active.layouts[index].tree.grid(named: name))
        return try #require(active.slider(layout: index, grid: grid))
    }

    @Test func theFillCoversTheValuesShareOfTheFillRectFromItsEdge() throws {
        let active = try Self.active()
        // Horizontal: from the left, the fill rect being the cell inset by the 2-unit gap.
        let volume = try Self.place(active, "pad", "volume")
        let quarter = SliderFill(volume, valueJSON: "25")
        #expect(quarter.origin == .left && quarter.fraction == 0.25)
        #expect(quarter.rect(in: volume.rect) == Rect(x: 2, y: 2, width: 49, height: 96))
        // Vertical (taller than wide): from the bottom.
        let blind = try Self.place(active, "pad", "blind")
        let most = SliderFill(blind, valueJSON: "7.5")
        #expect(most.origin == .bottom && most.fraction == 0.75)
        #expect(most.rect(in: blind.rect) == Rect(x: 2, y: 100 + 2 + 296 * 0.25, width: 96, height: 296 * 0.75))
        // rtl: from the right; min -50, so 0 is half.
        let fader = try Self.place(active, "arabic", "fader")
        let half = SliderFill(fader, valueJSON: "0")
        #expect(half.origin == .right && half.fraction == 0.5)
        #expect(half.rect(in: fader.rect) == Rect(x: 100, y: 2, width: 98, height: 96))
    }

    @Test func aValueThatIsNoNumberOrOffTheScale() throws {
        let volume = try Self.place(try Self.active(), "pad", "volume")
        #expect(SliderFill(volume, valueJSON: nil).fraction == 0)
        #expect(SliderFill(volume, valueJSON: #""loud""#).fraction == 0)
        #expect(SliderFill(volume, valueJSON: "250").fraction == 1)
        #expect(SliderFill(volume, valueJSON: "-3").fraction == 0)
        #expect(SliderFill(volume, valueJSON: nil).rect(in: volume.rect).width == 0)
    }

    /// `/layout` gives each slider its scale and edge; other grids have no `slider`.
    @Test func theLayoutCarriesEachSlidersScaleAndEdge() throws {
        let active = try Self.active()
        let pad = try #require(active.layoutIndex(named: "pad")), arabicIndex = try #require(active.layoutIndex(named: "arabic"))
        let bytes = PanelDocuments.layout(active, layout: pad) { grid in grid == 1 ? CellState(valueJSON: "40") : CellState() }
        let document = try JSONParser.parse(bytes, lenient: false)
        guard case .array(let grids)? = document["grids"] else { Issue.record("no grids"); return }
        let byName = Dictionary(uniqueKeysWithValues: grids.map { ($0["name"]?.stringValue ?? "", $0) })
        #expect(byName["volume"]?["slider"] == (try JSONParser.parse(#"{"min":0,"max":100,"step":1,"from":"left"}"#, lenient: false)))
        #expect(byName["volume"]?["value"] == .number(JSONNumber(40)))
        #expect(byName["blind"]?["slider"]?["from"] == .string("bottom"))
        #expect(byName["blind"]?["slider"]?["step"] == .number(JSONNumber(0.5)))
        #expect(byName["plain"]?["slider"] == nil)
        let arabic = try JSONParser.parse(PanelDocuments.layout(active, layout: arabicIndex) { _ in CellState() }, lenient: false)
        guard case .array(let rtl)? = arabic["grids"] else { Issue.record("no grids"); return }
        #expect(rtl.first?["slider"]?["from"] == .string("right"))
        #expect(rtl.first?["slider"]?["min"] == .number(JSONNumber(-50)))
    }

    /// `layouts` with state says which grids are sliders, and its reader gives back the place
    /// the fill is drawn from (`tapgrid show --socket --format svg`).
    @Test func layoutsWithStateCarrySlidersAndReadBack() throws {
        let active = try Self.active()
        let out = ByteBuffer(capacity: 1024)
        let padIndex = try #require(active.layoutIndex(named: "pad"))
        ReplyWriter.layouts(active, current: padIndex, cells: { layout, grid in layout == padIndex && grid == 1 ? CellState(valueJSON: "40") : CellState() }, id: nil, out)
        let reply = LayoutsReply(try JSONParser.parse(Array(out.bytes), lenient: false))
        let pad = try #require(reply.layout(named: "pad"))
        let volume = try #require(pad.grids.first { $0.name == "volume" })
        let place = try #require(volume.slider)
        #expect(SliderFill(place, valueJSON: volume.state.valueJSON) == SliderFill(try Self.place(active, "pad", "volume"), valueJSON: "40"))
        #expect(pad.grids.first { $0.name == "plain" }?.slider == nil)
        let fader = try #require(reply.layout(named: "arabic")?.grids.first { $0.name == "fader" }?.slider)
        #expect(SliderFill.origin(fader) == .right)
        // Without state, as before: no slider key.
        let plain = ByteBuffer(capacity: 1024)
        ReplyWriter.layouts(active, current: 0, id: nil, plain)
        #expect(!String(decoding: Array(plain.bytes), as: UTF8.self).contains("slider"))
    }
}
