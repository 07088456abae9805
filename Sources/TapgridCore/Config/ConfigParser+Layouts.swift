extension ConfigParser {
    static let layoutKeys: Set<String> = [
        "width", "height", "direction", "scale", "grid", "debounceMs", "longPressMs", "repeatMs", "doubleTapMs", "slop",
    ]

    /// Parses and resolves every layout; the result is sorted by name.
    mutating func parseLayouts(_ value: JSONValue?) -> [LoadedLayout] {
        guard let value else {
            error("layouts", "missing; a config needs at least one layout")
            return []
        }
        guard case .object(let members) = value, !members.isEmpty else {
            error("layouts", "expected an object of named layouts with at least one, found \(shown(value))")
            return []
        }
        var layouts: [LoadedLayout] = []
        for member in members {
            declaredLayouts.append(member.key)
            if let layout = parseLayout(name: member.key, member.value) { layouts.append(layout) }
        }
        return layouts.sorted { $0.name < $1.name }
    }

    /// - Parameter pushed: a definition from `load` (messages start `load.definition`; the grid
    ///   must be inline: a pushed layout names no file on the daemon's machine).
    mutating func parseLayout(name: String, _ value: JSONValue, pushed: Bool = false) -> LoadedLayout? {
        let path = pushed ? "load.definition" : "layouts.\(name)"
        guard case .object(let members) = value else {
            error(path, "expected a layout object with width, height and grid, found \(value.typeDescription)")
            return nil
        }
        let before = diagnostics.errors.count
        for member in members where !ConfigParser.layoutKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.layoutKeys)
            warning("\(path).\(member.key)", "unknown key ignored" + hintOrList(hint, "a layout has width, height, direction, scale, grid, debounceMs, longPressMs, repeatMs, doubleTapMs and slop"))
        }
        func number(_ key: String, default fallback: Double?, valid: (Double) -> Bool, expected: String) -> Double {
            guard let value = value[key] else {
                if let fallback { return fallback }
                error("\(path).\(key)", "missing; expected \(expected)")
                return 0
            }
            guard case .number(let n) = value, n.double.isFinite, valid(n.double) else {
                error("\(path).\(key)", "expected \(expected), found \(shown(value))")
                return 0
            }
            return n.double
        }
        let width = number("width", default: nil, valid: { $0 >= 0 }, expected: "a finite number >= 0")
        let height = number("height", default: nil, valid: { $0 >= 0 }, expected: "a finite number >= 0")
        let scale = number("scale", default: 1, valid: { $0 > 0 }, expected: "a finite number > 0 (pixels per point)")
        let debounce = number("debounceMs", default: 0, valid: { $0 >= 0 && $0 <= 86_400_000 && $0.rounded() == $0 },
                              expected: "a whole number of milliseconds >= 0")
        let defaults = TouchTiming()
        func milliseconds(_ key: String, _ fallback: Int, minimum: Double) -> Int {
            Int(number(key, default: Double(fallback), valid: { $0 >= minimum && $0 <= 3_600_000 && $0.rounded() == $0 },
                       expected: "a whole number of milliseconds from \(Int(minimum)) to 3600000"))
        }
        let timing = TouchTiming(
            longPressMs: milliseconds("longPressMs", defaults.longPressMs, minimum: 1),
            repeatMs: milliseconds("repeatMs", defaults.repeatMs, minimum: 1),
            doubleTapMs: milliseconds("doubleTapMs", defaults.doubleTapMs, minimum: 1),
            slop: number("slop", default: defaults.slop, valid: { $0 >= 0 }, expected: "a finite number >= 0 (layout units)"))
        var direction = LayoutDirection.ltr
        if let value = value["direction"] {
            if case .string(let text) = value, let parsed = LayoutDirection(rawValue: text) {
                direction = parsed
            } else {
                error("\(path).direction", "expected \"ltr\" or \"rtl\", found \(shown(value))")
            }
        }
        guard let gridValue = value["grid"] else {
            error("\(path).grid", "missing; expected a grid dictionary or the path of a JSON file holding one")
            return nil
        }
        var gridFile = file
        let grid: JSONValue
        switch gridValue {
        case .object:
            grid = gridValue
        case .string where pushed:
            error("\(path).grid", "expected a grid dictionary inline; a pushed layout cannot name a file, found \(shown(gridValue))")
            return nil
        case .string(let relative):
            let resolved = resolvePath(relative)
            switch loadGridFile(resolved) {
            case .success(let loaded): grid = loaded
            case .failure(let problem):
                var problem = problem
                if problem.file == nil { problem.file = file }
                problem.message = "\(path).grid: \(problem.message)"
                diagnostics.append(problem)
                return nil
            }
            gridFile = shownPath(relative)
        default:
            error("\(path).grid", "expected a grid dictionary or the path of a JSON file holding one, found \(gridValue.typeDescription)")
            return nil
        }
        let (tree, gridDiagnostics) = GridParser.parse(grid, layout: name, styles: styleNames)
        if pushed {
            // `load.definition.grid 1/0: "size": ...`: named from the request, not a file.
            for var problem in gridDiagnostics.all {
                problem.message = "\(path).grid" + (problem.gridPath.map { $0.isEmpty ? "" : " \($0)" } ?? "") + ": " + problem.message
                problem.layout = nil
                problem.gridPath = nil
                diagnostics.append(problem)
            }
        } else {
            diagnostics.append(contentsOf: gridDiagnostics, file: gridFile)
        }
        guard let tree, diagnostics.errors.count == before else { return nil }
        let frame = LayoutFrame(width: width, height: height, direction: direction, scale: scale)
        return LoadedLayout(name: name, debounceMs: Int(debounce), timing: timing, resolved: Resolver.resolve(tree, in: frame))
    }
}

extension ConfigParser {
    /// Checks a `load` request's definition exactly as a config's layout entry is checked, and
    /// routes it with `config`'s handlers and routes (a pushed layout brings none of its own).
    /// Messages are named from `load.definition` and carry no file.
    /// - Returns: the layout, or nil with the errors in `diagnostics`.
    public static func parsePushedLayout(
        name: String, definition: JSONValue, config: Config
    ) -> (layout: LoadedLayout?, diagnostics: Diagnostics) {
        var parser = ConfigParser(file: "", directory: "/") { path in .failure(Diagnostic(.error, "no files: \(path)")) }
        parser.styleNames = config.styles.keys.sorted()
        var layout = parser.parseLayout(name: name, definition, pushed: true)
        if layout != nil && !parser.diagnostics.hasErrors {
            parser.route(&layout!, handlers: config.handlers, routes: config.routes)
        }
        var named = Diagnostics()
        for var problem in parser.diagnostics.all {
            problem.file = nil
            named.append(problem)
        }
        return (named.hasErrors ? nil : layout, named)
    }
}
