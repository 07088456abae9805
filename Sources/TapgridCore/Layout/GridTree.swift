/// How a grid splits its area among its children.
public enum GridAxis: UInt8, Sendable {
    /// No children.
    case leaf
    /// Children stacked top to bottom.
    case rows
    /// Children laid leading to trailing.
    case cols
    /// Children are the cells of a `matrix`.
    case matrix
}

/// Edge insets in UIEdgeInsets order, as the `padding` string writes them.
public struct Padding: Sendable, Equatable {
    public var top: Double, left: Double, bottom: Double, right: Double
    public static let zero = Padding(top: 0, left: 0, bottom: 0, right: 0)
}

/// MyLayout's gravity bits (MyLayoutDef.h); only exact centre or end values move children.
public struct Gravity: Sendable, Equatable {
    public var bits: UInt16
    public static let none = Gravity(bits: 0)
    static let left: UInt16 = 0x0001, centerX: UInt16 = 0x0002, right: UInt16 = 0x0004
    static let leading: UInt16 = 0x0020, trailing: UInt16 = 0x0040
    static let top: UInt16 = 0x0100, centerY: UInt16 = 0x0200, bottom: UInt16 = 0x0400
    static let tokens: [(String, UInt16)] = [
        ("top", top), ("bottom", bottom), ("left", left), ("right", right), ("leading", leading),
        ("trailing", trailing), ("centerX", centerX), ("centerY", centerY), ("width", 0x0007), ("height", 0x0700),
    ]
}

/// How a grid lays out its children: padding, spacing and gravity. Kept in a side table
/// (`GridTree.styles`) for the grids that set any of them, so plain grids, most leaves among
/// them, carry none of its 42 bytes.
public struct GridStyle: Sendable, Equatable {
    public var padding: Padding = .zero
    public var spacing: Double = 0
    public var gravity: Gravity = .none
    public static let plain = GridStyle()
}

/// A borderline: drawing only, never geometry.
public struct Borderline: Sendable, Equatable {
    public enum Edge: String, Sendable, CaseIterable { case top, left, bottom, right }
    public var edge: Edge
    public var color: String = "#000000"
    public var thick: Double = 1
    public var head: Double = 0
    public var tail: Double = 0
    public var offset: Double = 0
    public var dash: Double = 0
}

/// The `matrix` extension: `count` uniform cells in `cols` columns (docs/layouts.md "Layout semantics").
public struct MatrixSpec: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        case between(cellWidth: Double, cellHeight: Double)
        case evenly(cellWidth: Double, cellHeight: Double)
        case margin(Double)
    }
    public var cols: Int
    public var rows: Int
    public var count: Int
    public var mode: Mode
}

/// What makes a grid worth routing to, kept aside so plain grids cost nothing.
public struct GridInfo: Sendable {
    public var name: String?
    /// 0 means no tag.
    public var tag: Int64 = 0
    /// The handler named by the grid's `action` key.
    public var action: String?
    /// `action-data` as compact JSON when the key is present (JSON `null` included), else nil.
    /// Kept as text only: replies and logs copy it as is, and the few handlers that need the
    /// value parse it back (`actionData`), which keeps this struct small for huge layouts.
    public var actionDataText: String?
    /// Index of the handler that takes this grid's taps, set by the config (-1: unrouted).
    public var handler: Int32 = -1
    /// `"toggle": true`: each `tap`-class tap flips the grid's `active` before it is routed.
    public var toggle = false
    /// Index into `GridTree.looks` (the grid's `text`, `icon` and `style`), or -1.
    public var look: Int32 = -1

    /// `actionData` as compact JSON, or `null` when absent: written into replies and logs as is.
    public var actionDataJSON: String { actionDataText ?? "null" }

    /// `action-data` when the key is present (JSON `null` included).
    public var actionData: JSONValue? {
        guard let text = actionDataText else { return nil }
        return (try? JSONParser.parse(text, lenient: false)) ?? .null  // our own compact output: always strict JSON
    }
}

