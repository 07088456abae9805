import Testing

@testable import TapgridCore

/// `CellLook.describe` (docs/panel.md "What a cell shows"): defaults, a style over `default` key
/// by key, state over grid, active and disabled colours; and `CellContent.place`.
@Suite struct CellLookTests {
    static func color(_ text: String) -> CellColor { CellColor(text)! }

    static let styles: [String: CellStyle] = [
        "default": CellStyle(background: color("#111"), color: color("#eee"), border: .init(color: color("#444"), thick: 2), radius: 8, fontSize: 14),
        "warm": CellStyle(background: color("#b35900"), activeBackground: color("#ff8800"), border: .init(thick: 3), iconSize: 30),
        "cold": CellStyle(color: color("#00ccffcc"), activeColor: color("#003344")),
    ]

    @Test func withoutStylesTheCellIsThePagesGrey() {
        let look = CellLook.describe(name: "lamp", look: nil, state: CellState(), styles: [:])
        #expect(look.label == "lamp")
        #expect(look.icon == nil)
        #expect(look.background.hex == "#2a2e37")
        #expect(look.color.hex == "#e8eaed")
        #expect(look.border == nil)
        #expect(look.radius == 0)
        #expect(look.fontSize == nil && look.iconSize == nil)
        #expect(look.active == false && look.enabled == true && look.opacity == 1)
        #expect(look.style == CellStyle())
    }

    @Test func defaultAppliesToEveryGrid() {
        let look = CellLook.describe(name: nil, look: nil, state: CellState(), styles: Self.styles)
        #expect(look.label == nil)
        #expect(look.background.hex == "#111111" && look.color.hex == "#eeeeee")
        #expect(look.border?.color.hex == "#444444" && look.border?.thick == 2)
        #expect(look.radius == 8 && look.fontSize == 14)
    }

