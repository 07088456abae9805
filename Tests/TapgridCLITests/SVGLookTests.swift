import Foundation
import Testing

@testable import TapgridCLI
import TapgridConfig
import TapgridCore
import TapgridTestSupport

/// `tapgrid show --format svg` draws each hittable cell from `CellLook` (docs/panel.md "What a
/// cell shows"): fill, border, radius, colours, the icon's glyph above the label or alone, and
/// the borderlines as before.
@Suite struct SVGLookTests {
    /// One glyph, a 512-unit square from the baseline up to 448 and down to -64.
    static let font = #"<svg><font><font-face units-per-em="512" ascent="448"/><glyph glyph-name="box" d="M0 -64H512V448H0z"/></font></svg>"#

    static let config = ##"""
        {"iconFont": "icons.svg",
         "styles": {"default": {"background": "#263238", "color": "#ECEFF1", "radius": 10},
                    "warm": {"background": "#b35900", "border": {"color": "#ffcc8080", "thick": 3}, "iconSize": 48, "fontSize": 20}},
         "layouts": {"home": {"width": 400, "height": 200, "grid": {"cols": [
           {"tag": 1, "name": "lamp", "text": "Lamp", "icon": "mdi:box", "style": "warm", "bottom-borderline": {"color": "#ff0000", "thick": 4}},
           {"tag": 2, "icon": "mdi:box"},
           {"tag": 3, "name": "plain", "style": {"background": "#1f6feb80", "color": "#000"}},
           {"tag": 4, "name": "none", "icon": "mdi:nothing"}]}}}}
        """##

    @Test func cellsFromTheirLook() throws {
        let dir = try folder(["t.json": Self.config, "icons.svg": Self.font])
        defer { removeTempDir(dir) }
        let result = run(["show", dir + "/t.json", "--format", "svg"])
        #expect(result.code == 0 && result.err == "")
        #expect(result.out == """
            <svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" viewBox="0 0 400 200" font-family="sans-serif">
            <title>tapgrid layout home</title>
            <rect x="0" y="0" width="400" height="200" fill="#ffffff"/>
            <rect x="0" y="0" width="400" height="200" fill="none" stroke="#555555" stroke-width="1" vector-effect="non-scaling-stroke"><title>(root)</title></rect>
            <rect x="3.5" y="3.5" width="93" height="193" rx="8.5" fill="#b35900" stroke="#ffcc80" stroke-opacity="0.502" stroke-width="3"><title>0</title></rect>
            <rect x="102" y="2" width="96" height="196" rx="10" fill="#263238"><title>1</title></rect>
            <rect x="202" y="2" width="96" height="196" rx="10" fill="#1f6feb" fill-opacity="0.502"><title>2</title></rect>
            <rect x="302" y="2" width="96" height="196" rx="10" fill="#263238"><title>3</title></rect>
            <rect x="0" y="196" width="100" height="4" fill="#ff0000" fill-opacity="1"/>
            <path d="M0 -64H512V448H0z" transform="translate(26 105.5) scale(0.09375 -0.09375)" fill="#eceff1"/>
            <text x="50" y="126.5" font-size="20" text-anchor="middle" dy="0.35em" fill="#eceff1">Lamp</text>
            <path d="M0 -64H512V448H0z" transform="translate(120 122.5) scale(0.1171875 -0.1171875)" fill="#eceff1"/>
            <text x="250" y="100" font-size="16" text-anchor="middle" dy="0.35em" fill="#000000">plain</text>
            <text x="350" y="100" font-size="16" text-anchor="middle" dy="0.35em" fill="#eceff1">none</text>
            </svg>

