/// Reads a grid dictionary (MyLayout's `gridDictionary` format plus tapgrid's extensions) into a
/// `GridTree`, gathering every error and warning instead of stopping at the first.
public struct GridParser {
    /// Deepest grid tree accepted (docs/layouts.md "Layout semantics").
    public static let maxDepth = 256
    /// Most grids accepted in one layout, matrix cells included.
    public static let maxGrids = 1_000_000

    static let knownKeys: Set<String> = [
        "rows", "cols", "size", "padding", "spacing", "space", "gravity", "placeholder", "anchor", "overlap",
        "tag", "action", "action-data", "top-borderline", "left-borderline", "bottom-borderline",
        "right-borderline", "name", "matrix", "toggle", "text", "icon", "style",
        "slider",
    ]

    let layout: String
    /// The config's style names, which a grid's `"style": "NAME"` must be one of.
    let styleNames: [String]
    var nodes: [GridNode] = []
    var infos: [GridInfo] = []
    var matrices: [MatrixSpec] = []
    var styles: [GridStyle] = []
    var wrapSizes: [Double] = []
    var borderlines: [Int32: [Borderline]] = [:]
    var sliders: [Int32: SliderSpec] = [:]
    var looks: [GridLook] = []
    var diagnostics = Diagnostics()
    /// Per grid: whether it wrote a `size` key (a missing one is a fill, which matters inside wraps).
    var explicitSize: [Bool] = []
    var hasWrap = false

    /// Parses `root`, the layout's grid dictionary. The tree is nil when there are errors.
    /// - Parameter styles: the names of the config's `styles` (a grid's `style` may name one).
    public static func parse(_ root: JSONValue, layout: String, styles: [String] = []) -> (tree: GridTree?, diagnostics: Diagnostics) {
        var parser = GridParser(layout: layout, styleNames: styles)
        let tree = parser.run(root)
        return (parser.diagnostics.hasErrors ? nil : tree, parser.diagnostics)
    }

    init(layout: String, styleNames: [String] = []) {
        self.layout = layout
        self.styleNames = styleNames
    }

    mutating func error(_ node: Int?, _ message: String) {
        diagnostics.append(Diagnostic(.error, layout: layout, gridPath: node.map(pathOf), message))
    }

    mutating func warning(_ node: Int?, _ message: String) {
        diagnostics.append(Diagnostic(.warning, layout: layout, gridPath: node.map(pathOf), message))
    }

    func pathOf(_ node: Int) -> String { GridTree(nodes: nodes, infos: [], matrices: []).path(of: node) }

    func style(of node: Int) -> GridStyle {
        let slot = nodes[node].style
        return slot >= 0 ? styles[Int(slot)] : .plain
    }

    // MARK: - The walk

    /// A grid waiting to be read: its dictionary, its slot and its depth (the root is 1).
    struct Pending {
        var members: [JSONMember]
        var node: Int
        var depth: Int
    }

    mutating func run(_ root: JSONValue) -> GridTree? {
        guard case .object(let members) = root else {
            error(nil, "the grid must be a JSON object (a grid dictionary), found \(root.typeDescription)")
            return nil
        }
        nodes.append(GridNode())
        explicitSize.append(false)
        var queue = [Pending(members: members, node: 0, depth: 1)]
        var head = 0
        while head < queue.count {
            let pending = queue[head]
            queue[head] = Pending(members: [], node: 0, depth: 0)  // let the dictionary go
            head += 1
            guard let children = readGrid(pending.members, node: pending.node) else { return nil }
            if children.isEmpty { continue }
            if pending.depth >= GridParser.maxDepth {
                error(pending.node, "the grid tree is deeper than \(GridParser.maxDepth) levels; the limit is \(GridParser.maxDepth)")
                return nil
            }
            guard reserve(children.count, for: pending.node) else { return nil }
            for (offset, child) in children.enumerated() {
                queue.append(Pending(members: child, node: Int(nodes[pending.node].firstChild) + offset, depth: pending.depth + 1))
            }
        }
        if hasWrap && !diagnostics.hasErrors { resolveWraps() }
        return GridTree(nodes: nodes, infos: infos, matrices: matrices, styles: styles, borderlines: borderlines, looks: looks, wrapSizes: wrapSizes, sliders: sliders)
    }

    /// Appends `count` child slots for `parent`; false (with an error) past the grid limit.
    mutating func reserve(_ count: Int, for parent: Int) -> Bool {
        guard nodes.count + count <= GridParser.maxGrids else {
            error(nil, "more than \(GridParser.maxGrids) grids (matrix cells included); the limit is \(GridParser.maxGrids)")
            return false
        }
        nodes[parent].firstChild = Int32(nodes.count)
        nodes[parent].childCount = Int32(count)
        for _ in 0..<count {
            var child = GridNode()
            child.parent = Int32(parent)
            nodes.append(child)
            explicitSize.append(false)
        }
        return true
    }

