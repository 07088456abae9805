import TapgridCore

/// `tapgrid show --format svg`: the layout to scale, for a browser. Every grid that is not a cell
/// outlined and its leaves labelled with their name or tag; each hittable grid drawn as the panel
/// draws it, from the core's `CellLook` (docs/panel.md "What a cell shows"): its fill, border and
/// radius, its icon's glyph above its label (or alone), its colours; borderlines drawn. With
/// `--socket`, the daemon's layout with every cell's state: its text, icon and style, active and
/// disabled as the panel shows them.
enum SVGRenderer {
    /// One grid as drawn: a cell (`look`) or an outline, then its borderlines and label.
    struct Cell {
        /// Normalized (no negative sizes).
        var rect: Rect
        /// The outline's or the cell's tooltip: the grid path (and, drawn from the daemon, its state).
        var title: String
        var borderlines: [Borderline]? = nil
        /// A cell as the panel shows it; nil: an outline.
        var look: CellLook? = nil
        /// The look's icon's outline, when the icon set has it.
        var glyph: String? = nil
        /// A slider's fill (``SliderFill``), drawn over the cell's own.
        var slider: SliderFill? = nil
        /// An outline's label, or a cell's when it has neither label nor icon (`tag N`): drawn in
        /// the middle of the rect when it has an area.
        var label: String? = nil
    }

    /// The config's layout, offline, drawn with the config's styles and `icons`.
    static func render(_ layout: LoadedLayout, styles: [String: CellStyle] = [:], icons: IconSet? = nil) -> String {
        let tree = layout.tree
        let cells = tree.preorder().map { index in
            let node = tree.nodes[index]
            let info = tree.info(of: index)
            let path = tree.path(of: index)
            var cell = Cell(rect: normalized(layout.resolved.rects[index]), title: path.isEmpty ? "(root)" : path)
            cell.borderlines = tree.borderlines[Int32(index)]
            if node.hittable {
                let look = CellLook.describe(tree, grid: index, state: CellState(), styles: styles)
                cell.look = look
                if let spec = tree.sliders[Int32(index)] {
                    cell.slider = SliderFill(SliderPlace(spec: spec, rect: cell.rect, direction: layout.frame.direction), valueJSON: nil)
                }
                cell.glyph = look.icon.flatMap { icons?.outline($0) }
                if look.label == nil && cell.glyph == nil, let tag = info?.tag, tag != 0 { cell.label = "tag \(tag)" }
            } else if let info, node.childCount == 0 {
                cell.label = info.name ?? (info.tag != 0 ? "tag \(info.tag)" : nil)
            }
            return cell
        }
        return render(
            title: "tapgrid layout \(layout.name)", width: layout.frame.width, height: layout.frame.height,
            scale: layout.frame.scale, cells: cells, icons: icons)
    }

    /// A layout of the daemon's `layouts` reply with state: what its panel shows. The reply
    /// carries no grid's `text`, `icon` or `style` nor the config's styles: a cell shows its
    /// state's text (else its name), the state's icon, and the page's colours.
    static func render(_ layout: LayoutsReply.Layout, icons: IconSet? = nil) -> String {
        var parents: Set<String> = []
        for grid in layout.grids where !grid.path.isEmpty {
            parents.insert(grid.path.lastIndex(of: "/").map { String(grid.path[..<$0]) } ?? "")
        }
        let cells = layout.grids.map { grid in
            var cell = Cell(rect: normalized(grid.rect), title: stateTitle(grid))
            if !grid.state.isEmpty || !parents.contains(grid.path) {
                let look = CellLook.describe(name: grid.name, look: nil, state: grid.state, styles: [:])
                cell.look = look
                if var place = grid.slider {
                    place.rect = cell.rect
                    cell.slider = SliderFill(place, valueJSON: grid.state.valueJSON)
                }
                cell.glyph = look.icon.flatMap { icons?.outline($0) }
                if look.label == nil && cell.glyph == nil, let tag = grid.tag { cell.label = "tag \(tag)" }
            }
            return cell
        }
        return render(
            title: "tapgrid layout \(layout.name), cell state from the daemon", width: layout.width, height: layout.height,
            scale: 1, cells: cells, icons: icons)
    }

