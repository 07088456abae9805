import TapgridCore

/// `tapgrid show --format json|table`: every grid in pre-order with its rect and routing.
enum LayoutRendering {
    /// The exact shape README "Commands" documents: `{"layout", "width", "height", "direction", "grids": [...]}`.
    static func json(_ layout: LoadedLayout, config: Config) -> String {
        var out: [UInt8] = []
        let tree = layout.tree
        out.append(contentsOf: #"{"layout": "#.utf8)
        JSONWriter.appendString(layout.name, to: &out)
        out.append(contentsOf: #", "width": "#.utf8)
        JSONWriter.appendNumber(layout.frame.width, to: &out)
        out.append(contentsOf: #", "height": "#.utf8)
        JSONWriter.appendNumber(layout.frame.height, to: &out)
        out.append(contentsOf: #", "direction": "#.utf8)
        JSONWriter.appendString(layout.frame.direction.rawValue, to: &out)
        out.append(contentsOf: #", "grids": ["#.utf8)
        for (position, index) in tree.preorder().enumerated() {
            out.append(contentsOf: (position == 0 ? "\n  " : ",\n  ").utf8)
            let info = tree.info(of: index)
            let rect = layout.resolved.rects[index]
            out.append(contentsOf: #"{"path": ""#.utf8)
            tree.appendPath(of: index, to: &out)
            out.append(contentsOf: #"", "name": "#.utf8)
            appendOptional(info?.name, to: &out)
            out.append(contentsOf: #", "rect": ["#.utf8)
            for (i, value) in [rect.x, rect.y, rect.width, rect.height].enumerated() {
                if i > 0 { out.append(contentsOf: ", ".utf8) }
                JSONWriter.appendNumber(value, to: &out)
            }
            out.append(contentsOf: #"], "tag": "#.utf8)
            if let tag = info?.tag, tag != 0 { JSONWriter.appendInt(tag, to: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: #", "actionData": "#.utf8)
            out.append(contentsOf: (info?.actionDataJSON ?? "null").utf8)
            out.append(contentsOf: #", "hittable": "#.utf8)
            out.append(contentsOf: (tree.nodes[index].hittable ? "true" : "false").utf8)
            out.append(contentsOf: #", "handler": "#.utf8)
            appendOptional(tree.nodes[index].hittable ? info.flatMap { config.handlerName($0.handler) } : nil, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "\n]}\n".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendOptional(_ text: String?, to out: inout [UInt8]) {
        if let text { JSONWriter.appendString(text, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    /// Aligned columns for people: path, name, rect (at most two decimals; JSON is exact), tag,
    /// handler (then `long: ...`, `hold: ...`, `double: ...` for grids that route those classes), actionData.
    static func table(_ layout: LoadedLayout, config: Config) -> String {
        let tree = layout.tree
        var rows: [[String]] = [["PATH", "NAME", "X", "Y", "WIDTH", "HEIGHT", "TAG", "HANDLER", "ACTION DATA"]]
        for index in tree.preorder() {
            let info = tree.info(of: index)
            let rect = layout.resolved.rects[index]
            let depth = depthOf(index, in: tree)
            let path = String(repeating: "  ", count: depth) + HumanText.gridLabel(tree.path(of: index))
            let hittable = tree.nodes[index].hittable
            var handler = hittable ? (info.flatMap { config.handlerName($0.handler) } ?? "(unrouted)") : "-"
            // Tap classes beyond `tap`, so a person sees which grids act on a long press, a hold or a double tap.
            if hittable, let classes = layout.classHandlers[Int(tree.nodes[index].info)] {
                for tapClass in [TapClass.long, .hold, .double] where classes[tapClass] >= 0 {
                    handler += ", \(tapClass.name): \(config.handlerName(classes[tapClass]) ?? "-")"
                }
            }
            rows.append([
                path, info?.name ?? "-", formatForPeople(rect.x), formatForPeople(rect.y), formatForPeople(rect.width),
                formatForPeople(rect.height), info.map { $0.tag != 0 ? String($0.tag) : "-" } ?? "-", handler,
                info?.actionData.map { truncate($0.compactJSON) } ?? "-",
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let numeric: Set<Int> = [2, 3, 4, 5, 6]
        var text = "layout \(jsonEscaped(layout.name)): \(formatForPeople(layout.frame.width))x\(formatForPeople(layout.frame.height)) \(layout.frame.direction.rawValue), \(counted(tree.count, "grid"))\n"
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == row.count - 1 ? cell : (numeric.contains(column) ? pad + cell : cell + pad)
            }
            text += cells.joined(separator: "  ") + "\n"
        }
        return text
    }

    static func depthOf(_ index: Int, in tree: GridTree) -> Int {
        var depth = 0
        var node = index
        while tree.nodes[node].parent >= 0 {
            depth += 1
            node = Int(tree.nodes[node].parent)
        }
        return depth
    }

    static func truncate(_ text: String, to limit: Int = 40) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
