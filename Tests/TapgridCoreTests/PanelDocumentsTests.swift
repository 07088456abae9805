import Testing

@testable import TapgridCore

/// What the panel serves and streams: the `/layout` document (only the grids taps can hit, at
/// the rects the engine hit-tests, with their state), `state` and `tap` event data, the
/// Server-Sent Events framing, and the page with its title HTML-escaped.
@Suite struct PanelDocumentsTests {
    /// "home", 300x100: a hittable "light" (tag 1), a container of rows that is not hittable
    /// itself, holding "up" (tag 2) and an unnamed grid with `action-data` only, and a spacer
    /// that nothing can hit. "rtl": a right-to-left page with one grid.
    static let config = #"""
    {"layouts": {
       "home": {"width": 300, "height": 100, "grid": {"cols": [
          {"size": 100, "tag": 1, "name": "light"},
          {"size": 150, "rows": [{"size": 40, "tag": 2, "name": "up"}, {"size": 60, "action-data": "x"}]},
          {"size": 50}]}},
       "rtl": {"width": 200, "height": 50, "direction": "rtl", "grid": {"cols": [{"size": 80, "tag": 9, "name": "first"}, {"size": 120}]}}},
     "initialLayout": "home",
     "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
    """#

    static func active() throws -> ActiveConfig {
        let document = try JSONParser.parse(config, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (loaded, diagnostics) = parser.parse(document)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
        return ActiveConfig(config: try #require(loaded), generation: 7)
    }

    func numbers(_ value: JSONValue?) -> [Double]? {
        guard case .array(let elements)? = value else { return nil }
        return elements.map { element in
            guard case .number(let n) = element else { return .nan }
            return n.double
        }
    }

    func grids(_ document: JSONValue) -> [JSONValue] {
        guard case .array(let grids)? = document["grids"] else { return [] }
        return grids
    }

    // MARK: /layout

    @Test func theLayoutListsOnlyHittableGridsAtTheirResolvedRects() throws {
        let active = try Self.active()
        let home = try #require(active.layouts.firstIndex { $0.name == "home" })
        let bytes = PanelDocuments.layout(active, layout: home) { _ in CellState() }
        let document = try JSONParser.parse(bytes, lenient: false)
        #expect(document["layout"] == .string("home"))
        #expect(document["generation"] == .number(JSONNumber(7)))
        #expect(document["width"] == .number(JSONNumber(300)))
        #expect(document["height"] == .number(JSONNumber(100)))
        #expect(document["direction"] == .string("ltr"))
        let listed = grids(document)
        // Pre-order: "light", then the container's children; neither the root, the container nor the spacer.
        #expect(listed.map { $0["path"] } == [.string("0"), .string("1/0"), .string("1/1")])
        #expect(listed.map { $0["name"] } == [.string("light"), .string("up"), .null])
        #expect(listed.map { $0["tag"] } == [.number(JSONNumber(1)), .number(JSONNumber(2)), .null])
        // Each rect is the one the engine resolved and hit-tests.
        let layout = active.layouts[home]
        for grid in listed {
            guard case .string(let path)? = grid["path"],
                  let index = layout.tree.nodes.indices.first(where: { layout.tree.path(of: $0) == path }) else {
                Issue.record("no grid at \(String(describing: grid["path"]))")
                continue
            }
            let r = layout.resolved.rects[index]
            #expect(numbers(grid["rect"]) == [r.x, r.y, r.width, r.height], "\(path)")
        }
        // And they are the rects the config asks for.
        #expect(listed.map { numbers($0["rect"]) } == [[0, 0, 100, 100], [100, 0, 150, 40], [100, 40, 150, 60]])
        // A grid taps can hit at all is listed: a tap at each listed rect's centre hits it.
        var engine = TapEngine(config: active.config, generation: 7)
        for grid in listed {
            let rect = try #require(numbers(grid["rect"]))
            let decision = engine.tap(layout: home, x: rect[0] + rect[2] / 2, y: rect[1] + rect[3] / 2, explicitLayout: true, now: 1)
            let hit = try #require(decision.target?.grid)
            #expect(.string(layout.tree.path(of: hit)) == grid["path"])
        }
    }

    @Test func eachGridCarriesItsState() throws {
        let active = try Self.active()
        let home = try #require(active.layouts.firstIndex { $0.name == "home" })
        let tree = active.layouts[home].tree
        let up = try #require(tree.nodes.indices.first { tree.path(of: $0) == "1/0" })
        var asked: [Int] = []
        let bytes = PanelDocuments.layout(active, layout: home) { grid in
            asked.append(grid)
            return grid == up ? CellState(text: "12 °C \"warm\"", active: true, valueJSON: #"{"t":12}"#, enabled: false) : CellState()
        }
        let document = try JSONParser.parse(bytes, lenient: false)
        let listed = grids(document)
        #expect(listed.count == 3)
        #expect(asked.count == 3)
        let state = try #require(listed.first { $0["path"] == .string("1/0") })
        #expect(state["text"] == .string("12 °C \"warm\""))
        #expect(state["active"] == .bool(true))
        #expect(state["value"]?["t"] == .number(JSONNumber(12)))
        #expect(state["enabled"] == .bool(false))
        // A grid without state has all four fields, null.
        let light = try #require(listed.first { $0["path"] == .string("0") })
        for key in ["text", "active", "value", "enabled"] { #expect(light[key] == .null, "\(key)") }
        guard case .object(let members) = light else { return }
        #expect(members.map(\.key) == ["path", "name", "rect", "tag", "text", "active", "value", "enabled", "label", "icon", "style"])
        #expect(light["icon"] == .null)
        #expect(light["style"] == .object([]) || "\(String(describing: light["style"]))".contains("object([])"))
    }

    /// The label the page draws: the state's text, else the grid's name, else null (an empty cell).
    @Test func eachGridCarriesTheLabelThePageDraws() throws {
        let active = try Self.active()
        let home = try #require(active.layouts.firstIndex { $0.name == "home" })
        let tree = active.layouts[home].tree
        let light = try #require(tree.nodes.indices.first { tree.path(of: $0) == "0" })
        let bytes = PanelDocuments.layout(active, layout: home) { grid in
            grid == light ? CellState(text: "21 °C", active: true) : CellState(active: true)
        }
        let listed = grids(try JSONParser.parse(bytes, lenient: false))
        #expect(listed.map { $0["label"] } == [.string("21 °C"), .string("up"), .null])
        #expect(PanelDocuments.label(name: "light", state: CellState(text: "")) == "")
        #expect(PanelDocuments.label(name: "light", state: CellState(valueJSON: "1")) == "light")
        #expect(PanelDocuments.label(name: nil, state: CellState()) == nil)
    }

    @Test func aRightToLeftLayoutSaysSo() throws {
        let active = try Self.active()
        let rtl = try #require(active.layouts.firstIndex { $0.name == "rtl" })
        let document = try JSONParser.parse(PanelDocuments.layout(active, layout: rtl) { _ in CellState() }, lenient: false)
        #expect(document["layout"] == .string("rtl"))
        #expect(document["direction"] == .string("rtl"))
        let listed = grids(document)
        #expect(listed.map { $0["name"] } == [.string("first")])
        // The first grid of an RTL row is at the right.
        #expect(numbers(listed.first?["rect"]) == [120, 0, 80, 50])
    }

    // MARK: Events

    @Test func stateEventData() throws {
        let active = try Self.active()
        let home = try #require(active.layouts.firstIndex { $0.name == "home" })
        let tree = active.layouts[home].tree
        let up = try #require(tree.nodes.indices.first { tree.path(of: $0) == "1/0" })
        let bytes = PanelDocuments.state(active, layout: home, grid: up, CellState(text: "on", active: true))
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"layout":"home","path":"1/0","text":"on","active":true,"value":null,"enabled":null,"label":"on","icon":null,"style":{}}"#)
        let escaped = PanelDocuments.state(active, layout: home, grid: up, CellState(valueJSON: "[1,2]", enabled: true))
        let parsed = try JSONParser.parse(escaped, lenient: false)
        #expect(parsed["label"] == .string("up"))
        #expect(parsed["value"] == .array([.number(JSONNumber(1)), .number(JSONNumber(2))]))
        #expect(parsed["enabled"] == .bool(true))
    }

    @Test func eventFraming() {
        let out = ByteBuffer(capacity: 16)
        Array(#"{"a":1}"#.utf8).withUnsafeBytes { PanelDocuments.event("state", data: $0, into: out) }
        #expect(Array(out.bytes) == Array("event: state\ndata: {\"a\":1}\n\n".utf8))
        // Appended after what the buffer holds, so events queue up one after another.
        Array("{}".utf8).withUnsafeBytes { PanelDocuments.event("layout", data: $0, into: out) }
        #expect(String(decoding: out.bytes, as: UTF8.self) == "event: state\ndata: {\"a\":1}\n\nevent: layout\ndata: {}\n\n")
        #expect("\(PanelDocuments.streamStart)" == "retry: 1000\n\n")
        #expect("\(PanelDocuments.heartbeat)".hasPrefix(":"))
        #expect("\(PanelDocuments.heartbeat)".hasSuffix("\n\n"))
    }

    @Test func tapEventData() throws {
        let active = try Self.active()
        var engine = TapEngine(config: active.config, generation: 7)
        let home = try #require(active.layouts.firstIndex { $0.name == "home" })
        let decision = engine.tap(layout: home, x: 50, y: 50, explicitLayout: true, now: 1)
        let socket = ByteBuffer(capacity: 64)
        PanelDocuments.tap(decision, active: engine.active, source: nil, into: socket)
        let parsed = try JSONParser.parse(Array(socket.bytes), lenient: false)
        #expect(parsed["class"] == .string("tap"))
        #expect(parsed["source"] == .string("socket"))
        #expect(parsed["layout"] == .string("home"))
        #expect(parsed["hit"]?["name"] == .string("light"))
        #expect(parsed["outcome"] == .string("dispatched"))
        let panel = ByteBuffer(capacity: 64)
        PanelDocuments.tap(decision, active: engine.active, source: Array(#""panel""#.utf8), into: panel)
        #expect(try JSONParser.parse(Array(panel.bytes), lenient: false)["source"] == .string("panel"))
    }

    // MARK: The page

    func page(_ template: String, _ title: String) -> String {
        String(decoding: PanelDocuments.page(Array(template.utf8), title: title), as: UTF8.self)
    }

    @Test func theTitleIsHTMLEscaped() {
        #expect(page("<title>{{title}}</title>", #"<script>alert("x" & 'y')</script>"#)
            == "<title>&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;</title>")
        #expect(page("<title>{{title}}</title>", "Küche — Licht") == "<title>Küche — Licht</title>")
        // An entity in the title is shown as typed, not decoded.
        #expect(page("{{title}}", "&amp;") == "&amp;amp;")
    }

    @Test func everyPlaceholderIsReplaced() {
        #expect(page(#"<title>{{title}}</title><h1 data-t="{{title}}">{{title}}</h1>"#, "A&B")
            == #"<title>A&amp;B</title><h1 data-t="A&amp;B">A&amp;B</h1>"#)
        #expect(page("{{title}}{{title}}", "x") == "xx")
        // Near misses and braces around it are left as they are.
        #expect(page("{{{title}}}", "x") == "{x}")
        #expect(page("{{titl}} {{ title }} {title} {{title", "x") == "{{titl}} {{ title }} {title} {{title")
        #expect(page("no placeholder", "x") == "no placeholder")
        #expect(page("", "x") == "")
        // A title that looks like the placeholder is not replaced again.
        #expect(page("{{title}}", "{{title}}") == "{{title}}")
    }

    // MARK: What a cell shows

    /// Grids with `text`, `icon` and `style`, a `default` style and a named one.
    static let lookConfig = #"""
    {"styles": {"default": {"background": "#202020", "border": {"color": "#444", "thick": 1}},
                "warm": {"background": "#aa5500cc", "color": "#fff", "radius": 6, "iconSize": 24}},
     "layouts": {"home": {"width": 300, "height": 100, "grid": {"cols": [
        {"size": 100, "tag": 1, "name": "lamp", "text": "Lamp", "icon": "mdi:lightbulb", "style": "warm"},
        {"size": 100, "tag": 2, "name": "fan", "icon": "mdi:fan", "style": {"color": "#0f0"}},
        {"size": 100, "tag": 3, "name": "door", "icon": "mdi:nothere"}]}}},
     "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
    """#

    static func lookActive(_ text: String = lookConfig) throws -> ActiveConfig {
        let document = try JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (loaded, diagnostics) = parser.parse(document)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
        return ActiveConfig(config: try #require(loaded), generation: 1)
    }

    static let icons = IconSet(glyphs: ["lightbulb": "M1 2L3 4z", "fan": "M5 6z", "unused": "M9 9z"], unitsPerEm: 512, ascent: 448)

    /// Each grid's label, the icon shown (null when the set lacks it), the resolved style; the
    /// top-level icons hold only the glyphs shown, with the font's metrics.
    @Test func gridsCarryLabelIconAndResolvedStyle() throws {
        let active = try Self.lookActive()
        let bytes = PanelDocuments.layout(active, layout: 0, icons: Self.icons) { _ in CellState() }
        let document = try JSONParser.parse(bytes, lenient: false)
        let listed = grids(document)
        try #require(listed.count == 3)
        #expect(listed.map { $0["label"] } == [.string("Lamp"), .string("fan"), .string("door")])
        #expect(listed.map { $0["icon"] } == [.string("mdi:lightbulb"), .string("mdi:fan"), .null])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(##""style":{"background":"#aa5500cc","color":"#ffffff","border":{"color":"#444444","thick":1},"radius":6,"iconSize":24}"##), "\(text)")
        #expect(listed[2]["style"]?["background"] == listed[1]["style"]?["background"])
        #expect(listed[1]["style"]?["color"] != nil)
        guard case .object(let used)? = document["icons"] else { Issue.record("no icons"); return }
        #expect(used.map(\.key) == ["mdi:lightbulb", "mdi:fan"])
        #expect(used.map(\.value) == [.string("M1 2L3 4z"), .string("M5 6z")])
        #expect(document["iconUnitsPerEm"] == .number(JSONNumber(512)))
        #expect(document["iconAscent"] == .number(JSONNumber(448)))
        // Without an icon set: no icon shown, no icons.
        let bare = try JSONParser.parse(PanelDocuments.layout(active, layout: 0) { _ in CellState() }, lenient: false)
        #expect(grids(bare).map { $0["icon"] } == [.null, .null, .null])
        #expect(bare["icons"] == nil)
    }

    /// A state's icon and style replace the grid's; the event names the new icon's glyph.
    @Test func aStateEventCarriesTheLookAfterTheChange() throws {
        let active = try Self.lookActive()
        let bytes = PanelDocuments.state(active, layout: 0, grid: try #require(active.layouts[0].tree.nodes.indices.first {
            active.layouts[0].tree.path(of: $0) == "2" }), CellState(text: "Open", icon: "mdi:fan", style: "warm"), icons: Self.icons)
        let event = try JSONParser.parse(bytes, lenient: false)
        #expect(event["label"] == .string("Open"))
        #expect(event["icon"] == .string("mdi:fan"))
        #expect(event["glyph"] == .string("M5 6z"))
        #expect(event["style"]?["radius"] == .number(JSONNumber(6)))
        #expect(event["style"]?["border"]?["thick"] == .number(JSONNumber(1)))
    }

    /// 100 cells, each with an icon of Debian's font size (about 400 bytes a glyph) and a style:
    /// `/layout` stays under 64 KiB.
    @Test func aHundredCellsWithIconsFitIn64KiB() throws {
        var cells: [String] = []
        var glyphs: [String: String] = [:]
        for n in 0..<100 {
            let style = n % 2 == 0 ? "\"warm\"" : "{\"color\": \"#0f0\"}"
            cells.append("{\"size\": 1, \"tag\": \(n + 1), \"name\": \"cell \(n)\", \"text\": \"Cell \(n)\", \"icon\": \"mdi:icon\(n % 40)\", \"style\": \(style)}")
            glyphs["icon\(n % 40)"] = String(repeating: "M12 4.5L3.2 9.7 ", count: 25)
        }
        let text = ##"{"styles": {"warm": {"background": "#aa5500", "color": "#fff", "radius": 6}}, "layouts": {"big": {"width": 1000, "height": 1000, "grid": {"rows": ["##
            + (0..<10).map { r in #"{"size": 1, "cols": ["# + cells[(r * 10)..<(r * 10 + 10)].joined(separator: ",") + "]}" }.joined(separator: ",")
            + #"]}}}, "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}"#
        let active = try Self.lookActive(text)
        let bytes = PanelDocuments.layout(active, layout: 0, icons: IconSet(glyphs: glyphs)) { _ in CellState(active: true) }
        let document = try JSONParser.parse(bytes, lenient: false)
        #expect(grids(document).count == 100)
        guard case .object(let used)? = document["icons"] else { Issue.record("no icons"); return }
        #expect(used.count == 40)
        #expect(bytes.count < 64 * 1024, "\(bytes.count) bytes")
    }
}
