import TapgridCore

/// `tapgrid show --format svg`: the layout to scale, for a browser. Every grid outlined,
/// hittable grids shaded, leaves labelled with their name or tag, borderlines drawn. With
/// `--socket`, the daemon's layout as a panel shows it: each cell labelled with its state text
/// (else its name or tag), active cells filled, disabled ones dimmed.
enum SVGRenderer {
    /// One grid as drawn: its outline (filled or not), then its borderlines and label.
    struct Cell {
        /// Normalized (no negative sizes).
        var rect: Rect
        var fill = "none"
        /// The `fill-opacity` attribute's text, when the fill has one.
        var fillOpacity: String? = nil
        /// The outline's tooltip: the grid path (and, drawn from the daemon, its state).
        var title: String
        var borderlines: [Borderline]? = nil
        /// Drawn in the middle of the rect when it has an area.
        var label: String? = nil
        var labelColor = "#1b1b1b"
    }

    /// The config's layout, offline.
    static func render(_ layout: LoadedLayout) -> String {
        let tree = layout.tree
        let cells = tree.preorder().map { index in
            let node = tree.nodes[index]
            let info = tree.info(of: index)
            let path = tree.path(of: index)
            var cell = Cell(rect: normalized(layout.resolved.rects[index]), title: path.isEmpty ? "(root)" : path)
            if node.hittable {
                cell.fill = "#4a90d9"
                cell.fillOpacity = "0.18"
            }
            cell.borderlines = tree.borderlines[Int32(index)]
            if let info, node.childCount == 0 { cell.label = info.name ?? (info.tag != 0 ? "tag \(info.tag)" : nil) }
            return cell
        }
        return render(
            title: "tapgrid layout \(layout.name)", width: layout.frame.width, height: layout.frame.height,
            scale: layout.frame.scale, cells: cells)
    }

    /// Active cells: filled as a lit button.
    static let activeFill = "#f5a623"
    /// Disabled cells: greyed, their label dimmed.
    static let disabledFill = "#9e9e9e", disabledLabel = "#777777"

    /// A layout of the daemon's `layouts` reply with state: what its panel shows.
    static func render(_ layout: LayoutsReply.Layout) -> String {
        var parents: Set<String> = []
        for grid in layout.grids where !grid.path.isEmpty {
            parents.insert(grid.path.lastIndex(of: "/").map { String(grid.path[..<$0]) } ?? "")
        }
        let cells = layout.grids.map { grid in
            let state = grid.state
            var cell = Cell(rect: normalized(grid.rect), title: stateTitle(grid))
            if state.isDisabled {
                cell.fill = state.active == true ? activeFill : disabledFill
                cell.fillOpacity = state.active == true ? "0.25" : "0.45"
                cell.labelColor = disabledLabel
            } else if state.active == true {
                cell.fill = activeFill
                cell.fillOpacity = "0.55"
            }
            if state.text != nil || !parents.contains(grid.path) {
                cell.label = state.text ?? grid.name ?? grid.tag.map { "tag \($0)" }
            }
            return cell
        }
        return render(
            title: "tapgrid layout \(layout.name), cell state from the daemon", width: layout.width, height: layout.height,
            scale: 1, cells: cells)
    }

    /// `0/1 "volume": text "42 %", active, disabled, value 42, toggle`: a grid and its state, for its tooltip.
    static func stateTitle(_ grid: LayoutsReply.Grid) -> String {
        var title = HumanText.gridLabel(grid.path) + (grid.name.map { " \(jsonEscaped($0))" } ?? "")
        var parts: [String] = []
        if let text = grid.state.text { parts.append("text \(jsonEscaped(text))") }
        if let active = grid.state.active { parts.append(active ? "active" : "inactive") }
        if grid.state.isDisabled { parts.append("disabled") }
        if let value = grid.state.valueJSON { parts.append("value \(value)") }
        if grid.toggle { parts.append("toggle") }
        if !parts.isEmpty { title += ": " + parts.joined(separator: ", ") }
        return title
    }

    static func render(title: String, width w: Double, height h: Double, scale: Double, cells: [Cell]) -> String {
        let width = formatNumber(w), height = formatNumber(h)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif">
            <title>\(escape(title))</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>

            """
        for cell in cells {
            let rect = cell.rect
            guard rect.width > 0 || rect.height > 0 else { continue }
            let opacity = cell.fillOpacity.map { " fill-opacity=\"\($0)\"" } ?? ""
            svg += "<rect x=\"\(formatNumber(rect.x))\" y=\"\(formatNumber(rect.y))\" width=\"\(formatNumber(rect.width))\" height=\"\(formatNumber(rect.height))\" fill=\"\(cell.fill)\"\(opacity) stroke=\"#555555\" stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"><title>\(escape(cell.title))</title></rect>\n"
        }
        for cell in cells {
            if let lines = cell.borderlines { svg += borderlines(lines, rect: cell.rect, scale: scale) }
            let rect = cell.rect
            guard let label = cell.label, rect.width > 0, rect.height > 0 else { continue }
            let size = max(6, min(16, rect.height / 3, rect.width / Double(max(label.count, 1)) * 1.6))
            svg += "<text x=\"\(formatNumber(rect.x + rect.width / 2))\" y=\"\(formatNumber(rect.y + rect.height / 2))\" font-size=\"\(formatNumber(size.rounded()))\" text-anchor=\"middle\" dy=\"0.35em\" fill=\"\(cell.labelColor)\">\(escape(label))</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// Borderline geometry as MyLayout draws it; `thick` is in pixels, so divided by the layout's
    /// scale. Left and right stay physical in RTL.
    static func borderlines(_ lines: [Borderline], rect r: Rect, scale: Double) -> String {
        var text = ""
        for line in lines {
            let t = line.thick / scale
            let box: Rect
            switch line.edge {
            case .left: box = Rect(x: r.x + line.offset, y: r.y + line.head, width: t, height: r.height - line.head - line.tail)
            case .right: box = Rect(x: r.x + r.width - t - line.offset, y: r.y + line.head, width: t, height: r.height - line.head - line.tail)
            case .top: box = Rect(x: r.x + line.head, y: r.y + line.offset, width: r.width - line.head - line.tail, height: t)
            case .bottom: box = Rect(x: r.x + line.head, y: r.y + r.height - t - line.offset, width: r.width - line.head - line.tail, height: t)
            }
            guard box.width > 0, box.height > 0 else { continue }
            let (color, alpha) = svgColor(line.color)
            let dash = line.dash > 0 ? " stroke-dasharray=\"\(formatNumber(line.dash)) \(formatNumber(line.dash))\"" : ""
            if line.dash > 0 {
                // A dashed line is a stroke along the box's long axis.
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

    /// MyLayout colours: `#RRGGBB`, `#AARRGGBB` (9 characters) or a name SVG also knows.
    static func svgColor(_ color: String) -> (String, Double) {
        let hex = Array(color.utf8.dropFirst())
        if color.hasPrefix("#"), hex.count == 8, let alpha = UInt8(String(decoding: hex[0..<2], as: UTF8.self), radix: 16) {
            return ("#" + String(decoding: hex[2...], as: UTF8.self), Double(alpha) / 255)
        }
        let safe = color.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 35 }
        if color.lowercased() == "clear" { return ("#000000", 0) }
        return (safe && !color.isEmpty ? color : "#000000", 1)
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
