/// What a cell shows (docs/panel.md "What a cell shows"), decided once from the grid's own keys,
/// its state and the config's styles, so the page (through `/layout` and `state` events) and
/// `tapgrid show --format svg` draw the same cell.
public struct CellLook: Sendable, Equatable {
    /// The state's `text`, else the grid's `text`, else its `name`; nil: no label.
    public var label: String?
    /// `mdi:NAME`: the state's icon, else the grid's; nil: none. Drawn only when the icon set
    /// has it (else the label alone).
    public var icon: String?
    /// The cell's style resolved: its own (the state's `style`, else the grid's) laid over
    /// `default`, key by key. What `/layout` carries as the grid's `"style"`.
    public var style: CellStyle
    /// The fill: `activeBackground` (else the accent) while active, else `background` (else the
    /// page's grey).
    public var background: CellColor
    /// The label's and the icon's colour, chosen as the background is.
    public var color: CellColor
    /// nil: no border (a `border` without a colour, or a thickness of 0).
    public var border: (color: CellColor, thick: Double)? {
        guard let color = style.border.color, let thick = style.border.thick ?? (style.border.color != nil ? 1 : nil), thick > 0 else { return nil }
        return (color, thick)
    }
    /// Corner radius, layout units (0 unless a style sets one).
    public var radius: Double
    /// Layout units; nil: fitted to the cell (`CellContent`).
    public var fontSize: Double?
    /// Layout units; nil: fitted to the cell (`CellContent`).
    public var iconSize: Double?
    /// A slider's fill (``SliderFill``): the style's `activeBackground`, else the accent.
    public var sliderColor: CellColor { style.activeBackground ?? Self.accentBackground }
    /// The state's `active` is true.
    public var active: Bool
    /// The state's `enabled` is not false.
    public var enabled: Bool
    /// 1, or `disabledOpacity` for a disabled cell (the whole cell, as the page dims it).
    public var opacity: Double

    /// The page's colours for a cell no style colours (its stylesheet's `.cell`).
    public static let plainBackground = CellColor(red: 0x2a, green: 0x2e, blue: 0x37)
    public static let plainColor = CellColor(red: 0xe8, green: 0xea, blue: 0xed)
    /// The page's accent: an active cell without `activeBackground` or `activeColor`.
    public static let accentBackground = CellColor(red: 0x1f, green: 0x6f, blue: 0xeb)
    public static let accentColor = CellColor(red: 0xff, green: 0xff, blue: 0xff)
    /// A disabled cell's opacity (the page's).
    public static let disabledOpacity = 0.35
    /// The gap around a cell's fill, layout units: the page's transparent 2-unit border, so
    /// neighbouring cells look apart while the cell's rect stays the one hit-tested.
    public static let gap = 2.0

    /// Where a cell's fill goes: `rect` inset by `gap` on each side (by less in a cell too small
    /// for it, never past its middle). A style's border is drawn inside this rect's edge.
    public static func fillRect(_ rect: Rect) -> Rect {
        let dx = min(gap, rect.width / 4), dy = min(gap, rect.height / 4)
        return Rect(x: rect.x + dx, y: rect.y + dy, width: rect.width - 2 * dx, height: rect.height - 2 * dy)
    }

    public static func == (a: CellLook, b: CellLook) -> Bool {
        a.label == b.label && a.icon == b.icon && a.style == b.style && a.background == b.background && a.color == b.color
            && a.radius == b.radius && a.fontSize == b.fontSize && a.iconSize == b.iconSize && a.active == b.active
            && a.enabled == b.enabled && a.opacity == b.opacity
    }

    /// The look of grid `grid` of `tree` in `state`, with the config's `styles`.
    public static func describe(_ tree: GridTree, grid: Int, state: CellState, styles: [String: CellStyle]) -> CellLook {
        describe(name: tree.info(of: grid)?.name, look: tree.look(of: grid), state: state, styles: styles)
    }

    /// The look of a grid named `name` whose own keys are `look`, in `state`.
    /// - A style name the config lacks (a state kept from an older config) counts as no style of
    ///   its own: the cell shows `default`.
    public static func describe(name: String?, look: GridLook?, state: CellState, styles: [String: CellStyle]) -> CellLook {
        let base = styles["default"] ?? CellStyle()
        var own: CellStyle?
        switch state.style.map(StyleReference.named) ?? look?.style {
        case .named(let named)?: own = styles[named]
        case .inline(let inline)?: own = inline
        case nil: own = nil
        }
        let style = own.map { $0.laid(over: base) } ?? base
        let active = state.active == true
        let enabled = !state.isDisabled
        return CellLook(
            label: state.text ?? look?.text ?? name, icon: state.icon ?? look?.icon, style: style,
            background: active ? style.activeBackground ?? accentBackground : style.background ?? plainBackground,
            color: active ? style.activeColor ?? accentColor : style.color ?? plainColor,
            radius: style.radius ?? 0, fontSize: style.fontSize, iconSize: style.iconSize,
            active: active, enabled: enabled, opacity: enabled ? 1 : disabledOpacity)
    }
}
