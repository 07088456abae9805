/// Resolves a parsed grid tree to rects (docs/layouts.md "Layout semantics").
///
/// Grids are stored with children contiguous and after their parents, so one forward loop sizes
/// and places every grid's children. RTL layouts are resolved in leading-based coordinates and
/// mirrored at the end, which keeps left/right padding and gravity physical.
public enum Resolver {
    public static func resolve(_ tree: GridTree, in frame: LayoutFrame) -> ResolvedLayout {
        let count = tree.nodes.count
        var rects = [Rect](repeating: .zero, count: count)
        var search = [ResolvedLayout.ChildSearch](repeating: .linear, count: count)
        let rtl = frame.direction == .rtl
        rects[0] = Rect(x: 0, y: 0, width: frame.width, height: frame.height)
        tree.nodes.withUnsafeBufferPointer { nodes in
            rects.withUnsafeMutableBufferPointer { rects in
                for index in 0..<count where nodes[index].childCount > 0 {
                    let style = nodes[index].style >= 0 ? tree.styles[Int(nodes[index].style)] : .plain
                    if nodes[index].axis == .matrix {
                        placeCells(of: index, node: nodes[index], style: style, matrix: tree.matrices[Int(nodes[index].matrix)], rtl: rtl, rects: rects)
                    } else {
                        placeChildren(
                            of: index, node: nodes[index], style: style, nodes: nodes, wrapSizes: tree.wrapSizes, rtl: rtl,
                            scale: frame.scale, rects: rects)
                    }
                }
                if rtl {
                    for index in 0..<count { rects[index].x = frame.width - rects[index].x - rects[index].width }
                }
                search.withUnsafeMutableBufferPointer { search in
                    for index in 0..<count where nodes[index].childCount >= minimumForSearch {
                        search[index] = childSearch(of: nodes[index], rects: UnsafeBufferPointer(rects))
                    }
                }
            }
        }
        return ResolvedLayout(tree: tree, frame: frame, rects: rects, childSearch: search)
    }

    /// Below this many children a linear scan is as fast as a search.
    static let minimumForSearch: Int32 = 8

    /// MyLayout's `_myCGFloatRound`: half up to the pixel grid, negatives half away from zero.
    @inline(__always)
    static func roundToPixel(_ value: Double, scale: Double) -> Double {
        if value > 0 { return (value * scale + 0.5).rounded(.down) / scale }
        if value < 0 { return (value * scale - 0.5).rounded(.up) / scale }
        return 0
    }

    /// Sizes and places the children of a `rows` or `cols` grid (docs/grid-semantics.md, section 2.1; gravity, section 3).
    static func placeChildren(
        of index: Int, node: GridNode, style: GridStyle, nodes: UnsafeBufferPointer<GridNode>, wrapSizes: [Double],
        rtl: Bool, scale: Double, rects: UnsafeMutableBufferPointer<Rect>
    ) {
        let rect = rects[index]
        let alongX = node.axis == .cols
        let pad = style.padding
        let spacing = style.spacing
        let leadingPad = rtl ? pad.right : pad.left
        let trailingPad = rtl ? pad.left : pad.right
        let axisSize = alongX ? rect.width : rect.height
        let padStart = alongX ? leadingPad : pad.top
        let padEnd = alongX ? trailingPad : pad.bottom
        let children = node.children
        let n = Double(node.childCount)
        var fixed = padStart + padEnd + (n - 1) * spacing
        let inner = axisSize - fixed
        var remainingCount = 0
        var fillCount = 0

        // Step 2: fixed, zero, wrap and whole-ratio sizes, in declaration order. A child's axis
        // size is parked in its rect's `width` until positions are known.
        for child in children {
            let size: Double
            switch nodes[child].size {
            case .fixed(let points): size = points
            case .wrap: size = wrapSizes[child]
            case .zero: size = 0
            case .ratio(let ratio): size = ratio * inner
            case .remaining:
                remainingCount += 1
                continue
            case .fill:
                fillCount += 1
                continue
            }
            rects[child].width = size
            fixed += size
        }
        // Steps 3 and 4: remaining ratios, then fills (divided, not multiplied, then rounded).
        var remained = axisSize - fixed
        if remainingCount > 0 {
            for child in children {
                guard case .remaining(let ratio) = nodes[child].size else { continue }
                let size = ratio * remained
                rects[child].width = size
                remained -= size
            }
        }
        if fillCount > 0 {
            var left = fillCount
            for child in children where nodes[child].size == .fill {
                let size = roundToPixel(remained / Double(left), scale: scale)
                rects[child].width = size
                remained -= size
                left -= 1
            }
        }

        // Step 5 and gravity: positions in declaration order, the block moved as a whole.
        var offset = (alongX ? rect.x : rect.y) + padStart
        let shift = gravityShift(style.gravity, alongX: alongX, rtl: rtl)
        if shift > 0 {
            var total = (n - 1) * spacing
            for child in children { total += rects[child].width }
            let free = axisSize - padStart - padEnd - total
            offset += shift == 1 ? free / 2 : free
        }
        // Step 6: every child spans the inner cross size.
        let crossStart = alongX ? rect.y + pad.top : rect.x + leadingPad
        let crossSize = alongX ? rect.height - pad.top - pad.bottom : rect.width - pad.left - pad.right
        for child in children {
            let size = rects[child].width
            rects[child] = alongX
                ? Rect(x: offset, y: crossStart, width: size, height: crossSize)
                : Rect(x: crossStart, y: offset, width: crossSize, height: size)
            offset += size + spacing
        }
    }

