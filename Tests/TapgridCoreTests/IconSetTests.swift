import Testing

@testable import TapgridCore

/// `IconSet` (docs/panel.md "What a cell shows"): an SVG font's glyphs by name, the placement of a
/// glyph in its box, and the warnings for icons the set lacks.
@Suite struct IconSetTests {
    /// The form of Debian's materialdesignicons-webfont.svg: attributes over several lines.
    static let font = """
        <?xml version="1.0" standalone="no"?>
        <svg xmlns="http://www.w3.org/2000/svg">
        <defs>
          <font id="Material Design Icons" horiz-adv-x="24">
            <font-face font-family="Material Design Icons"
              units-per-em="512" ascent="448"
              descent="64" />
            <missing-glyph horiz-adv-x="0" />
            <glyph glyph-name="home"
              unicode="&#xF2DC;"
              horiz-adv-x="512" d=" M213.3333 21.3333V149.3333H298.6667V21.3333H405.3333V192H469.3333L256 384L42.6667 192H106.6667V21.3333z" />
            <glyph glyph-name='lightbulb' d="M256 426.6667C173.44 426.6667 106.6667 359.8933 106.6667 277.3333z"/>
            <glyph glyph-name="home" d="M0 0z" />
            <glyph unicode="x" d="M1 1z" />
            <glyph glyph-name="empty" />
          </font>
        </defs>
        </svg>
        """

    @Test func readsNamedGlyphs() throws {
        let set = try IconSet.parse(Array(Self.font.utf8))
        #expect(set.glyphs == [
            "home": "M213.3333 21.3333V149.3333H298.6667V21.3333H405.3333V192H469.3333L256 384L42.6667 192H106.6667V21.3333z",
            "lightbulb": "M256 426.6667C173.44 426.6667 106.6667 359.8933 106.6667 277.3333z",
        ])
        #expect(set.unitsPerEm == 512 && set.ascent == 448)
        #expect(set.outline("mdi:home") == set.glyphs["home"])
        #expect(set.outline("home") == nil && set.outline("mdi:nope") == nil)
    }

    @Test func anotherEmSquare() throws {
        let set = try IconSet.parse(Array(#"<font><font-face units-per-em="1000" ascent="800"/><glyph glyph-name="a" d="M0 0z"/></font>"#.utf8))
        #expect(set.unitsPerEm == 1000 && set.ascent == 800)
    }

    @Test func notAFont() {
        #expect(throws: IconSet.Problem("no <glyph> with a glyph-name and a d: not an SVG font")) {
            try IconSet.parse(Array("<html><body>hello</body></html>".utf8))
        }
        #expect(throws: IconSet.Problem("no <glyph> with a glyph-name and a d: not an SVG font")) { try IconSet.parse([]) }
    }

    /// A 48-unit box: scale 48/512, the baseline 448 font units (42 layout units) below its top,
    /// y flipped.
    @Test func placement() {
        let set = IconSet(glyphs: ["a": "M0 0z"])
        let placed = set.placement(in: Rect(x: 10, y: 20, width: 48, height: 48))
        #expect(placed.x == 10 && placed.y == 62 && placed.scale == 0.09375)
    }

    @Test func warningsForIconsTheSetLacks() throws {
        let document = try JSONParser.parse(#"""
            {"layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [
              {"tag": 1, "icon": "mdi:lightbulp"}, {"tag": 2, "icon": "mdi:home"}, {"tag": 3, "icon": "mdi:zzzzzzzz"}]}}}}
            """#, lenient: false)
        var parser = ConfigParser(file: "t.json", directory: "/etc") { _ in .failure(Diagnostic(.error, "none")) }
        let config = try #require(parser.parse(document).config)
        let set = try IconSet.parse(Array(Self.font.utf8))
        #expect(set.warnings(for: config, source: "/f.svg").map(\.description) == [
            #"t.json: layout "a", grid 0: "icon": no icon "mdi:lightbulp" in /f.svg; the cell shows its label alone; did you mean "mdi:lightbulb"?"#,
            #"t.json: layout "a", grid 2: "icon": no icon "mdi:zzzzzzzz" in /f.svg; the cell shows its label alone"#,
        ])
    }
}