    /// A grid's style laid over `default` key by key: its own keys win (the border's thickness
    /// alone), the others stay `default`'s.
    @Test func aStyleOverDefaultKeyByKey() {
        let look = CellLook.describe(name: "x", look: GridLook(style: .named("warm")), state: CellState(), styles: Self.styles)
        #expect(look.background.hex == "#b35900")
        #expect(look.color.hex == "#eeeeee")
        #expect(look.border?.color.hex == "#444444" && look.border?.thick == 3)
        #expect(look.radius == 8 && look.fontSize == 14 && look.iconSize == 30)
        #expect(look.style == CellStyle(background: Self.color("#b35900"), color: Self.color("#eee"), activeBackground: Self.color("#ff8800"),
                                        border: .init(color: Self.color("#444"), thick: 3), radius: 8, fontSize: 14, iconSize: 30))
    }

    @Test func anInlineStyleOverDefault() {
        let inline = CellStyle(background: Self.color("#010203"), radius: 0)
        let look = CellLook.describe(name: nil, look: GridLook(style: .inline(inline)), state: CellState(), styles: Self.styles)
        #expect(look.background.hex == "#010203" && look.color.hex == "#eeeeee" && look.radius == 0)
    }

    /// The state's text over the grid's text over its name; the state's icon over the grid's; the
    /// state's style replaces the grid's own (not laid over it) and is laid over `default`.
    @Test func stateOverGrid() {
        let grid = GridLook(text: "Lamp", icon: "mdi:lightbulb", style: .named("warm"))
        let plain = CellLook.describe(name: "lamp", look: grid, state: CellState(), styles: Self.styles)
        #expect(plain.label == "Lamp" && plain.icon == "mdi:lightbulb" && plain.background.hex == "#b35900")
        let set = CellLook.describe(name: "lamp", look: grid, state: CellState(text: "On", icon: "mdi:lightbulb-on", style: "cold"), styles: Self.styles)
        #expect(set.label == "On" && set.icon == "mdi:lightbulb-on")
        #expect(set.background.hex == "#111111", "warm's background is gone: the state's style replaces the grid's")
        #expect(set.color.hex == "#00ccffcc")
        #expect(set.iconSize == nil && set.border?.thick == 2)
    }

    /// A style name the config no longer has (a state kept over a reload) shows `default`.
    @Test func aStyleTheConfigLacksShowsDefault() {
        let look = CellLook.describe(name: nil, look: GridLook(style: .named("warm")), state: CellState(style: "gone"), styles: Self.styles)
        #expect(look.style == Self.styles["default"])
    }

    @Test func activeColours() {
        let accent = CellLook.describe(name: nil, look: nil, state: CellState(active: true), styles: Self.styles)
        #expect(accent.active && accent.background.hex == "#1f6feb" && accent.color.hex == "#ffffff")
        let warm = CellLook.describe(name: nil, look: GridLook(style: .named("warm")), state: CellState(active: true), styles: Self.styles)
        #expect(warm.background.hex == "#ff8800" && warm.color.hex == "#ffffff", "warm has no activeColor: the accent's")
        let cold = CellLook.describe(name: nil, look: GridLook(style: .named("cold")), state: CellState(active: true), styles: Self.styles)
        #expect(cold.background.hex == "#1f6feb" && cold.color.hex == "#003344")
        let inactive = CellLook.describe(name: nil, look: nil, state: CellState(active: false), styles: [:])
        #expect(!inactive.active && inactive.background.hex == "#2a2e37")
    }

    /// Disabled: the colours it would have, the whole cell at the page's opacity.
    @Test func disabledCells() {
        let off = CellLook.describe(name: nil, look: GridLook(style: .named("warm")), state: CellState(enabled: false), styles: Self.styles)
        #expect(!off.enabled && off.opacity == 0.35 && off.background.hex == "#b35900")
        let activeOff = CellLook.describe(name: nil, look: nil, state: CellState(active: true, enabled: false), styles: [:])
        #expect(activeOff.background.hex == "#1f6feb" && activeOff.opacity == 0.35)
        #expect(CellLook.describe(name: nil, look: nil, state: CellState(enabled: true), styles: [:]).opacity == 1)
    }

    @Test func everyColourSyntaxReachesTheLook() {
        for (text, hex) in [("#abc", "#aabbcc"), ("#A1B2C3", "#a1b2c3"), ("#a1b2c380", "#a1b2c380")] {
            let styles = ["default": CellStyle(background: CellColor(text))]
            #expect(CellLook.describe(name: nil, look: nil, state: CellState(), styles: styles).background.hex == hex)
        }
    }

    @Test func aBorderNeedsAColourAndAThickness() {
        func border(_ b: CellStyle.Border) -> (CellColor, Double)? {
            CellLook.describe(name: nil, look: nil, state: CellState(), styles: ["default": CellStyle(border: b)]).border.map { ($0.color, $0.thick) }
        }
        #expect(border(.init(thick: 2)) == nil)
        #expect(border(.init(color: Self.color("#fff"), thick: 0)) == nil)
        #expect(border(.init(color: Self.color("#fff")))?.1 == 1)
    }

    /// The describe of a tree's grid reads its name and keys.
    @Test func describeATreesGrid() throws {
        let grid = try JSONParser.parse(#"{"cols": [{"tag": 1, "name": "a", "text": "A", "icon": "mdi:home"}, {"tag": 2, "name": "b"}]}"#, lenient: false)
        let tree = try #require(GridParser.parse(grid, layout: "t").tree)
        #expect(CellLook.describe(tree, grid: 1, state: CellState(), styles: [:]).label == "A")
        #expect(CellLook.describe(tree, grid: 1, state: CellState(), styles: [:]).icon == "mdi:home")
        #expect(CellLook.describe(tree, grid: 2, state: CellState(), styles: [:]).label == "b")
    }

    // MARK: - Placement

    static func look(label: String?, icon: String?, fontSize: Double? = nil, iconSize: Double? = nil) -> CellLook {
        var look = CellLook.describe(name: label, look: GridLook(icon: icon), state: CellState(), styles: [:])
        look.fontSize = fontSize
        look.iconSize = iconSize
        return look
    }

    @Test func theIconAboveTheLabel() {
        let content = CellContent.place(Self.look(label: "Lamp", icon: "mdi:x", fontSize: 16, iconSize: 40), in: Rect(x: 0, y: 0, width: 100, height: 100), iconShown: true)
        // block 40 + 4 + 16 = 60, from y 20
        #expect(content.icon == Rect(x: 30, y: 20, width: 40, height: 40))
        #expect(content.labelX == 50 && content.labelY == 72 && content.fontSize == 16)
    }

    @Test func theIconAloneOrTheLabelAlone() {
        let alone = CellContent.place(Self.look(label: nil, icon: "mdi:x"), in: Rect(x: 10, y: 0, width: 200, height: 100), iconShown: true)
        #expect(alone.icon == Rect(x: 80, y: 20, width: 60, height: 60) && alone.labelY == nil)
        let missing = CellContent.place(Self.look(label: "Lamp", icon: "mdi:nope"), in: Rect(x: 0, y: 0, width: 100, height: 60), iconShown: false)
        #expect(missing.icon == nil && missing.labelX == 50 && missing.labelY == 30 && missing.fontSize == 16)
        let fitted = CellContent.place(Self.look(label: "Lamp", icon: "mdi:x"), in: Rect(x: 0, y: 0, width: 100, height: 100), iconShown: true)
        #expect(fitted.icon?.width == 45)
    }
}

/// `icon` and `style` in cell state: `set`, its refusals, the JSON written (after `enabled`, each
/// only when set), `cells.json`, state records and the `set` line a client sends.
@Suite struct CellIconStyleStateTests {
    static func set(_ line: String, styles: [String]? = nil) -> Result<ControlRequest.Set, RequestError> {
        ControlRequest.set(try! JSONParser.parse(line, lenient: false), styles: styles)
    }

