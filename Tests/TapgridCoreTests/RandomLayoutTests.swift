import Foundation
import Testing
@testable import TapgridCore

/// Random grid trees resolved by the engine and by an independent reference written from
/// grid-semantics.md (recursive, physical RTL coordinates computed directly, no mirroring),
/// compared rect by rect and tap by tap.
@Suite struct RandomLayoutTests {
    // MARK: - A seeded generator

    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    // MARK: - The model (what the test means, independent of the engine's types)

    enum Size { case fixed(Double), ratio(Double), remaining(Double), fill, wrap, zero }

    struct Matrix {
        enum Mode { case between(Double, Double), evenly(Double, Double), margin(Double) }
        var cols: Int, count: Int, rows: Int?, mode: Mode, tag: Int64?, actionData: Int
    }

    final class Node {
        enum Kind { case leaf, rows, cols, matrix(Matrix) }
        var kind: Kind = .leaf
        var size: Size = .fill
        var sizeJSON: JSONValue?
        var overlap: String?
        var padding: (t: Double, l: Double, b: Double, r: Double)?
        var spacing: Double?
        var gravity: String?
        var tag: Int64 = 0
        var actionData = false
        var action = false
        /// rows/cols children, or the matrix's cells (generated, not written to JSON).
        var children: [Node] = []

        var effectiveSize: Size { overlap != nil ? .zero : size }
        var pad: (t: Double, l: Double, b: Double, r: Double) { padding ?? (0, 0, 0, 0) }
        var isSplit: Bool {
            switch kind {
            case .rows, .cols: return true
            default: return false
            }
        }
        var splitsX: Bool {
            if case .cols = kind { return true }
            return false
        }
    }

    // MARK: - Generation

    struct Generator {
        var rng: Rng
        var budget = 160
        var wide = false

        static let gravities = ["", "top", "bottom", "left", "right", "leading", "trailing", "centerX", "centerY", "width",
                                "height", "centerX|right", "right|trailing", "bottom|left", "centerY|centerX", "top|bottom", " right "]

        mutating func size(restricted: Bool, allowWrap: Bool) -> (Size, JSONValue?) {
            let roll = rng.int(0...99)
            if restricted {
                if roll < 60 || !allowWrap && roll >= 85 { return fixed() }
                if roll < 85 { return (.zero, .number(JSONNumber(0))) }
                return (.wrap, .string("wrap"))
            }
            switch roll {
            case 0..<30: return fixed()
            case 30..<42:
                if rng.chance(0.5) {
                    let r = rng.pick([0.1, 0.25, 0.5, 0.75, 0.6, 0.333, 0.05])
                    return (.ratio(r), .number(JSONNumber(r)))
                }
                let p = rng.pick(["20", "33.3", "12.5", "50", ".5", "75", "99.5"])
                return (.ratio(Double(p == ".5" ? "0.5" : p)! / 100), .string(p + "%"))
            case 42..<52:
                if rng.chance(0.5) {
                    let r = rng.pick([0.2, 0.5, 0.375, 0.75, 0.1])
                    return (.remaining(r), .number(JSONNumber(-r)))
                }
                let p = rng.pick(["20", "37.5", "50", "25", "66.6"])
                return (.remaining(Double(p)! / 100), .string("-" + p + "%"))
            case 52..<72: return (.fill, rng.pick([nil, .string("fill"), .string("100%"), .string("-100%"), .string("100.0%")]))
            case 72..<78: return (.zero, .number(JSONNumber(0)))
            default: return allowWrap ? (.wrap, .string("wrap")) : fixed()
            }
        }

        mutating func fixed() -> (Size, JSONValue?) {
            let v = wide ? Double(rng.int(1...12)) : rng.pick([1, 5, 10, 12.5, 20, 30, 33, 40.5, 60, 80, 120])
            return (.fixed(v), .number(JSONNumber(v)))
        }

