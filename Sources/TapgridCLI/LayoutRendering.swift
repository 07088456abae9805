import TapgridCore

/// `tapgrid show --format json|table`: every grid in pre-order with its rect and routing.
enum LayoutRendering {
    /// The exact shape docs/commands.md "Commands" documents: `{"layout", "width", "height", "direction", "grids": [...]}`.
    static func json(_ layout: LoadedLayout, config: Config) -> String {
        let tree = layout.tree
        var object = JSONObjectWriter(.spaced)
        object.string("layout", layout.name)
        object.number("width", layout.frame.width)
        object.number("height", layout.frame.height)
        object.string("direction", layout.frame.direction.rawValue)
        object.objectLines("grids", tree.preorder().map { index in
            let info = tree.info(of: index)
            let rect = layout.resolved.rects[index]
            let hittable = tree.nodes[index].hittable
            var grid = JSONObjectWriter(.spaced)
            grid.string("path", tree.path(of: index))
            grid.string("name", info?.name)
            grid.numbers("rect", [rect.x, rect.y, rect.width, rect.height])
            grid.int("tag", info.flatMap { $0.tag != 0 ? $0.tag : nil })
            if let actionData = info?.actionDataJSON { grid.json("actionData", actionData) } else { grid.null("actionData") }
            grid.bool("hittable", hittable)
            grid.string("handler", hittable ? info.flatMap { config.handlerName($0.handler) } : nil)
            return grid
        })
        return object.text + "\n"
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
