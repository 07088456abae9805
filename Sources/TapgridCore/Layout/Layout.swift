extension ResolvedLayout {
    /// Warnings `tapgrid check` gives for a resolved layout (docs/grid-semantics.md, sections 2.1 and 7): every grid but the
    /// root with a negative width or height, and every pair of siblings whose rects intersect with
    /// positive area, except the cells of a matrix with a negative margin (the parser's one warning
    /// about that margin says they overlap).
    public func geometryWarnings(layout: String) -> [Diagnostic] {
        var warnings: [Diagnostic] = []
        for index in 1..<max(count, 1) {
            let r = rects[index]
            if r.width < 0 || r.height < 0 {
                warnings.append(Diagnostic(.warning, layout: layout, gridPath: tree.path(of: index),
                    "resolved size is negative (\(formatForPeople(r.width)) x \(formatForPeople(r.height))): its siblings overflow the parent"))
            }
        }
        for index in 0..<count where tree.nodes[index].childCount > 1 {
            let children = tree.nodes[index].children
            if childSearch[index] != .linear { continue }  // proven disjoint when resolved
            if hasNegativeMargin(index) { continue }
            let normalized = children.map { normalize(rects[$0]) }
            // Sort by start on x to prune pairs; siblings are few unless they were proven disjoint.
            let order = normalized.indices.sorted { normalized[$0].x < normalized[$1].x }
            for (position, a) in order.enumerated() {
                for b in order[(position + 1)...] {
                    if normalized[b].x >= normalized[a].x + normalized[a].width { break }
                    if intersects(normalized[a], normalized[b]) {
                        let (first, second) = (min(a, b), max(a, b))
                        warnings.append(Diagnostic(.warning, layout: layout, gridPath: tree.path(of: children.lowerBound + first),
                            "overlaps its sibling \(tree.path(of: children.lowerBound + second)); taps in the overlap go to the first"))
                    }
                }
            }
        }
        return warnings
    }

    /// Whether the grid is a matrix whose `margin` is negative.
    func hasNegativeMargin(_ index: Int) -> Bool {
        let slot = tree.nodes[index].matrix
        guard slot >= 0, case .margin(let margin) = tree.matrices[Int(slot)].mode else { return false }
        return margin < 0
    }

    func normalize(_ r: Rect) -> Rect {
        Rect(x: r.width < 0 ? r.x + r.width : r.x, y: r.height < 0 ? r.y + r.height : r.y,
             width: abs(r.width), height: abs(r.height))
    }

    func intersects(_ a: Rect, _ b: Rect) -> Bool {
        min(a.x + a.width, b.x + b.width) > max(a.x, b.x) && min(a.y + a.height, b.y + b.height) > max(a.y, b.y)
    }
}

/// Shortest decimal for people and JSON: `120`, `120.5`.
public func formatNumber(_ value: Double) -> String {
    var out: [UInt8] = []
    JSONWriter.appendNumber(value, to: &out)
    return String(decoding: out, as: UTF8.self)
}

/// A number for people: rounded to at most two decimals (`33.333333333333336` -> `33.33`), no
/// negative zero. Where a value must be exact (JSON, SVG, replayed taps) use ``formatNumber(_:)``.
public func formatForPeople(_ value: Double) -> String {
    guard value.isFinite, abs(value) < 1e15 else { return formatNumber(value) }
    let rounded = (value * 100).rounded() / 100
    return formatNumber(rounded == 0 ? 0 : rounded)
}

/// `1 layout`, `2 layouts`, `0 grids`: a count with its noun, plural when not 1.
public func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