    // MARK: - One grid

    /// Reads one grid's keys into its node; returns the dictionaries of its `rows`/`cols` children,
    /// or nil when reading must stop (a limit was hit).
    mutating func readGrid(_ members: [JSONMember], node: Int) -> [[JSONMember]]? {
        let isRoot = node == 0
        var grid = nodes[node]
        var style = GridStyle.plain
        var info = GridInfo()
        var hasInfo = false
        var look = GridLook()
        var lookKeys: [String] = []
        var spacing: Double?
        var oldSpace: Double?
        var gravity: Gravity?
        var overlap: Gravity?
        var childKey: String?
        var children: [[JSONMember]] = []
        var matrixValue: JSONValue?
        var sizeValue: JSONValue?

        for member in members {
            let key = member.key
            let value = member.value
            switch key {
            case "rows", "cols":
                if let other = childKey {
                    error(node, "\"\(other)\" and \"\(key)\" in one grid; a grid splits one way, use one of them")
                    continue
                }
                childKey = key
                guard case .array(let elements) = value else {
                    error(node, "\"\(key)\": expected an array of grid objects, found \(value.typeDescription)")
                    continue
                }
                for (index, element) in elements.enumerated() {
                    guard case .object(let child) = element else {
                        error(node, "\"\(key)\"[\(index)]: expected a grid object, found \(element.typeDescription)")
                        continue
                    }
                    children.append(child)
                }
                grid.axis = key == "rows" ? .rows : .cols
            case "size":
                sizeValue = value
            case "padding":
                if case .string(let text) = value, let padding = parsePadding(text) {
                    style.padding = padding
                } else {
                    error(node, "\"padding\": \(shown(value)) is not a padding; use \"{top,left,bottom,right}\", e.g. \"{10,20,10,20}\"")
                }
            case "spacing", "space":
                guard case .number(let number) = value, number.double.isFinite else {
                    error(node, "\"\(key)\": expected a finite number, found \(value.typeDescription) (\(shown(value)))")
                    continue
                }
                if key == "spacing" {
                    spacing = number.double
                } else {
                    oldSpace = number.double
                    warning(node, "\"space\" is MyLayout's old name (<= 1.9.9) for \"spacing\"; write \"spacing\"")
                }
            case "gravity", "overlap":
                guard case .string(let text) = value else {
                    error(node, "\"\(key)\": expected a gravity string such as \"centerX\" or \"bottom|left\", found \(value.typeDescription)")
                    continue
                }
                let parsed = parseGravity(text, key: key, node: node)
                if key == "gravity" { gravity = parsed } else { overlap = parsed }
            case "placeholder", "anchor":
                guard case .bool(let flag) = value else {
                    error(node, "\"\(key)\": expected true or false, found \(value.typeDescription) (\(shown(value)))")
                    continue
                }
                if key == "placeholder" { grid.placeholder = flag } else { grid.anchor = flag }
            case "toggle":
                guard case .bool(let flag) = value else {
                    error(node, "\"toggle\": expected true or false, found \(value.typeDescription) (\(shown(value)))")
                    continue
                }
                info.toggle = flag
                hasInfo = true
            case "tag":
                guard let tag = readInteger(value, key: "tag", node: node) else { continue }
                info.tag = tag
                hasInfo = true
            case "action":
                guard case .string(let name) = value, !name.isEmpty else {
                    error(node, "\"action\": expected the name of a handler (a non-empty string), found \(shown(value))")
                    continue
                }
                info.action = name
                hasInfo = true
            case "action-data":
                info.actionDataText = shown(value)
                hasInfo = true
            case "name":
                guard case .string(let name) = value else {
                    error(node, "\"name\": expected a string, found \(value.typeDescription)")
                    continue
                }
                info.name = name
                hasInfo = true
            case "top-borderline", "left-borderline", "bottom-borderline", "right-borderline":
                let edge = Borderline.Edge(rawValue: String(key.dropLast("-borderline".count)))!
                if let line = readBorderline(value, edge: edge, key: key, node: node) {
                    borderlines[Int32(node), default: []].append(line)
                }
            case "text", "icon", "style":
                if readLook(key, value, into: &look, node: node) { lookKeys.append(key) }
            case "matrix":
                matrixValue = value
            case "slider":
                guard let slider = readSlider(value, node: node) else { continue }
                sliders[Int32(node)] = slider
                hasInfo = true  // a hittable grid has an info slot
            default:
                warning(node, "unknown key \(jsonEscaped(key)) ignored\(suggestion(for: key))")
            }
        }

        if matrixValue != nil {
            if let childKey {
                error(node, "\"matrix\" and \"\(childKey)\" in one grid; a matrix generates its own cells")
            } else {
                grid.axis = .matrix
            }
            if spacing != nil || oldSpace != nil { warning(node, "\"spacing\" has no effect on a matrix grid") }
            if gravity != nil { warning(node, "\"gravity\" has no effect on a matrix grid") }
        }
        style.spacing = spacing ?? oldSpace ?? 0
        style.gravity = gravity ?? overlap ?? .none
        if style != .plain {
            grid.style = Int32(styles.count)
            styles.append(style)
        }

        if let sizeValue {
            explicitSize[node] = true
            switch SizeSpec.parse(sizeValue) {
            case .success(let size): grid.size = size
            case .failure:
                error(node, "\"size\": \(shown(sizeValue)) is not a size; use a number (200), \"fill\", \"wrap\" or a percentage (\"20%\")")
            }
            if isRoot { warning(node, "\"size\" on the root grid is ignored; the layout's width and height size it") }
        }
        if overlap != nil {
            grid.anchor = true
            grid.size = .zero
        }
        if grid.size == .wrap && !isRoot {
            if matrixValue != nil {
                error(node, "\"size\": \"wrap\" cannot size a matrix grid; its cells have no content to wrap")
            }
            hasWrap = true
        }

        grid.hittable = isRoot ? (info.actionDataText != nil || info.action != nil)
            : (info.tag != 0 || info.actionDataText != nil || info.action != nil)
        if sliders[Int32(node)] != nil {
            grid.hittable = true
            if info.toggle { warning(node, "\"toggle\" has no effect on a slider (its taps are change and release, never tap)") }
        }
        if !lookKeys.isEmpty {
            if !grid.hittable {
                warning(node, lookKeys.map { "\"\($0)\"" }.joined(separator: ", ") + " shown on hittable grids only (the panel draws those); give this grid a tag, action or action-data")
            }
            info.look = Int32(looks.count)
            looks.append(look)
            hasInfo = true
        }
        if hasInfo {
            grid.info = Int32(infos.count)
            infos.append(info)
        }
        nodes[node] = grid

        if let matrixValue, grid.axis == .matrix {
            guard readMatrix(matrixValue, node: node) else { return nil }
        }
        return children
    }

