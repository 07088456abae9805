import TapgridCore

/// `tapgrid show --format svg`: the layout to scale, for a browser. Every grid outlined,
/// hittable grids shaded, leaves labelled with their name or tag, borderlines drawn.
enum SVGRenderer {
    static func render(_ layout: LoadedLayout) -> String {
        let tree = layout.tree
        let rects = layout.resolved.rects
        let width = formatNumber(layout.frame.width), height = formatNumber(layout.frame.height)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif">
            <title>tapgrid layout \(escape(layout.name))</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>

            """
        for index in tree.preorder() {
            let rect = normalized(rects[index])
            guard rect.width > 0 || rect.height > 0 else { continue }
            let node = tree.nodes[index]
            let path = tree.path(of: index)
            let fill = node.hittable ? "#4a90d9" : "none"
            let opacity = node.hittable ? " fill-opacity=\"0.18\"" : ""
            svg += "<rect x=\"\(formatNumber(rect.x))\" y=\"\(formatNumber(rect.y))\" width=\"\(formatNumber(rect.width))\" height=\"\(formatNumber(rect.height))\" fill=\"\(fill)\"\(opacity) stroke=\"#555555\" stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"><title>\(escape(path.isEmpty ? "(root)" : path))</title></rect>\n"
        }
        for index in tree.preorder() {
            if let lines = tree.borderlines[Int32(index)] {
                svg += borderlines(lines, rect: normalized(rects[index]), scale: layout.frame.scale)
            }
            guard let info = tree.info(of: index) else { continue }
            let rect = normalized(rects[index])
            guard tree.nodes[index].childCount == 0, rect.width > 0, rect.height > 0 else { continue }
            let label = info.name ?? (info.tag != 0 ? "tag \(info.tag)" : nil)
            guard let label else { continue }
            let size = max(6, min(16, rect.height / 3, rect.width / Double(max(label.count, 1)) * 1.6))
            svg += "<text x=\"\(formatNumber(rect.x + rect.width / 2))\" y=\"\(formatNumber(rect.y + rect.height / 2))\" font-size=\"\(formatNumber(size.rounded()))\" text-anchor=\"middle\" dy=\"0.35em\" fill=\"#1b1b1b\">\(escape(label))</text>\n"
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