    static func message(_ result: Result<ControlRequest.Set, RequestError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    @Test func setReadsIconAndStyle() throws {
        let request = try Self.set(#"{"op":"set","grid":"a","icon":"mdi:lightbulb","style":"warm"}"#, styles: ["default", "warm"]).get()
        #expect(request.change.icon == .set("mdi:lightbulb") && request.change.style == .set("warm"))
        let cleared = try Self.set(#"{"op":"set","grid":"a","icon":null,"style":null}"#, styles: []).get()
        #expect(cleared.change.icon == .clear && cleared.change.style == .clear)
        let kept = try Self.set(#"{"op":"set","grid":"a","text":"x"}"#).get()
        #expect(kept.change.icon == .keep && kept.change.style == .keep)
        var state = CellState(text: "t")
        #expect(CellChange(icon: .set("mdi:a"), style: .set("s")).apply(to: &state))
        #expect(state == CellState(text: "t", icon: "mdi:a", style: "s"))
    }

    @Test func setRefusals() {
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","icon":3}"#)) == #""icon" must be an icon name such as "mdi:lightbulb" or null, not a number"#)
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","icon":"lightbulb"}"#)) == #""icon" must be an icon name such as "mdi:lightbulb", not "lightbulb""#)
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","icon":"mdi:\#(String(repeating: "x", count: 300))"}"#)) == #""icon" is 304 bytes; at most 256"#)
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","style":true}"#)) == #""style" must be a style's name or null, not a boolean"#)
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","style":"wram"}"#, styles: ["default", "warm"])) == #""style": no style "wram"; the config's styles are "default", "warm""#)
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","style":"warm"}"#, styles: [])) == #""style": no style "warm"; the config has no "styles""#)
        #expect(Self.message(Self.set(#"{"op":"set","grid":"a","style":"anything"}"#)) == nil, "without the names, not checked here")
    }

    @Test func fieldsFollowEnabledOnlyWhenSet() {
        #expect(String(decoding: CellState(text: "a").jsonObject, as: UTF8.self) == #"{"text":"a","active":null,"value":null,"enabled":null}"#)
        #expect(String(decoding: CellState(icon: "mdi:home", style: "warm").jsonObject, as: UTF8.self)
            == #"{"text":null,"active":null,"value":null,"enabled":null,"icon":"mdi:home","style":"warm"}"#)
        #expect(String(decoding: CellState(style: "warm").jsonObject, as: UTF8.self) == #"{"text":null,"active":null,"value":null,"enabled":null,"style":"warm"}"#)
        #expect(!CellState(icon: "mdi:x").isEmpty && !CellState(style: "s").isEmpty && CellState().isEmpty)
    }

    @Test func theSetLineCarriesThem() {
        let request = ControlRequest.Set(layout: nil, grid: "a", change: CellChange(enabled: .set(true), icon: .set("mdi:home"), style: .clear))
        #expect(String(decoding: request.json, as: UTF8.self) == #"{"op":"set","grid":"a","enabled":true,"icon":"mdi:home","style":null}"#)
    }

    @Test func cellsJSONKeepsThem() throws {
        let cells = [TapEngine.NamedCell(layout: "home", path: "0", state: CellState(active: true, icon: "mdi:home", style: "warm"))]
        let bytes = CellsDocument.encode(cells)
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"version":1,"layouts":{"home":{"0":{"text":null,"active":true,"value":null,"enabled":null,"icon":"mdi:home","style":"warm"}}}}"# + "\n")
        #expect(try CellsDocument.decode(bytes) == cells)
        let iconOnly = Array(#"{"version":1,"layouts":{"home":{"0":{"icon":"mdi:home"}}}}"#.utf8)
        #expect(try CellsDocument.decode(iconOnly).first?.state == CellState(icon: "mdi:home"))
        #expect(throws: CellsDocument.Problem(#"layouts.home, grid "0": "style" must be a string or null, not a number"#)) {
            try CellsDocument.decode(Array(#"{"version":1,"layouts":{"home":{"0":{"style":1}}}}"#.utf8))
        }
    }

    @Test func stateRecordsCarryThem() throws {
        let record = ByteBuffer(capacity: 256)
        StateRecord.write(seq: 7, layout: "home", path: "0/1", state: CellState(text: "On", icon: "mdi:home", style: "warm"), source: .socket, into: record)
        let text = String(decoding: Array(record.bytes), as: UTF8.self)
        #expect(text == #""seq":7,"event":"state","layout":"home","grid":"0/1","text":"On","active":null,"value":null,"enabled":null,"icon":"mdi:home","style":"warm","source":"socket"}"# + "\n")
        let line = Array(("{" + text.dropLast()).utf8)
        guard case .success(.state(let read))? = EventRecord.read(line[...]) else {
            Issue.record("not read back")
            return
        }
        #expect(read.state == CellState(text: "On", icon: "mdi:home", style: "warm"))
        #expect(String(decoding: read.request.json, as: UTF8.self)
            == #"{"op":"set","layout":"home","grid":"0/1","text":"On","active":null,"value":null,"enabled":null,"icon":"mdi:home","style":"warm"}"#)
        let bad = Array(#"{"seq":1,"event":"state","layout":"h","grid":"0","source":"socket","icon":2}"#.utf8)
        guard case .failure(let problem)? = EventRecord.read(bad[...]) else {
            Issue.record("read")
            return
        }
        #expect(problem.message == #"not a state record ("icon" is a number, not a string or null)"#)
    }
}