    // MARK: - Values

    func parsePadding(_ text: String) -> Padding? {
        var bytes = Substring(text).utf8[...]
        func skipSpace() { while let b = bytes.first, b == 32 || b == 9 || b == 10 || b == 13 { bytes.removeFirst() } }
        func expect(_ c: UInt8) -> Bool {
            skipSpace()
            guard bytes.first == c else { return false }
            bytes.removeFirst()
            return true
        }
        func number() -> Double? {
            skipSpace()
            var literal: [UInt8] = []
            if bytes.first == UInt8(ascii: "-") { literal.append(bytes.removeFirst()) }
            var integer = 0, fraction = 0, dot = false
            while let b = bytes.first {
                if b >= 48 && b <= 57 {
                    if dot { fraction += 1 } else { integer += 1 }
                } else if b == UInt8(ascii: "."), !dot {
                    dot = true
                } else {
                    break
                }
                literal.append(bytes.removeFirst())
            }
            guard integer > 0 || fraction > 0, !dot || fraction > 0 else { return nil }
            var text = String(decoding: literal, as: UTF8.self)
            if integer == 0 { text = text.replacingFirstDot() }
            // Hundreds of digits overflow to infinity: not a number (docs/grid-semantics.md section 7).
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        }
        guard expect(UInt8(ascii: "{")), let top = number(), expect(UInt8(ascii: ",")), let left = number(),
            expect(UInt8(ascii: ",")), let bottom = number(), expect(UInt8(ascii: ",")), let right = number(),
            expect(UInt8(ascii: "}"))
        else { return nil }
        skipSpace()
        guard bytes.isEmpty else { return nil }
        return Padding(top: top, left: left, bottom: bottom, right: right)
    }