            """)
    }

    /// The page's borderlines (`/layout`'s, from `BorderlineSegment`) are where the SVG draws
    /// them: one test reads both, a solid line, a dashed one and one on a container.
    @Test func theLayoutsBorderlinesAreTheSVGs() throws {
        let text = ##"""
            {"layouts": {"home": {"width": 400, "height": 200,
               "grid": {"top-borderline": {"color": "#80112233", "thick": 2, "head": 10, "tail": 20}, "cols": [
                 {"tag": 1, "name": "a", "bottom-borderline": {"color": "#ff0000", "thick": 4}},
                 {"tag": 2, "name": "b", "left-borderline": {"color": "blue", "thick": 3, "dash": 5, "offset": 1}}]}}}}
            """##
        let dir = try folder(["t.json": text])
        defer { removeTempDir(dir) }
        let result = run(["show", dir + "/t.json", "--format", "svg"])
        #expect(result.code == 0)
        let config = try #require(ConfigLoader.load(path: dir + "/t.json").config)
        let active = ActiveConfig(config: config, generation: 1)
        let document = try JSONParser.parse(PanelDocuments.layout(active, layout: 0) { _ in CellState() }, lenient: false)
        guard case .array(let lines)? = document["borderlines"] else { Issue.record("no borderlines"); return }
        #expect(lines.count == 3)
        var drawn: [String] = []
        for line in lines {
            guard case .array(let rect)? = line["rect"], case .string(let color)? = line["color"],
                  case .number(let opacity)? = line["opacity"], case .number(let thick)? = line["thick"],
                  case .number(let dash)? = line["dash"] else { Issue.record("\(line)"); continue }
            let r = rect.map { value -> String in
                guard case .number(let n) = value else { return "?" }
                return formatNumber(n.double)
            }
            if dash.double > 0 {
                let x = formatNumber(Double(r[0])! + Double(r[2])! / 2)
                drawn.append(#"<line x1="\#(x)" y1="\#(r[1])" x2="\#(x)" y2="\#(formatNumber(Double(r[1])! + Double(r[3])!))" stroke="\#(color)" stroke-opacity="\#(formatNumber(opacity.double))" stroke-width="\#(formatNumber(thick.double))" stroke-dasharray="\#(formatNumber(dash.double)) \#(formatNumber(dash.double))"/>"#)
            } else {
                drawn.append(#"<rect x="\#(r[0])" y="\#(r[1])" width="\#(r[2])" height="\#(r[3])" fill="\#(color)" fill-opacity="\#(formatNumber(opacity.double))"/>"#)
            }
        }
        #expect(drawn == [
            ##"<rect x="10" y="0" width="370" height="2" fill="#112233" fill-opacity="0.502"/>"##,
            ##"<rect x="0" y="196" width="200" height="4" fill="#ff0000" fill-opacity="1"/>"##,
            #"<line x1="202.5" y1="0" x2="202.5" y2="200" stroke="blue" stroke-opacity="1" stroke-width="3" stroke-dasharray="5 5"/>"#,
        ].map { $0.replacingOccurrences(of: "0.502", with: formatNumber(128.0 / 255)) })
        for line in drawn { #expect(result.out.contains(line + "\n"), "\(line) not in the SVG:\n\(result.out)") }
    }

    /// The glyph's em square lands on the icon's box: the path's corners (0, 448) and (512, -64)
    /// go to the box's top left and bottom right, y flipped.
    @Test func theGlyphFillsItsBox() throws {
        let set = try IconSet.parse(Array(Self.font.utf8))
        let at = set.placement(in: Rect(x: 26, y: 83, width: 48, height: 48))
        #expect(at.x + 0 * at.scale == 26 && at.y - 448 * at.scale == 83)
        #expect(at.x + 512 * at.scale == 74 && at.y + 64 * at.scale == 131)
    }

    /// Drawn from the daemon's state: the state's text and icon, active in the accent, disabled
    /// at the page's opacity.
    @Test func theDaemonsStateDrawsTheSameWay() throws {
        let reply = LayoutsReply(try JSONParser.parse(#"{"layouts":[{"name":"home","width":200,"height":100,"current":true,"grids":[{"path":"","rect":[0,0,200,100]},{"path":"0","rect":[0,0,100,100],"name":"a","tag":1,"text":"On","active":true,"value":null,"enabled":false,"icon":"mdi:box","style":"warm"},{"path":"1","rect":[100,0,100,100],"tag":2}]}]}"#, lenient: false))
        let layout = try #require(reply.layout(named: "home"))
        let svg = SVGRenderer.render(layout, icons: try IconSet.parse(Array(Self.font.utf8)))
        #expect(svg.contains(##"<rect x="2" y="2" width="96" height="96" fill="#1f6feb" opacity="0.35"><title>0 &quot;a&quot;: text &quot;On&quot;, active, disabled, icon &quot;mdi:box&quot;, style &quot;warm&quot;</title></rect>"##), "\(svg)")
        #expect(svg.contains(##"fill="#ffffff" opacity="0.35"/>"##))
        #expect(svg.contains(##"<text x="50" y="74.5" font-size="16" text-anchor="middle" dy="0.35em" fill="#ffffff" opacity="0.35">On</text>"##), "\(svg)")
        #expect(svg.contains(##"<text x="150" y="50" font-size="16" text-anchor="middle" dy="0.35em" fill="#e8eaed">tag 2</text>"##))
    }

    /// A slider's fill (docs/touch.md "Sliders"): drawn over its cell from the value in the
    /// daemon's state, from the edge `slider.from` names, in the accent (or the style's
    /// `activeBackground`); offline (no state) a slider shows no fill.
    @Test func aSlidersFillFollowsItsValue() throws {
        let config = #"""
            {"layouts": {"home": {"width": 300, "height": 200, "grid": {"cols": [
              {"size": 200, "name": "volume", "tag": 1, "slider": {"min": 0, "max": 100, "step": 1}},
              {"size": 100, "name": "blind", "tag": 2, "slider": {"min": 0, "max": 10, "step": 1}}]}}},
             "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
            """#
        let dir = try folder(["t.json": config])
        defer { removeTempDir(dir) }
        let offline = run(["show", dir + "/t.json", "--format", "svg"])
        #expect(offline.code == 0 && !offline.out.contains("slider-fill"), "\(offline.out)")
        let active = ActiveConfig(config: try #require(ConfigLoader.load(path: dir + "/t.json").config), generation: 1)
        let out = ByteBuffer(capacity: 1024)
        ReplyWriter.layouts(active, current: 0, cells: { _, grid in CellState(valueJSON: grid == 1 ? "25" : "5") }, id: nil, out)
        let layout = try #require(LayoutsReply(try JSONParser.parse(Array(out.bytes), lenient: false)).layout(named: nil))
        let svg = SVGRenderer.render(layout)
        // volume: a quarter of its 196-wide fill rect from the left; blind (taller than wide): half from the bottom.
        #expect(svg.contains(##"<rect class="slider-fill" x="2" y="2" width="49" height="196" fill="#1f6feb"/>"##), "\(svg)")
        #expect(svg.contains(##"<rect class="slider-fill" x="202" y="100" width="96" height="98" fill="#1f6feb"/>"##), "\(svg)")
    }
}