        mutating func decorate(_ node: Node, isRoot: Bool) {
            if rng.chance(0.4) {
                func p() -> Double { rng.pick([0, 1, 2.5, 5, 10, -3, 15, 0.5]) }
                node.padding = (p(), p(), p(), p())
            }
            if rng.chance(0.4) { node.spacing = wide ? rng.pick([0, 1, 2]) : rng.pick([0, 1, 2.5, 5, 10, -4]) }
            if rng.chance(0.5) { node.gravity = rng.pick(Generator.gravities) }
            let roll = rng.int(0...99)
            if isRoot {
                if roll < 15 { node.actionData = true } else if roll < 20 { node.action = true }
                if rng.chance(0.3) { node.tag = 99 }  // never makes the root hittable
            } else if roll < 55 {
                node.tag = Int64(rng.int(1...1000))
            } else if roll < 65 {
                node.actionData = true
            } else if roll < 68 {
                node.action = true
            }
        }

        mutating func matrix() -> Matrix {
            let cols = rng.int(1...(wide ? 6 : 4))
            let count = rng.int(0...(wide ? 30 : 10))
            let needed = (count + cols - 1) / cols
            let rows: Int? = rng.chance(0.3) ? needed + rng.int(0...2) : nil
            let mode: Matrix.Mode
            switch rng.int(0...2) {
            case 0 where cols > 1: mode = .between(rng.pick([0, 10, 20, 33.5, 60]), rng.pick([0, 10, 25, 70]))
            case 0, 1: mode = .evenly(rng.pick([0, 10, 20, 33.5, 60]), rng.pick([0, 10, 25, 70]))
            default: mode = .margin(rng.pick([0, 2, 5, 10, -2, 0.5]))
            }
            let tag: Int64? = rng.chance(0.6) ? Int64(rng.int(-3...50)) : nil
            let actionData = rng.chance(0.4) ? rng.int(0...(count + 2)) : 0
            return Matrix(cols: cols, count: count, rows: rows, mode: mode, tag: tag, actionData: actionData)
        }

        /// A grid under a parent whose children split x (`parentSplitsX`); `restricted` when the
        /// parent is a same-direction wrap (only fixed, zero, wrap and overlap children are legal).
        mutating func node(depth: Int, parentSplitsX: Bool?, restricted: Bool) -> Node {
            let node = Node()
            budget -= 1
            let isRoot = parentSplitsX == nil
            let roll = rng.int(0...99)
            if isRoot || (depth < 4 && budget > 0 && roll < 55) {
                node.kind = (roll % 9 == 0 || (wide && roll % 4 == 0)) ? .matrix(matrix()) : (rng.chance(0.5) ? .rows : .cols)
            }
            if !isRoot {
                let isMatrix: Bool
                if case .matrix = node.kind { isMatrix = true } else { isMatrix = false }
                if rng.chance(wide ? 0.02 : 0.05) {
                    node.overlap = rng.pick(["bottom", "centerX", "top|left"])
                    if rng.chance(0.5) { node.sizeJSON = .number(JSONNumber(40)) }
                    node.size = .zero
                } else {
                    (node.size, node.sizeJSON) = size(restricted: restricted, allowWrap: !isMatrix)
                }
            }
            decorate(node, isRoot: isRoot)
            switch node.kind {
            case .leaf: break
            case .matrix(let m):
                for i in 0..<m.count {
                    let cell = Node()
                    if let tag = m.tag { cell.tag = tag + Int64(i) }
                    cell.actionData = i < m.actionData
                    node.children.append(cell)
                }
            case .rows, .cols:
                let sameDirectionWrap: Bool
                if case .wrap = node.effectiveSize, let parentSplitsX { sameDirectionWrap = parentSplitsX == node.splitsX } else { sameDirectionWrap = false }
                let count = (wide && (isRoot || rng.chance(0.5))) || rng.chance(0.12) ? rng.int(8...14) : rng.int(1...4)
                for _ in 0..<count {
                    node.children.append(self.node(depth: depth + 1, parentSplitsX: node.splitsX, restricted: sameDirectionWrap))
                }
            }
            return node
        }
    }