/// One grid of a parsed layout. Trees are stored flat with each grid's children contiguous, so
/// resolving is one forward loop and hit-testing can index (or binary-search) a child directly.
public struct GridNode: Sendable {
    public var size: SizeSpec = .fill
    public var axis: GridAxis = .leaf
    public var parent: Int32 = -1
    public var firstChild: Int32 = 0
    public var childCount: Int32 = 0
    /// Index into `GridTree.infos`, or -1.
    public var info: Int32 = -1
    /// Index into `GridTree.matrices`, or -1.
    public var matrix: Int32 = -1
    /// Index into `GridTree.styles`, or -1 for `GridStyle.plain`.
    public var style: Int32 = -1
    public var hittable = false
    public var placeholder = false
    public var anchor = false

    public var children: Range<Int> { Int(firstChild)..<Int(firstChild + childCount) }
}

/// A parsed grid tree: grids in breadth-first order (the root is 0), children contiguous.
public struct GridTree: Sendable {
    public internal(set) var nodes: [GridNode]
    public internal(set) var infos: [GridInfo]
    public internal(set) var matrices: [MatrixSpec]
    /// Padding, spacing and gravity of the grids that set them (`GridNode.style`).
    public internal(set) var styles: [GridStyle] = []
    /// Borderlines by grid index: drawing only, so kept out of the grids themselves.
    public internal(set) var borderlines: [Int32: [Borderline]] = [:]
    /// The `text`, `icon` and `style` keys of the grids that set any (`GridInfo.look`).
    public internal(set) var looks: [GridLook] = []
    /// For `wrap` grids, the size worked out from their children's extents; empty when the
    /// layout has no wrap grid, else indexed like `nodes`.
    public internal(set) var wrapSizes: [Double] = []
    /// The `slider` of the grids that have one, by grid index (docs/touch.md "Sliders").
    public internal(set) var sliders: [Int32: SliderSpec] = [:]

    public var count: Int { nodes.count }

    /// The grid's path: child indices from the root joined by `/`; the root is `""`.
    public func path(of index: Int) -> String {
        var bytes: [UInt8] = []
        appendPath(of: index, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The grid at `path`, if it exists.
    public func index(ofPath path: String) -> Int? {
        var node = 0
        guard !path.isEmpty else { return 0 }
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard let child = Int(part), child >= 0, child < Int(nodes[node].childCount) else { return nil }
            node = Int(nodes[node].firstChild) + child
        }
        return node
    }

    /// The grid's padding, spacing and gravity.
    public func style(of index: Int) -> GridStyle {
        let slot = nodes[index].style
        return slot >= 0 ? styles[Int(slot)] : .plain
    }

    /// The grid's routing details, if it has any.
    public func info(of index: Int) -> GridInfo? {
        let slot = nodes[index].info
        return slot >= 0 ? infos[Int(slot)] : nil
    }

    /// The grid's `text`, `icon` and `style` keys, if it set any.
    public func look(of index: Int) -> GridLook? {
        guard let slot = info(of: index)?.look, slot >= 0 else { return nil }
        return looks[Int(slot)]
    }

    /// The first grid in declaration order whose `name` is `name` (a `set` names its grid so):
    /// read in place, with no grid's details copied out.
    public func grid(named name: String) -> Int? {
        var stack = [0]
        while let node = stack.popLast() {
            let slot = nodes[node].info
            if slot >= 0, infos[Int(slot)].name == name { return node }
            stack.append(contentsOf: nodes[node].children.reversed())
        }
        return nil
    }

    /// Grid indices in pre-order (declaration order, depth first), as tools list them.
    public func preorder() -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(nodes.count)
        var stack = [0]
        while let node = stack.popLast() {
            order.append(node)
            stack.append(contentsOf: nodes[node].children.reversed())
        }
        return order
    }
}
