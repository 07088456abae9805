/// Where a cell's icon and label go inside its rect (docs/panel.md "What a cell shows"): the icon
/// above the label, the two centred together; the icon alone or the label alone centred. Sizes
/// follow the cell unless the style gives them. Centred, so the same in `rtl` layouts.
public struct CellContent: Sendable, Equatable {
    /// The icon's em square (its glyph drawn to fill it), or nil: no icon.
    public var icon: Rect?
    /// The label's centre (the middle of its line), or nil: no label.
    public var labelX: Double?
    public var labelY: Double?
    /// The label's size, layout units.
    public var fontSize: Double

    /// - Parameters:
    ///   - rect: the cell's rect, normalized (no negative sizes).
    ///   - iconShown: whether the icon set has the look's icon (else the label is alone).
    public static func place(_ look: CellLook, in rect: Rect, iconShown: Bool) -> CellContent {
        let w = rect.width, h = rect.height
        let cx = rect.x + w / 2, cy = rect.y + h / 2
        let label = look.label.flatMap { $0.isEmpty ? nil : $0 }
        let characters = Double(max(label?.count ?? 1, 1))
        let fontSize = look.fontSize ?? max(6, min(16, h / 3, w / characters * 1.6)).rounded()
        let hasIcon = iconShown && look.icon != nil
        switch (hasIcon, label != nil) {
        case (true, true):
            let size = look.iconSize ?? min(w * 0.6, h * 0.45)
            let gap = fontSize * 0.25
            let top = cy - (size + gap + fontSize) / 2
            return CellContent(icon: Rect(x: cx - size / 2, y: top, width: size, height: size),
                               labelX: cx, labelY: top + size + gap + fontSize / 2, fontSize: fontSize)
        case (true, false):
            let size = look.iconSize ?? min(w, h) * 0.6
            return CellContent(icon: Rect(x: cx - size / 2, y: cy - size / 2, width: size, height: size), labelX: nil, labelY: nil, fontSize: fontSize)
        case (false, true):
            return CellContent(icon: nil, labelX: cx, labelY: cy, fontSize: fontSize)
        case (false, false):
            return CellContent(icon: nil, labelX: nil, labelY: nil, fontSize: fontSize)
        }
    }
}