    /// `0/1 "volume": text "42 %", active, disabled, value 42, toggle`: a grid and its state, for its tooltip.
    static func stateTitle(_ grid: LayoutsReply.Grid) -> String {
        var title = HumanText.gridLabel(grid.path) + (grid.name.map { " \(jsonEscaped($0))" } ?? "")
        var parts: [String] = []
        if let text = grid.state.text { parts.append("text \(jsonEscaped(text))") }
        if let active = grid.state.active { parts.append(active ? "active" : "inactive") }
        if grid.state.isDisabled { parts.append("disabled") }
        if let value = grid.state.valueJSON { parts.append("value \(value)") }
        if let icon = grid.state.icon { parts.append("icon \(jsonEscaped(icon))") }
        if let style = grid.state.style { parts.append("style \(jsonEscaped(style))") }
        if grid.toggle { parts.append("toggle") }
        if !parts.isEmpty { title += ": " + parts.joined(separator: ", ") }
        return title
    }

    static func render(title: String, width w: Double, height h: Double, scale: Double, cells: [Cell], icons: IconSet?) -> String {
        let width = formatNumber(w), height = formatNumber(h)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif">
            <title>\(escape(title))</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>

            """
        for cell in cells {
            let rect = cell.rect
            guard rect.width > 0 || rect.height > 0 else { continue }
            if let look = cell.look {
                svg += cellRect(look, rect: rect, title: cell.title)
                if let slider = cell.slider { svg += sliderRect(slider, look: look, rect: rect) }
            } else {
                svg += "<rect \(box(rect)) fill=\"none\" stroke=\"#555555\" stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"><title>\(escape(cell.title))</title></rect>\n"
            }
        }
        for cell in cells {
            if let lines = cell.borderlines { svg += borderlines(lines, rect: cell.rect, scale: scale) }
            let rect = cell.rect
            guard rect.width > 0, rect.height > 0 else { continue }
            if let look = cell.look {
                svg += content(look, glyph: cell.glyph, fallback: cell.label, rect: rect, icons: icons)
            } else if let label = cell.label {
                let size = max(6, min(16, rect.height / 3, rect.width / Double(max(label.count, 1)) * 1.6))
                svg += text(label, x: rect.x + rect.width / 2, y: rect.y + rect.height / 2, size: size.rounded(), fill: " fill=\"#1b1b1b\"")
            }
        }
        return svg + "</svg>\n"
    }

    /// A cell's fill: its rect inset by the page's gap (`CellLook.fillRect`), its corners rounded;
    /// a border is a stroke inside that edge (the rect inset by half its thickness). A disabled
    /// cell's every part is drawn at its opacity.
    static func cellRect(_ look: CellLook, rect: Rect, title: String) -> String {
        var fill = CellLook.fillRect(rect)
        var radius = look.radius
        var stroke = ""
        if let border = look.border {
            let t = min(border.thick, fill.width / 2, fill.height / 2)
            fill = Rect(x: fill.x + t / 2, y: fill.y + t / 2, width: fill.width - t, height: fill.height - t)
            radius = max(0, radius - t / 2)
            stroke = " stroke=\"\(border.color.rgbHex)\"\(opacity("stroke-opacity", border.color.opacity)) stroke-width=\"\(formatNumber(t))\""
        }
        let corner = radius > 0 ? " rx=\"\(formatNumber(radius))\"" : ""
        return "<rect \(box(fill))\(corner) fill=\"\(look.background.rgbHex)\"\(opacity("fill-opacity", look.background.opacity))\(stroke)\(opacity("opacity", look.opacity))><title>\(escape(title))</title></rect>\n"
    }

    /// A slider's fill over the cell's, in the look's `sliderColor`, its corners as the cell's;
    /// nothing for an empty one.
    static func sliderRect(_ slider: SliderFill, look: CellLook, rect: Rect) -> String {
        let covered = slider.rect(in: rect)
        guard covered.width > 0, covered.height > 0 else { return "" }
        let radius = min(look.radius, covered.width / 2, covered.height / 2)
        let corner = radius > 0 ? " rx=\"\(formatNumber(radius))\"" : ""
        let color = look.sliderColor
        return "<rect class=\"slider-fill\" \(box(covered))\(corner) fill=\"\(color.rgbHex)\"\(opacity("fill-opacity", color.opacity))\(opacity("opacity", look.opacity))/>\n"
    }

    /// The icon's glyph (scaled into its box, flipped to y down) and the label, where
    /// `CellContent` places them, in the look's colour.
    static func content(_ look: CellLook, glyph: String?, fallback: String?, rect: Rect, icons: IconSet?) -> String {
        var labelled = look
        if labelled.label == nil { labelled.label = fallback }
        let placed = CellContent.place(labelled, in: rect, iconShown: glyph != nil)
        let paint = " fill=\"\(look.color.rgbHex)\"" + opacity("fill-opacity", look.color.opacity) + opacity("opacity", look.opacity)
        var out = ""
        if let glyph, let box = placed.icon, let icons {
            let at = icons.placement(in: box)
            out += "<path d=\"\(escape(glyph))\" transform=\"translate(\(formatNumber(at.x)) \(formatNumber(at.y))) scale(\(formatNumber(at.scale)) \(formatNumber(-at.scale)))\"\(paint)/>\n"
        }
        if let label = labelled.label, let x = placed.labelX, let y = placed.labelY {
            out += text(label, x: x, y: y, size: placed.fontSize, fill: paint)
        }
        return out
    }

    static func text(_ label: String, x: Double, y: Double, size: Double, fill: String) -> String {
        "<text x=\"\(formatNumber(x))\" y=\"\(formatNumber(y))\" font-size=\"\(formatNumber(size))\" text-anchor=\"middle\" dy=\"0.35em\"\(fill)>\(escape(label))</text>\n"
    }

    static func box(_ r: Rect) -> String {
        "x=\"\(formatNumber(r.x))\" y=\"\(formatNumber(r.y))\" width=\"\(formatNumber(r.width))\" height=\"\(formatNumber(r.height))\""
    }

    /// ` name="value"`, or nothing when the value is 1 (opaque).
    static func opacity(_ name: String, _ value: Double) -> String {
        value < 1 ? " \(name)=\"\(formatNumber((value * 1000).rounded() / 1000))\"" : ""
    }

    /// The core's borderline segments (`BorderlineSegment`, the page's too): a solid line a
    /// filled rect, a dashed one a stroke along the box's long axis.
    static func borderlines(_ lines: [Borderline], rect r: Rect, scale: Double) -> String {
        var text = ""
        for segment in BorderlineSegment.segments(lines, rect: r, scale: scale) {
            let box = segment.box, color = segment.color, alpha = segment.opacity, t = segment.thick
            if segment.dash > 0 {
                let dash = " stroke-dasharray=\"\(formatNumber(segment.dash)) \(formatNumber(segment.dash))\""
                let horizontal = box.width >= box.height
                let (x1, y1, x2, y2) = horizontal
                    ? (box.x, box.y + box.height / 2, box.x + box.width, box.y + box.height / 2)
                    : (box.x + box.width / 2, box.y, box.x + box.width / 2, box.y + box.height)
                text += "<line x1=\"\(formatNumber(x1))\" y1=\"\(formatNumber(y1))\" x2=\"\(formatNumber(x2))\" y2=\"\(formatNumber(y2))\" stroke=\"\(color)\" stroke-opacity=\"\(formatNumber(alpha))\" stroke-width=\"\(formatNumber(t))\"\(dash)/>\n"
            } else {
                text += "<rect x=\"\(formatNumber(box.x))\" y=\"\(formatNumber(box.y))\" width=\"\(formatNumber(box.width))\" height=\"\(formatNumber(box.height))\" fill=\"\(color)\" fill-opacity=\"\(formatNumber(alpha))\"/>\n"
            }
        }
        return text
    }

    static func normalized(_ r: Rect) -> Rect {
        Rect(x: r.width < 0 ? r.x + r.width : r.x, y: r.height < 0 ? r.y + r.height : r.y, width: abs(r.width), height: abs(r.height))
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
