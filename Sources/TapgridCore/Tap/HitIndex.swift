/// One layout's hit-test data, copied into memory its `ActiveConfig` owns, with each grid's
/// handler slot. Only raw pointers: reading it from the tap path retains nothing, where reaching
/// the same arrays through `[LoadedLayout]` cost seven retain/release pairs per tap (about 300
/// instructions, measured with callgrind).
struct HitIndex {
    private let nodes: UnsafeMutableBufferPointer<GridNode>
    private let rects: UnsafeMutableBufferPointer<Rect>
    private let search: UnsafeMutableBufferPointer<ResolvedLayout.ChildSearch>
    private let matrices: UnsafeMutableBufferPointer<MatrixSpec>
    /// By info slot: the handler slot that takes the grid's taps (-1: unrouted).
    private let handlers: UnsafeMutableBufferPointer<Int32>
    /// Where this layout's info slots start in `ActiveConfig`'s per-slot tables.
    let firstSlot: Int

    init(_ layout: LoadedLayout, firstSlot: Int) {
        let resolved = layout.resolved
        nodes = Self.copy(resolved.tree.nodes)
        rects = Self.copy(resolved.rects)
        search = Self.copy(resolved.childSearch)
        matrices = Self.copy(resolved.tree.matrices)
        handlers = Self.copy(resolved.tree.infos.map(\.handler))
        self.firstSlot = firstSlot
    }

    private static func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: array.count)
        _ = buffer.initialize(from: array)
        return buffer
    }

    /// Frees the copies (the owner's `deinit`; the elements are trivial).
    func free() {
        nodes.deallocate()
        rects.deallocate()
        search.deallocate()
        matrices.deallocate()
        handlers.deallocate()
    }

    /// What a tap at (x, y) hits (`ResolvedLayout.hit`): the grid, its info slot and handler slot.
    func target(x: Double, y: Double) -> TapTarget? {
        let walker = HitWalker(
            nodes: UnsafeBufferPointer(nodes), rects: UnsafeBufferPointer(rects), search: UnsafeBufferPointer(search),
            matrices: UnsafeBufferPointer(matrices), x: x, y: y)
        let grid = walker.hit(0)
        guard grid >= 0 else { return nil }
        // A hit grid is hittable, so it has an info slot (its tag, action-data or action).
        let info = Int(nodes[grid].info)
        return TapTarget(grid: grid, info: info, handler: info >= 0 ? handlers[info] : -1)
    }
}
