extension ResolvedLayout {
    /// The grid a tap at (x, y) hits (docs/layouts.md "Layout semantics"): the deepest hittable grid that
    /// contains the point, the first sibling in declaration order winning where siblings overlap.
    ///
    /// Cost is about depth times log(fan-out): matrix cells are found by arithmetic and wide
    /// disjoint child lists by binary search; only overlapping siblings are scanned.
    /// - Returns: the grid's index, or nil for a miss. Callers must pass finite coordinates.
    public func hit(x: Double, y: Double) -> Int? {
        tree.nodes.withUnsafeBufferPointer { nodes in
            rects.withUnsafeBufferPointer { rects in
                childSearch.withUnsafeBufferPointer { search in
                    tree.matrices.withUnsafeBufferPointer { matrices in
                        let walker = HitWalker(nodes: nodes, rects: rects, search: search, matrices: matrices, x: x, y: y)
                        let found = walker.hit(0)
                        return found >= 0 ? found : nil
                    }
                }
            }
        }
    }

    /// The same answer by brute force (docs/grid-semantics.md section 5's pseudocode, every child tried): the reference
    /// that tests and benchmarks compare `hit` against.
    public func hitByScan(x: Double, y: Double) -> Int? {
        func visit(_ index: Int) -> Int? {
            guard rects[index].contains(x: x, y: y) else { return nil }
            for child in tree.nodes[index].children {
                if let found = visit(child) { return found }
            }
            return tree.nodes[index].hittable ? index : nil
        }
        return visit(0)
    }
}

/// One hit-test walk over borrowed buffers; no allocation.
struct HitWalker {
    let nodes: UnsafeBufferPointer<GridNode>
    let rects: UnsafeBufferPointer<Rect>
    let search: UnsafeBufferPointer<ResolvedLayout.ChildSearch>
    let matrices: UnsafeBufferPointer<MatrixSpec>
    let x: Double
    let y: Double

    /// The hit inside grid `index`, or -1.
    func hit(_ index: Int) -> Int {
        guard rects[index].contains(x: x, y: y) else { return -1 }
        let node = nodes[index]
        if node.childCount > 0 {
            let found: Int
            switch search[index] {
            case .linear: found = scan(node.children)
            case .matrix: found = cell(of: node)
            case .ascendingX, .ascendingY, .descendingX: found = bisect(node, search[index])
            }
            if found >= 0 { return found }
        }
        return node.hittable ? index : -1
    }

    /// The first child in declaration order whose subtree yields a hit.
    func scan(_ children: Range<Int>) -> Int {
        for child in children {
            let found = hit(child)
            if found >= 0 { return found }
        }
        return -1
    }

    /// Disjoint children sorted along one axis: only the one whose start is nearest below the
    /// point can contain it.
    func bisect(_ node: GridNode, _ mode: ResolvedLayout.ChildSearch) -> Int {
        var low = Int(node.firstChild)
        var high = low + Int(node.childCount)  // search [low, high)
        switch mode {
        case .ascendingX, .ascendingY:
            // Last child whose start <= point.
            let point = mode == .ascendingX ? x : y
            while low < high {
                let mid = (low + high) >> 1
                let start = mode == .ascendingX ? rects[mid].x : rects[mid].y
                if start <= point { low = mid + 1 } else { high = mid }
            }
            return low > Int(node.firstChild) ? hit(low - 1) : -1
        default:
            // RTL columns: first child whose start <= point.
            let end = high
            while low < high {
                let mid = (low + high) >> 1
                if rects[mid].x <= x { high = mid } else { low = mid + 1 }
            }
            return low < end ? hit(low) : -1
        }
    }

    /// Matrix cells are uniform: work out the row and column, then check the neighbours that
    /// floating-point rounding could also make candidates.
    func cell(of node: GridNode) -> Int {
        let first = Int(node.firstChild)
        let count = Int(node.childCount)
        let cols = matrices[Int(node.matrix)].cols
        // Columns that hold cells: `cols` itself may be near Int.max, so bound it by `count`
        // before any arithmetic or conversion.
        let usedCols = min(cols, count)
        let origin = rects[first]
        let strideX = cols > 1 ? rects[first + 1].x - origin.x : 0
        let strideY = count > cols ? rects[first + cols].y - origin.y : 0
        // Clamped before converting: a point far outside (tiny strides) must not trap in Int().
        // `count + 1` bounds the rows (`rows` itself takes an integer division, left to the rare
        // path below: two of them were a tenth of a pipelined run's time, `perf record`).
        let column = strideX != 0 ? Self.floor(((x - origin.x) / strideX).clamped(-2, Double(usedCols + 1))) : 0
        let row = strideY != 0 ? Self.floor(((y - origin.y) / strideY).clamped(-2, Double(count + 1))) : 0
        // The cells are disjoint (`.matrix` is only chosen then), so at most one contains the
        // point and the order they are tried in does not matter: the computed cell first, as it
        // nearly always is the one; its neighbours only when rounding put the point next door.
        if row >= 0, column >= 0, column < usedCols, row * cols + column < count {
            let candidate = first + row * cols + column
            if rects[candidate].contains(x: x, y: y) { return hit(candidate) }
        }
        return neighbour(first: first, count: count, cols: cols, usedCols: usedCols, row: row, column: column)
    }

    /// The rare path of `cell(of:)`: the cells around the computed one. Kept out of line, so the
    /// common path's frame and code stay small.
    @inline(never)
    func neighbour(first: Int, count: Int, cols: Int, usedCols: Int, row: Int, column: Int) -> Int {
        let rows = count / cols + (count % cols == 0 ? 0 : 1)
        guard column >= -1, column <= usedCols, row >= -1, row <= rows else { return -1 }
        for r in max(row - 1, 0)...max(min(row + 1, rows - 1), 0) {
            for c in max(column - 1, 0)...max(min(column + 1, usedCols - 1), 0) {
                let index = r * cols + c
                guard index < count else { continue }
                let found = hit(first + index)
                if found >= 0 { return found }
            }
        }
        return -1
    }
}

extension HitWalker {
    /// `Int(value.rounded(.down))` for a value clamped to a small range, without the C library's
    /// `floor` call (not inlined on baseline x86-64).
    @inline(__always)
    static func floor(_ value: Double) -> Int {
        let truncated = Int(value)
        return Double(truncated) > value ? truncated - 1 : truncated
    }
}

extension Double {
    @inline(__always)
    /// NaN (from infinite rects in absurd layouts) clamps to `low`, so `Int()` never traps on it.
    func clamped(_ low: Double, _ high: Double) -> Double { self >= low ? (self > high ? high : self) : low }
}