    // MARK: - JSON for the engine

    static func json(_ node: Node, isRoot: Bool) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
        if !isRoot, let size = node.sizeJSON { add("size", size) }
        if let overlap = node.overlap { add("overlap", .string(overlap)) }
        if let p = node.padding { add("padding", .string("{\(p.t), \(p.l),\(p.b) ,\(p.r)}")) }
        if let spacing = node.spacing { add("spacing", .number(JSONNumber(spacing))) }
        if let gravity = node.gravity { add("gravity", .string(gravity)) }
        if node.tag != 0 { add("tag", .number(JSONNumber(node.tag))) }
        if node.actionData { add("action-data", .string("d")) }
        if node.action { add("action", .string("act")) }
        switch node.kind {
        case .leaf: break
        case .rows: add("rows", .array(node.children.map { json($0, isRoot: false) }))
        case .cols: add("cols", .array(node.children.map { json($0, isRoot: false) }))
        case .matrix(let m):
            var spec: [JSONMember] = [JSONMember(key: "cols", value: .number(JSONNumber(Int64(m.cols)))),
                                      JSONMember(key: "count", value: .number(JSONNumber(Int64(m.count))))]
            if let rows = m.rows { spec.append(JSONMember(key: "rows", value: .number(JSONNumber(Int64(rows))))) }
            switch m.mode {
            case .between(let w, let h), .evenly(let w, let h):
                spec.append(JSONMember(key: "cell", value: .array([.number(JSONNumber(w)), .number(JSONNumber(h))])))
                if case .between = m.mode {
                    spec.append(JSONMember(key: "distribute", value: .string("between")))
                } else {
                    spec.append(JSONMember(key: "distribute", value: .string("evenly")))
                }
            case .margin(let margin): spec.append(JSONMember(key: "margin", value: .number(JSONNumber(margin))))
            }
            if let tag = m.tag { spec.append(JSONMember(key: "tag", value: .number(JSONNumber(tag)))) }
            if m.actionData > 0 || m.tag == nil {
                spec.append(JSONMember(key: "action-data", value: .array((0..<m.actionData).map { .number(JSONNumber(Int64($0))) })))
            }
            add("matrix", .object(spec))
        }
        return .object(members)
    }

    // MARK: - The reference (grid-semantics.md, written from the text)

    struct Reference {
        let rtl: Bool
        let scale: Double
        var rects: [String: Rect] = [:]

        /// round_px: half up on the pixel grid; negatives half away from zero (section 2.1 step 4).
        func roundPx(_ v: Double) -> Double {
            if v > 0 { return (v * scale + 0.5).rounded(.down) / scale }
            if v < 0 { return (v * scale - 0.5).rounded(.up) / scale }
            return 0
        }

        /// Section 2.2: a grid's extent on x or y.
        static func extent(_ g: Node, onX: Bool) -> Double {
            guard g.isSplit, !g.children.isEmpty else { return 0 }
            let p = g.pad
            let pad = onX ? p.l + p.r : p.t + p.b
            if g.splitsX == onX {
                var sum = 0.0
                for c in g.children {
                    switch c.effectiveSize {
                    case .fixed(let v): sum += v
                    case .wrap: sum += extent(c, onX: onX)
                    default: break
                    }
                }
                return pad + Double(g.children.count - 1) * (g.spacing ?? 0) + sum
            }
            return pad + g.children.map { extent($0, onX: onX) }.max()!
        }

        static func gravityBits(_ text: String?) -> Int {
            let table = ["top": 0x100, "bottom": 0x400, "left": 0x1, "right": 0x4, "leading": 0x20, "trailing": 0x40,
                         "centerX": 0x2, "centerY": 0x200, "width": 0x7, "height": 0x700]
            var bits = 0
            for token in (text ?? "").split(separator: "|") {
                bits |= table[token.trimmingCharacters(in: .whitespaces)] ?? 0
            }
            return bits
        }

        /// Section 3 (and 4 for RTL): 0 start, 1 centre, 2 end.
        func alignment(_ g: Node) -> Int {
            let bits = Reference.gravityBits(g.gravity ?? (g.overlap))
            if g.splitsX {
                let h = bits & 0xFF
                if h == 0x2 { return 1 }
                if h == 0x40 || (h == 0x4 && !rtl) || (h == 0x1 && rtl) { return 2 }
                return 0
            }
            let v = bits & 0xFF00
            return v == 0x200 ? 1 : (v == 0x400 ? 2 : 0)
        }

        mutating func place(_ g: Node, path: String, rect: Rect) {
            rects[path] = rect
            func childPath(_ i: Int) -> String { path.isEmpty ? "\(i)" : "\(path)/\(i)" }
            let p = g.pad
            switch g.kind {
            case .leaf: return
            case .matrix(let m):
                let innerW = rect.width - p.l - p.r, innerH = rect.height - p.t - p.b
                let cols = Double(m.cols)
                var w = 0.0, h = 0.0, margin = 0.0, inset = 0.0
                switch m.mode {
                case .between(let cw, let ch): (w, h) = (cw, ch); margin = (innerW - cols * w) / (cols - 1)
                case .evenly(let cw, let ch): (w, h) = (cw, ch); margin = (innerW - cols * w) / (cols + 1); inset = margin
                case .margin(let mm):
                    let rows = Double(m.rows ?? (m.count + m.cols - 1) / m.cols)
                    w = (innerW - mm * (cols + 1)) / cols; h = (innerH - mm * (rows + 1)) / rows; margin = mm; inset = mm
                }
                for i in 0..<m.count {
                    let row = Double(i / m.cols), col = Double(i % m.cols)
                    let dx = inset + col * (w + margin)
                    let x = rtl ? rect.x + rect.width - p.r - dx - w : rect.x + p.l + dx
                    rects[childPath(i)] = Rect(x: x, y: rect.y + p.t + inset + row * (h + margin), width: w, height: h)
                }
            case .rows, .cols:
                let alongX = g.splitsX
                let kids = g.children
                let n = kids.count
                let spacing = g.spacing ?? 0
                let axis = alongX ? rect.width : rect.height
                let pad = alongX ? p.l + p.r : p.t + p.b
                var fixed = pad + Double(n - 1) * spacing
                let inner = axis - fixed
                var sizes = [Double](repeating: .nan, count: n)
                for (i, c) in kids.enumerated() {
                    switch c.effectiveSize {
                    case .fixed(let v): sizes[i] = v
                    case .zero: sizes[i] = 0
                    case .wrap: sizes[i] = Reference.extent(c, onX: alongX)
                    case .ratio(let r): sizes[i] = r * inner
                    default: continue
                    }
                    fixed += sizes[i]
                }
                var remained = axis - fixed
                for (i, c) in kids.enumerated() {
                    if case .remaining(let r) = c.effectiveSize {
                        sizes[i] = r * remained
                        remained -= sizes[i]
                    }
                }
                var fillsLeft = kids.filter { if case .fill = $0.effectiveSize { return true } else { return false } }.count
                for (i, c) in kids.enumerated() {
                    if case .fill = c.effectiveSize {
                        sizes[i] = roundPx(remained / Double(fillsLeft))
                        remained -= sizes[i]
                        fillsLeft -= 1
                    }
                }
                let total = sizes.reduce(0, +) + Double(n - 1) * spacing
                let free = axis - pad - total
                let shift = [0, free / 2, free][alignment(g)]
                if !alongX {
                    var y = rect.y + p.t + shift
                    for (i, c) in kids.enumerated() {
                        place(c, path: childPath(i), rect: Rect(x: rect.x + p.l, y: y, width: rect.width - p.l - p.r, height: sizes[i]))
                        y += sizes[i] + spacing
                    }
                } else if !rtl {
                    var x = rect.x + p.l + shift
                    for (i, c) in kids.enumerated() {
                        place(c, path: childPath(i), rect: Rect(x: x, y: rect.y + p.t, width: sizes[i], height: rect.height - p.t - p.b))
                        x += sizes[i] + spacing
                    }
                } else {
                    // RTL: the start is the physical right, after the right padding.
                    var right = rect.x + rect.width - p.r - shift
                    for (i, c) in kids.enumerated() {
                        place(c, path: childPath(i), rect: Rect(x: right - sizes[i], y: rect.y + p.t, width: sizes[i], height: rect.height - p.t - p.b))
                        right -= sizes[i] + spacing
                    }
                }
            }
        }

        /// Section 5: half-open containment on the normalised rect.
        static func contains(_ r: Rect, _ x: Double, _ y: Double) -> Bool {
            let x0 = r.width < 0 ? r.x + r.width : r.x, w = abs(r.width)
            let y0 = r.height < 0 ? r.y + r.height : r.y, h = abs(r.height)
            return x0 <= x && x < x0 + w && y0 <= y && y < y0 + h
        }

        /// Section 5's pseudocode over the given rects (by path).
        static func hit(_ g: Node, path: String, rects: [String: Rect], x: Double, y: Double) -> String? {
            guard let r = rects[path], contains(r, x, y) else { return nil }
            for (i, c) in g.children.enumerated() {
                if let found = hit(c, path: path.isEmpty ? "\(i)" : "\(path)/\(i)", rects: rects, x: x, y: y) { return found }
            }
            let hittable = path.isEmpty ? (g.actionData || g.action) : (g.tag != 0 || g.actionData || g.action)
            return hittable ? path : nil
        }
    }

    // MARK: - The comparison

    struct Stats {
        var layouts = 0, rects = 0, taps = 0, noisy = 0, hits = 0
        var searches: [ResolvedLayout.ChildSearch: Int] = [:]
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    static func run(seed: UInt64, wide: Bool, stats: inout Stats) {
        var generator = Generator(rng: Rng(state: seed), wide: wide)
        let root = generator.node(depth: 0, parentSplitsX: nil, restricted: false)
        var rng = generator.rng
        let width = wide ? Double(rng.int(100...400)) : Double(rng.int(0...80)) * 5 + rng.pick([0, 0.5])
        let height = wide ? Double(rng.int(100...400)) : Double(rng.int(0...80)) * 5
        let rtl = rng.chance(0.5)
        let scale = rng.pick([1.0, 2.0, 3.0])
        let grid = json(root, isRoot: true)
        let context = "seed \(seed) \(width)x\(height) \(rtl ? "rtl" : "ltr") scale \(scale): \(shown(grid))"

        let (parsed, diagnostics) = GridParser.parse(grid, layout: "random")
        guard let tree = parsed else {
            Issue.record("does not parse: \(diagnostics.all.map(\.description)) \(context)")
            return
        }
        let layout = Resolver.resolve(tree, in: LayoutFrame(width: width, height: height, direction: rtl ? .rtl : .ltr, scale: scale))
        var reference = Reference(rtl: rtl, scale: scale)
        reference.place(root, path: "", rect: Rect(x: 0, y: 0, width: width, height: height))
        stats.layouts += 1
        for search in layout.childSearch where search != .linear { stats.searches[search, default: 0] += 1 }

        #expect(reference.rects.count == tree.count, "grid count \(context)")
        var engineRects: [String: Rect] = [:]
        for (path, want) in reference.rects {
            guard let index = tree.index(ofPath: path) else {
                Issue.record("no grid \(path) in \(context)")
                return
            }
            #expect(tree.path(of: index) == path)
            let got = layout.rects[index]
            engineRects[path] = got
            stats.rects += 1
            if !(close(got.x, want.x) && close(got.y, want.y) && close(got.width, want.width) && close(got.height, want.height)) {
                Issue.record("grid \"\(path)\": engine \(got), reference \(want); \(context)")
                return
            }
        }

        // Points: uniform over (and a little beyond) the layout, then on and next to grid edges.
        var points: [(Double, Double)] = []
        for _ in 0..<30 { points.append((rng.unit() * (width + 20) - 10, rng.unit() * (height + 20) - 10)) }
        let rectList = Array(engineRects.values) + Array(reference.rects.values)
        for _ in 0..<60 {
            let r = rng.pick(rectList), s = rng.pick(rectList)
            func along(_ start: Double, _ size: Double) -> Double {
                switch rng.int(0...5) {
                case 0: return start
                case 1: return start + size
                case 2: return start + size / 2
                case 3: return start.nextDown
                case 4: return (start + size).nextDown
                default: return start + rng.unit() * size
                }
            }
            points.append(rng.chance(0.5) ? (along(r.x, r.width), along(r.y, r.height)) : (along(r.x, r.width), along(s.y, s.height)))
        }
        // The tap path's copy of the layout (what `ActiveConfig` hit-tests) must answer alike.
        let index = HitIndex(LoadedLayout(name: "random", debounceMs: 0, resolved: layout), firstSlot: 0)
        defer { index.free() }
        for (x, y) in points {
            stats.taps += 1
            let hit = layout.hit(x: x, y: y)
            let scan = layout.hitByScan(x: x, y: y)
            if hit != scan {
                Issue.record("(\(x), \(y)): hit \(hit.map(tree.path(of:)) ?? "nil"), hitByScan \(scan.map(tree.path(of:)) ?? "nil"); \(context)")
                continue
            }
            let target = index.target(x: x, y: y)
            if target?.grid != hit || target.map({ $0.info != Int(tree.nodes[$0.grid].info) }) == true {
                Issue.record("(\(x), \(y)): HitIndex \(String(describing: target)), hit \(hit.map(tree.path(of:)) ?? "nil"); \(context)")
                continue
            }
            let path = hit.map(tree.path(of:))
            if path != nil { stats.hits += 1 }
            let onEngine = Reference.hit(root, path: "", rects: engineRects, x: x, y: y)
            if path != onEngine {
                Issue.record("(\(x), \(y)): engine \(path ?? "nil"), reference hit-test on the engine's rects \(onEngine ?? "nil"); \(context)")
                continue
            }
            let onReference = Reference.hit(root, path: "", rects: reference.rects, x: x, y: y)
            // Rects agree within 1e-9; a point exactly on an edge may fall either side of a last-bit difference.
            if onReference != path { stats.noisy += 1 }
        }
    }

    @Test func randomLayoutsMatchTheReference() {
        var stats = Stats()
        for seed in 1...300 { Self.run(seed: UInt64(seed) &* 0x1000_0001, wide: false, stats: &stats) }
        #expect(stats.layouts == 300)
        #expect(stats.noisy * 50 <= stats.taps, "\(stats.noisy) of \(stats.taps) taps differ only by rounding noise")
        #expect(stats.hits * 4 >= stats.taps, "too few taps hit anything: \(stats.hits) of \(stats.taps)")
    }

    @Test func wideListsUseTheSearchesAndMatch() {
        var stats = Stats()
        for seed in 1...120 { Self.run(seed: UInt64(seed) &* 0x2000_0003 &+ 7, wide: true, stats: &stats) }
        #expect(stats.noisy * 50 <= stats.taps, "\(stats.noisy) of \(stats.taps) taps differ only by rounding noise")
        for search in [ResolvedLayout.ChildSearch.ascendingX, .ascendingY, .descendingX, .matrix] {
            #expect(stats.searches[search, default: 0] >= 5, "search \(search) used only \(stats.searches[search, default: 0]) times")
        }
    }
}
