/// A rectangle in points, origin top-left, y down. Width and height may be negative (overflow).
public struct Rect: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// Half-open containment on the normalised rect; an empty rect contains nothing.
    @inline(__always)
    public func contains(x px: Double, y py: Double) -> Bool {
        let x0 = width < 0 ? x + width : x
        let y0 = height < 0 ? y + height : y
        return px >= x0 && px < x0 + abs(width) && py >= y0 && py < y0 + abs(height)
    }
}

/// Reading direction of a layout: in `rtl` the first column sits at the right.
public enum LayoutDirection: String, Sendable {
    case ltr, rtl
}

/// The surface a layout is resolved for.
public struct LayoutFrame: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var direction: LayoutDirection
    /// Pixels per point: fill sizes are rounded to `1 / scale`.
    public var scale: Double

    public init(width: Double, height: Double, direction: LayoutDirection = .ltr, scale: Double = 1) {
        self.width = width
        self.height = height
        self.direction = direction
        self.scale = scale
    }
}

/// A layout resolved to a physical rect for every grid: immutable, shared freely between threads.
public struct ResolvedLayout: Sendable {
    public internal(set) var tree: GridTree
    public let frame: LayoutFrame
    /// Physical rects, indexed like `tree.nodes`.
    public let rects: [Rect]
    /// Per grid: how its children may be searched (see `ChildSearch`).
    let childSearch: [ChildSearch]

    /// How hit-testing finds the child under a point.
    enum ChildSearch: UInt8, Sendable {
        /// Try children in declaration order (few children, or siblings that overlap).
        case linear
        /// Disjoint children whose start grows with the index along x / y: binary search.
        case ascendingX, ascendingY
        /// Disjoint children whose start shrinks with the index along x (RTL columns).
        case descendingX
        /// Matrix cells: found by arithmetic.
        case matrix
    }

    public var count: Int { rects.count }
}
