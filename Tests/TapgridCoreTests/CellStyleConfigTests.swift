import Testing

@testable import TapgridCore

/// `styles`, `iconFont` and the grid keys `text`, `icon` and `style` (docs/panel.md "What a cell
/// shows"): what is kept, and every error and warning with its exact text.
@Suite struct CellStyleConfigTests {
    func parse(_ text: String) -> (Config?, [String]) {
        let document = try! JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            .failure(Diagnostic(.error, "cannot read \(path): No such file or directory (errno 2)"))
        }
        let (config, diagnostics) = parser.parse(document)
        return (config, diagnostics.all.map(\.description))
    }

    /// A config whose one layout's first grid (path `0`) has `keys` beside its tag.
    func config(styles: String? = nil, grid keys: String, extra: String = "") -> String {
        let styles = styles.map { #""styles": \#($0), "# } ?? ""
        return #"{\#(styles)\#(extra)"layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, \#(keys)}, {"tag": 2}]}}}}"#
    }

    @Test func stylesAndGridKeysAreKept() throws {
        let (loaded, messages) = parse(config(
            styles: ##"{"default": {"background": "#222", "color": "#EEEEEE", "border": {"color": "#88888880", "thick": 2}, "radius": 6}, "warm": {"activeBackground": "#b35900", "activeColor": "#fff", "fontSize": 18, "iconSize": 24}}"##,
            grid: #""text": "Lamp", "icon": "mdi:lightbulb", "style": "warm""#, extra: #""iconFont": "icons/mdi.svg", "#))
        #expect(messages == [])
        let config = try #require(loaded)
        #expect(config.styles["default"] == CellStyle(
            background: CellColor(red: 0x22, green: 0x22, blue: 0x22), color: CellColor(red: 0xee, green: 0xee, blue: 0xee),
            border: .init(color: CellColor(red: 0x88, green: 0x88, blue: 0x88, alpha: 0x80), thick: 2), radius: 6))
        #expect(config.styles["warm"] == CellStyle(
            activeBackground: CellColor(red: 0xb3, green: 0x59, blue: 0), activeColor: CellColor(red: 255, green: 255, blue: 255),
            fontSize: 18, iconSize: 24))
        #expect(config.iconFont == "/etc/tapgrid/icons/mdi.svg")
        let tree = config.layouts[0].tree
        #expect(tree.look(of: 1) == GridLook(text: "Lamp", icon: "mdi:lightbulb", style: .named("warm")))
        #expect(tree.look(of: 2) == nil)
    }

    @Test func anInlineStyle() throws {
        let (loaded, messages) = parse(config(grid: ##""style": {"background": "#102030"}"##))
        #expect(messages == [])
        let tree = try #require(loaded).layouts[0].tree
        #expect(tree.look(of: 1) == GridLook(style: .inline(CellStyle(background: CellColor(red: 0x10, green: 0x20, blue: 0x30)))))
    }

    @Test func aConfigWithoutTheNewKeysIsAsBefore() throws {
        let (loaded, messages) = parse(config(grid: #""name": "x""#))
        #expect(messages == [])
        let config = try #require(loaded)
        #expect(config.styles.isEmpty)
        #expect(config.iconFont == nil)
        #expect(config.layouts[0].tree.looks.isEmpty)
    }

    @Test(arguments: [
        (##""styles": 3, "##, ##"t.json: styles: expected an object of named styles such as {"default": {"background": "#2a2e37"}, "warm": {"background": "#b35900"}}, found 3"##),
        (##""styles": {"warm": "red"}, "##, ##"t.json: styles.warm: expected a style object such as {"background": "#1f6feb", "color": "#fff"}, found "red""##),
        (##""styles": {"warm": {"background": "red"}}, "##, ##"t.json: styles.warm.background: expected a colour #RGB, #RRGGBB or #RRGGBBAA, found "red""##),
        (##""styles": {"warm": {"color": "#12345"}}, "##, ##"t.json: styles.warm.color: expected a colour #RGB, #RRGGBB or #RRGGBBAA, found "#12345""##),
        (##""styles": {"warm": {"activeColor": "#1234"}}, "##, ##"t.json: styles.warm.activeColor: expected a colour #RGB, #RRGGBB or #RRGGBBAA, found "#1234""##),
        (##""styles": {"warm": {"activeBackground": "#ggg"}}, "##, ##"t.json: styles.warm.activeBackground: expected a colour #RGB, #RRGGBB or #RRGGBBAA, found "#ggg""##),
        (##""styles": {"warm": {"bakground": "#fff"}}, "##, ##"t.json: styles.warm.bakground: unknown style key; did you mean "background"?"##),
        (##""styles": {"warm": {"shadow": 2}}, "##, ##"t.json: styles.warm.shadow: unknown style key; a style has background, color, activeBackground, activeColor, border, radius, fontSize and iconSize"##),
        (##""styles": {"warm": {"radius": -1}}, "##, ##"t.json: styles.warm.radius: expected a number >= 0 (layout units), found -1"##),
        (##""styles": {"warm": {"fontSize": 0}}, "##, ##"t.json: styles.warm.fontSize: expected a number > 0 (layout units), found 0"##),
        (##""styles": {"warm": {"iconSize": "24"}}, "##, ##"t.json: styles.warm.iconSize: expected a number > 0 (layout units), found "24""##),
        (##""styles": {"warm": {"border": 2}}, "##, ##"t.json: styles.warm.border: expected an object such as {"color": "#888", "thick": 1}, found 2"##),
        (##""styles": {"warm": {"border": {"colour": "#888"}}}, "##, ##"t.json: styles.warm.border.colour: unknown border key; did you mean "color"?"##),
        (##""styles": {"warm": {"border": {"width": 1}}}, "##, ##"t.json: styles.warm.border.width: unknown border key; a border has color and thick"##),
        (##""styles": {"warm": {"border": {"color": "grey"}}}, "##, ##"t.json: styles.warm.border.color: expected a colour #RGB, #RRGGBB or #RRGGBBAA, found "grey""##),
        (##""styles": {"warm": {"border": {"thick": -2}}}, "##, ##"t.json: styles.warm.border.thick: expected a number >= 0 (layout units), found -2"##),
        (##""styles": {"": {}}, "##, ##"t.json: styles: a style needs a non-empty name"##),
        (##""iconFont": "", "##, ##"t.json: iconFont: expected the path of an SVG font (a non-empty string), found """##),
        (##""iconFont": false, "##, ##"t.json: iconFont: expected the path of an SVG font (a non-empty string), found false"##),
    ])
    func configErrors(extra: String, message: String) {
        let (loaded, messages) = parse(config(grid: #""name": "x""#, extra: extra))
        #expect(loaded == nil)
        #expect(messages == [message])
    }

    @Test(arguments: [
        (#""text": 3"#, #"t.json: layout "a", grid 0: "text": expected a string (the cell's label), found 3"#),
        (#""icon": "lightbulb""#, #"t.json: layout "a", grid 0: "icon": expected an icon name such as "mdi:lightbulb", found "lightbulb""#),
        (#""icon": "mdi:""#, #"t.json: layout "a", grid 0: "icon": expected an icon name such as "mdi:lightbulb", found "mdi:""#),
        (#""icon": null"#, #"t.json: layout "a", grid 0: "icon": expected an icon name such as "mdi:lightbulb", found null"#),
        (#""style": "wram""#, #"t.json: layout "a", grid 0: "style": no style "wram" in the config's "styles"; did you mean "warm"?"#),
        (#""style": "night""#, #"t.json: layout "a", grid 0: "style": no style "night" in the config's "styles"; the styles are "default", "warm""#),
        (#""style": 1"#, #"t.json: layout "a", grid 0: "style": expected the name of a style or a style object, found 1"#),
        (#""style": {"background": "blue"}"#, #"t.json: layout "a", grid 0: "style".background: expected a colour #RGB, #RRGGBB or #RRGGBBAA, found "blue""#),
        (##""style": {"colour": "#fff"}"##, #"t.json: layout "a", grid 0: "style".colour: unknown style key; did you mean "color"?"#),
        (#""style": {"border": {"thik": 1}}"#, #"t.json: layout "a", grid 0: "style".border.thik: unknown border key; did you mean "thick"?"#),
    ])
    func gridErrors(keys: String, message: String) {
        let (loaded, messages) = parse(config(styles: ##"{"default": {}, "warm": {"background": "#b35900"}}"##, grid: keys))
        #expect(loaded == nil)
        #expect(messages == [message])
    }

    @Test func aStyleNameWithoutStyles() {
        let (loaded, messages) = parse(config(grid: #""style": "warm""#))
        #expect(loaded == nil)
        #expect(messages == [#"t.json: layout "a", grid 0: "style": no style "warm": the config has no "styles""#])
    }

    @Test func aLongText() {
        let (_, messages) = parse(config(grid: #""text": "\#(String(repeating: "x", count: 257))""#))
        #expect(messages == [#"t.json: layout "a", grid 0: "text": 257 bytes; at most 256"#])
    }

    /// The keys show on hittable grids only: on another grid they are a warning, not an error.
    @Test func onAGridThatIsNotHittable() throws {
        let text = #"{"layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"text": "Title", "icon": "mdi:home"}, {"tag": 2}]}}}}"#
        let (loaded, messages) = parse(text)
        #expect(loaded != nil)
        #expect(messages == [#"t.json: layout "a", grid 0: "text", "icon" shown on hittable grids only (the panel draws those); give this grid a tag, action or action-data"#])
    }

    /// A pushed layout may name the config's styles (and is refused, named from `load`, otherwise).
    @Test func pushedLayoutsNameTheConfigsStyles() throws {
        let (loaded, _) = parse(config(styles: ##"{"warm": {"background": "#b35900"}}"##, grid: #""name": "x""#))
        let config = try #require(loaded)
        let good = try JSONParser.parse(#"{"width": 10, "height": 10, "grid": {"cols": [{"tag": 1, "style": "warm"}]}}"#, lenient: false)
        #expect(PushedLayouts.check("p", definition: good, config: config).layout?.tree.look(of: 1) == GridLook(style: .named("warm")))
        let bad = try JSONParser.parse(#"{"width": 10, "height": 10, "grid": {"cols": [{"tag": 1, "style": "cold"}]}}"#, lenient: false)
        let (layout, diagnostics) = PushedLayouts.check("p", definition: bad, config: config)
        #expect(layout == nil)
        #expect(diagnostics.all.map(\.description) == [#"load.definition.grid 0: "style": no style "cold" in the config's "styles"; the styles are "warm""#])
    }

    @Test(arguments: [
        ("#fff", CellColor(red: 255, green: 255, blue: 255)),
        ("#1aF", CellColor(red: 0x11, green: 0xaa, blue: 0xff)),
        ("#1f6feb", CellColor(red: 0x1f, green: 0x6f, blue: 0xeb)),
        ("#1F6FEB80", CellColor(red: 0x1f, green: 0x6f, blue: 0xeb, alpha: 0x80)),
        ("#00000000", CellColor(red: 0, green: 0, blue: 0, alpha: 0)),
    ])
    func everyColourSyntax(text: String, color: CellColor) {
        #expect(CellColor(text) == color)
    }

    @Test(arguments: ["", "#", "fff", "#ff", "#ffff", "#fffff", "#fffffff", "#fffffffff", "# fff", "#ggg", "red", "#12345678 "])
    func notColours(text: String) {
        #expect(CellColor(text) == nil)
    }

    @Test func hexText() {
        #expect(CellColor("#1F6FEB")!.hex == "#1f6feb")
        #expect(CellColor("#1F6FEB80")!.hex == "#1f6feb80")
        #expect(CellColor("#1F6FEB80")!.rgbHex == "#1f6feb")
        #expect(CellColor("#abc")!.hex == "#aabbcc")
        #expect(CellColor("#00000080")!.opacity == 128.0 / 255)
    }
}