    mutating func parseGravity(_ text: String, key: String, node: Int) -> Gravity {
        var bits: UInt16 = 0
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) { return .none }
        for token in text.split(separator: "|", omittingEmptySubsequences: false) {
            let name = token.trimmingSpaces()
            if let match = Gravity.tokens.first(where: { $0.0 == name }) {
                bits |= match.1
            } else {
                warning(node, "\"\(key)\": unknown gravity \(jsonEscaped(name)) ignored; use top, bottom, left, right, leading, trailing, centerX, centerY, width or height")
            }
        }
        return Gravity(bits: bits)
    }

    /// An integer value (an integral number such as `1.0` counts), or nil after reporting why not.
    mutating func readInteger(_ value: JSONValue, key: String, node: Int, in context: String = "") -> Int64? {
        guard case .number(let number) = value else {
            error(node, "\(context)\"\(key)\": expected an integer, found \(value.typeDescription) (\(shown(value)))")
            return nil
        }
        guard let integer = number.int64 else {
            error(node, "\(context)\"\(key)\": \(shown(value)) is not an integer (a signed 64-bit whole number)")
            return nil
        }
        return integer
    }

    mutating func readBorderline(_ value: JSONValue, edge: Borderline.Edge, key: String, node: Int) -> Borderline? {
        guard case .object(let members) = value else {
            error(node, "\"\(key)\": expected an object with color, thick, head, tail, offset, dash; found \(value.typeDescription)")
            return nil
        }
        var line = Borderline(edge: edge)
        var ok = true
        for member in members {
            switch member.key {
            case "color":
                guard case .string(let color) = member.value else {
                    error(node, "\"\(key)\".color: expected a colour string such as \"#D1D1D1\", found \(member.value.typeDescription)")
                    ok = false
                    continue
                }
                line.color = color
            case "thick", "head", "tail", "offset", "dash":
                guard case .number(let number) = member.value, number.double.isFinite else {
                    error(node, "\"\(key)\".\(member.key): expected a finite number, found \(member.value.typeDescription)")
                    ok = false
                    continue
                }
                switch member.key {
                case "thick": line.thick = max(1, number.double)
                case "head": line.head = number.double
                case "tail": line.tail = number.double
                case "offset": line.offset = number.double
                default: line.dash = number.double
                }
            default:
                let hint = didYouMean(member.key, among: ["color", "thick", "head", "tail", "offset", "dash"])
                warning(node, "\"\(key)\": unknown key \(jsonEscaped(member.key)) ignored\(hintOrList(hint, "use color, thick, head, tail, offset or dash"))")
            }
        }
        return ok ? line : nil
    }

    /// A grid's `text`, `icon` or `style` key (docs/panel.md "What a cell shows"). - Returns: false after an error.
    mutating func readLook(_ key: String, _ value: JSONValue, into look: inout GridLook, node: Int) -> Bool {
        switch key {
        case "text":
            guard case .string(let text) = value else {
                error(node, "\"text\": expected a string (the cell's label), found \(shown(value))")
                return false
            }
            guard text.utf8.count <= CellState.maxTextBytes else {
                error(node, "\"text\": \(text.utf8.count) bytes; at most \(CellState.maxTextBytes)")
                return false
            }
            look.text = text
        case "icon":
            guard case .string(let name) = value, GridLook.isIconName(name), name.utf8.count <= CellState.maxTextBytes else {
                error(node, "\"icon\": expected an icon name such as \"mdi:lightbulb\", found \(shown(value))")
                return false
            }
            look.icon = name
        default:
            switch value {
            case .string(let name):
                guard styleNames.contains(name) else {
                    let listed = styleNames.isEmpty ? #": the config has no "styles""#
                        : hintOrList(didYouMean(name, among: styleNames), "the styles are " + styleNames.map(jsonEscaped).joined(separator: ", "))
                    error(node, "\"style\": no style \(jsonEscaped(name))" + (styleNames.isEmpty ? listed : #" in the config's "styles""# + listed))
                    return false
                }
                look.style = .named(name)
            case .object:
                let (style, problems) = CellStyle.read(value)
                for problem in problems {
                    error(node, "\"style\"" + (problem.key.isEmpty ? "" : ".\(problem.key)") + ": " + problem.message)
                }
                guard let style else { return false }
                look.style = .inline(style)
            default:
                error(node, "\"style\": expected the name of a style or a style object, found \(shown(value))")
                return false
            }
        }
        return true
    }

    func suggestion(for key: String) -> String { didYouMean(key, among: GridParser.knownKeys) }
}

/// Levenshtein distance, for "did you mean" hints on misspelt keys.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8), b = Array(b.utf8)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(b.count, 1) where !b.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}

extension String {
    /// `".5"` → `"0.5"`, `"-.5"` → `"-0.5"`: Swift's Double parser wants a leading digit.
    func replacingFirstDot() -> String {
        hasPrefix("-") ? "-0" + dropFirst() : "0" + self
    }
}
