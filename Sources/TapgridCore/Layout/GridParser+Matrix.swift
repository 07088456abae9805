extension GridParser {
    static let matrixKeys: Set<String> = ["cols", "count", "rows", "cell", "margin", "distribute", "tag", "action-data", "names"]

    /// Reads a `matrix` object and appends its cells as the grid's children; false when a limit stops reading.
    mutating func readMatrix(_ value: JSONValue, node: Int) -> Bool {
        guard case .object(let members) = value else {
            error(node, "\"matrix\": expected an object such as {\"cols\": 3, \"count\": 9, \"margin\": 5}, found \(value.typeDescription)")
            return true
        }
        let before = diagnostics.errors.count
        let context = "\"matrix\"."
        func integer(_ key: String, minimum: Int64) -> Int64?? {
            guard let value = members.first(where: { $0.key == key })?.value else { return .some(nil) }
            guard let number = readInteger(value, key: key, node: node, in: context) else { return nil }
            guard number >= minimum else {
                error(node, "\(context)\"\(key)\": must be at least \(minimum), found \(number)")
                return nil
            }
            return .some(number)
        }
        for member in members where !GridParser.matrixKeys.contains(member.key) {
            let hint = hintOrList(didYouMean(member.key, among: GridParser.matrixKeys), "use cols, count, rows, cell, margin, distribute, tag, action-data or names")
            warning(node, "\"matrix\": unknown key \(jsonEscaped(member.key)) ignored\(hint)")
        }
        let cols = integer("cols", minimum: 1)
        let count = integer("count", minimum: 0)
        let rows = integer("rows", minimum: 0)
        if case .some(.none) = cols { error(node, "\(context)\"cols\" is required (an integer >= 1)") }
        if case .some(.none) = count { error(node, "\(context)\"count\" is required (an integer >= 0)") }

        let cell = members.first { $0.key == "cell" }?.value
        let margin = members.first { $0.key == "margin" }?.value
        let distribute = members.first { $0.key == "distribute" }?.value
        var mode: MatrixSpec.Mode?
        switch (cell, margin) {
        case (nil, nil), (.some, .some):
            error(node, "\"matrix\": give exactly one of \"cell\" ([width, height]) and \"margin\" (a number)")
        case (.some(let cell), nil):
            var size: [Double] = []
            if case .array(let parts) = cell, parts.count == 2 {
                for part in parts {
                    if case .number(let n) = part, n.double.isFinite, n.double >= 0 { size.append(n.double) }
                }
            }
            guard size.count == 2 else {
                error(node, "\(context)\"cell\": expected [width, height] with numbers >= 0, found \(shown(cell))")
                break
            }
            switch distribute {
            case .string("between")?: mode = .between(cellWidth: size[0], cellHeight: size[1])
            case .string("evenly")?: mode = .evenly(cellWidth: size[0], cellHeight: size[1])
            case nil: error(node, "\(context)\"distribute\" is required with \"cell\": \"between\" or \"evenly\"")
            case let other?: error(node, "\(context)\"distribute\": expected \"between\" or \"evenly\", found \(shown(other))")
            }
        case (nil, .some(let margin)):
            if distribute != nil { error(node, "\(context)\"distribute\" goes with \"cell\", not with \"margin\"") }
            guard case .number(let m) = margin, m.double.isFinite else {
                error(node, "\(context)\"margin\": expected a finite number, found \(shown(margin))")
                break
            }
            mode = .margin(m.double)
            if m.double < 0 {
                // Allowed (nothing is clamped, docs/layouts.md "Layout semantics"), but never what a nine-grid
                // wants: one warning here instead of one overlap warning per pair of cells.
                let overlap = formatNumber(-m.double)
                warning(node, "\(context)\"margin\": \(shown(margin)) is negative, so neighbouring cells overlap by \(overlap) and the outer cells reach \(overlap) past the grid's edges (taps in an overlap go to the lower-numbered cell); margin is the gap between cells and around them: use 0 or more")
            }
        }

        var tag: Int64?
        if let value = members.first(where: { $0.key == "tag" })?.value {
            tag = readInteger(value, key: "tag", node: node, in: context)
        }
        var actionData: [JSONValue]?
        if let value = members.first(where: { $0.key == "action-data" })?.value {
            if case .array(let elements) = value {
                actionData = elements
            } else {
                error(node, "\(context)\"action-data\": expected an array (one element per cell), found \(value.typeDescription)")
            }
        }
        // Cell `i`'s `name` (as a grid's own `name`: a label for tools and the panel; it does not make
        // the cell hittable); a null element names no cell.
        var names: [String?]?
        if let value = members.first(where: { $0.key == "names" })?.value {
            if case .array(let elements) = value {
                names = []
                for (i, element) in elements.enumerated() {
                    switch element {
                    case .string(let name): names?.append(name)
                    case .null: names?.append(nil)
                    default: error(node, "\(context)\"names\"[\(i)]: expected a string or null, found \(element.typeDescription) (\(shown(element)))")
                    }
                }
            } else {
                error(node, "\(context)\"names\": expected an array of strings (one name per cell), found \(value.typeDescription)")
            }
        }

        guard diagnostics.errors.count == before, case .some(.some(let colCount)) = cols,
            case .some(.some(let cellCount)) = count, case .some(let rowCount) = rows, let mode
        else { return true }
        // Written so that huge counts cannot overflow (a trap would take the daemon down).
        let neededRows = cellCount / colCount + (cellCount % colCount == 0 ? 0 : 1)
        if let rowCount, case let (product, overflow) = rowCount.multipliedReportingOverflow(by: colCount),
            !overflow, product < cellCount {
            error(node, "\(context)\"rows\": \(rowCount) rows of \(colCount) hold fewer than \(cellCount) cells")
            return true
        }
        if case .between = mode, colCount == 1 {
            error(node, "\(context)\"distribute\": \"between\" needs at least 2 columns (the margin is shared between them)")
            return true
        }
        if let tag, cellCount > 0, tag.addingReportingOverflow(cellCount - 1).overflow {
            error(node, "\(context)\"tag\": \(tag) + \(cellCount - 1) overflows a 64-bit integer")
            return true
        }
        guard cellCount <= Int64(GridParser.maxGrids) else {
            error(nil, "more than \(GridParser.maxGrids) grids (matrix cells included); the limit is \(GridParser.maxGrids)")
            return false
        }
        let spec = MatrixSpec(cols: Int(colCount), rows: Int(rowCount ?? neededRows), count: Int(cellCount), mode: mode)
        nodes[node].matrix = Int32(matrices.count)
        matrices.append(spec)
        guard reserve(spec.count, for: node) else { return false }
        let first = Int(nodes[node].firstChild)
        for i in 0..<spec.count {
            var info = GridInfo()
            var hittable = false
            if let tag, tag + Int64(i) != 0 {
                info.tag = tag + Int64(i)
                hittable = true
            }
            if let actionData, i < actionData.count {
                info.actionDataText = shown(actionData[i])
                hittable = true
            }
            if let names, i < names.count { info.name = names[i] }
            if hittable || info.name != nil {
                nodes[first + i].info = Int32(infos.count)
                nodes[first + i].hittable = hittable
                infos.append(info)
            }
        }
        return true
    }

    /// Checks wrap grids and works out their sizes from their children's extents (docs/grid-semantics.md, section 2.2).
    mutating func resolveWraps() {
        // Wrap grids whose children split the same axis: a share child has nothing to share.
        for index in 1..<nodes.count where nodes[index].size == .wrap {
            let grid = nodes[index]
            let parentAxis = nodes[Int(grid.parent)].axis
            guard grid.axis == parentAxis else { continue }
            for child in grid.children where nodes[child].size.isShare {
                if explicitSize[child] {
                    error(child, "\"size\": a \(describe(nodes[child].size)) child of the wrap grid \(pathOf(index)) has nothing to share; use a fixed size or \"wrap\"")
                } else {
                    error(child, "\"size\": missing, which means fill, but the wrap grid \(pathOf(index)) has nothing to share; give a fixed size or \"wrap\"")
                }
            }
        }
        guard !diagnostics.hasErrors else { return }
        // Children come after their parents, so one backward pass sees every child before its parent.
        var extentX = [Double](repeating: 0, count: nodes.count)
        var extentY = [Double](repeating: 0, count: nodes.count)
        for index in stride(from: nodes.count - 1, through: 0, by: -1) {
            let grid = nodes[index]
            guard grid.axis == .rows || grid.axis == .cols, grid.childCount > 0 else { continue }
            let splitsY = grid.axis == .rows
            let style = self.style(of: index)
            var along = Double(grid.childCount - 1) * style.spacing
            var across = -Double.infinity
            for child in grid.children {
                let node = nodes[child]
                switch node.size {
                case .fixed(let points): along += points
                case .wrap: along += splitsY ? extentY[child] : extentX[child]
                default: break
                }
                across = max(across, splitsY ? extentX[child] : extentY[child])
            }
            let padX = style.padding.left + style.padding.right
            let padY = style.padding.top + style.padding.bottom
            extentX[index] = splitsY ? padX + across : padX + along
            extentY[index] = splitsY ? padY + along : padY + across
        }
        wrapSizes = [Double](repeating: 0, count: nodes.count)
        for index in 1..<nodes.count where nodes[index].size == .wrap {
            wrapSizes[index] = nodes[Int(nodes[index].parent)].axis == .rows ? extentY[index] : extentX[index]
        }
    }

    func describe(_ size: SizeSpec) -> String {
        switch size {
        case .ratio: return "ratio"
        case .remaining: return "remaining-ratio"
        default: return "fill"
        }
    }
}