    /// 0: start, 1: centre, 2: end (docs/grid-semantics.md section 3; in RTL `left` is a column's end and `right` its start).
    static func gravityShift(_ gravity: Gravity, alongX: Bool, rtl: Bool) -> Int {
        if alongX {
            switch gravity.bits & 0x00FF {
            case Gravity.centerX: return 1
            case Gravity.trailing: return 2
            case Gravity.right: return rtl ? 0 : 2
            case Gravity.left: return rtl ? 2 : 0
            default: return 0
            }
        }
        switch gravity.bits & 0xFF00 {
        case Gravity.centerY: return 1
        case Gravity.bottom: return 2
        default: return 0
        }
    }

    /// Places a matrix's cells in its inner rect (docs/grid-semantics.md section 6), leading-based like everything else.
    static func placeCells(
        of index: Int, node: GridNode, style: GridStyle, matrix: MatrixSpec, rtl: Bool,
        rects: UnsafeMutableBufferPointer<Rect>
    ) {
        let rect = rects[index]
        let pad = style.padding
        let originX = rect.x + (rtl ? pad.right : pad.left)
        let originY = rect.y + pad.top
        let innerWidth = rect.width - pad.left - pad.right
        let innerHeight = rect.height - pad.top - pad.bottom
        let cols = Double(matrix.cols)
        let w: Double, h: Double, margin: Double, inset: Double
        switch matrix.mode {
        case .between(let cellWidth, let cellHeight):
            (w, h) = (cellWidth, cellHeight)
            margin = (innerWidth - cols * w) / (cols - 1)
            inset = 0
        case .evenly(let cellWidth, let cellHeight):
            (w, h) = (cellWidth, cellHeight)
            margin = (innerWidth - cols * w) / (cols + 1)
            inset = margin
        case .margin(let m):
            let rows = Double(matrix.rows)
            w = (innerWidth - m * (cols + 1)) / cols
            h = (innerHeight - m * (rows + 1)) / rows
            margin = m
            inset = m
        }
        let first = Int(node.firstChild)
        for i in 0..<matrix.count {
            let row = Double(i / matrix.cols)
            let col = Double(i % matrix.cols)
            rects[first + i] = Rect(
                x: originX + inset + col * (w + margin), y: originY + inset + row * (h + margin), width: w, height: h)
        }
    }

    /// Whether a grid's children can be searched rather than scanned: only when no two overlap.
    static func childSearch(of node: GridNode, rects: UnsafeBufferPointer<Rect>) -> ResolvedLayout.ChildSearch {
        let first = Int(node.firstChild)
        let count = Int(node.childCount)
        if node.axis == .matrix {
            // Cells in row-major order; disjoint when sizes are non-negative and strides exceed them.
            let cell = rects[first]
            guard cell.width >= 0, cell.height >= 0 else { return .linear }
            for i in 1..<count {
                let previous = rects[first + i - 1], current = rects[first + i]
                let sameRow = current.y == previous.y
                if sameRow {
                    let gap = abs(current.x - previous.x)
                    if gap < cell.width { return .linear }
                } else if current.y - previous.y < cell.height {
                    return .linear
                }
            }
            return .matrix
        }
        let alongX = node.axis == .cols
        var ascending = true
        var descending = alongX
        for i in first..<(first + count) {
            let r = rects[i]
            let size = alongX ? r.width : r.height
            if size < 0 { return .linear }
            guard i + 1 < first + count else { break }
            let next = rects[i + 1]
            let start = alongX ? r.x : r.y
            let nextStart = alongX ? next.x : next.y
            let nextSize = alongX ? next.width : next.height
            if start + size > nextStart { ascending = false }
            if nextStart + nextSize > start { descending = false }
            if !ascending && !descending { return .linear }
        }
        if ascending { return alongX ? .ascendingX : .ascendingY }
        return descending ? .descendingX : .linear
    }
}
