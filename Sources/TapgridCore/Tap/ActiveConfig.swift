/// The config in use, with the JSON pieces a tap's reply and event-log record repeat, written
/// once, and each layout's hit-test data. Replaced whole when a config is swapped in and never
/// mutated, so the tap path reads it in place: a `let` of a final class needs no copy and no
/// exclusivity check, where a `var` struct property of the daemon would be copied per access.
///
/// The fragments: per layout and
/// generation the head (`"layout":"home","generation":3,...`), per handler and outcome the tail
/// (`,"handler":"browser","outcome":"dispatched"`), and per grid its path and details
/// (`"0/1","name":..,"tag":..,"actionData":..`). A tap then copies a few byte runs instead of
/// escaping names, formatting numbers and walking the tree again. They are all built at load
/// (not on a grid's first hit), so memory does not grow as taps reach new grids, and they live in
/// `ByteTable`s and `HitIndex`es: raw memory this object frees, read without retains.
public final class ActiveConfig {
    public let config: Config
    /// `config.layouts` (the same storage), for the tap path: calling a method on `config`
    /// itself copies the whole `Config` per call.
    public let layouts: [LoadedLayout]
    /// Successful config loads when this one was swapped in (1 for the first).
    public let generation: UInt64
    /// Some grid has `"toggle": true` (taps then look at cell state).
    public let hasToggles: Bool
    /// Some grid is a slider (docs/touch.md "Sliders"): a plain tap on one is a `release`.
    public let hasSliders: Bool
    /// Per layout: `"layout":"home","generation":3,"hit":` (a reply, after `seq`).
    public let replyHeads: ByteTable
    /// Per layout: `,"layout":"home","generation":3,"x":` (an event-log record, after `seq`).
    public let recordHeads: ByteTable
    /// At `(handler slot + 1) * outcomes + outcome` (slot -1: unrouted): `,"handler":...,"outcome":"..."`.
    private let tails: ByteTable
    private let outcomes = Outcome.allCases.count
    /// Per layout, its hit-test data (`layouts.count` of them).
    private let hitIndexes: UnsafeMutableBufferPointer<HitIndex>
    /// At `hitIndexes[layout].firstSlot + info slot`: the grid's hit fragment.
    private let hits: ByteTable
    /// Indexed as `hits`: what a `log` handler's line says after `seq=N` for the grid whose `tap`
    /// handler is a `log` handler (empty for other grids).
    private let logTails: ByteTable

    public init(config: Config, generation: UInt64) {
        self.config = config
        self.layouts = config.layouts
        self.generation = generation
        hasToggles = config.layouts.contains { $0.tree.infos.contains { $0.toggle } }
        hasSliders = config.layouts.contains { !$0.tree.sliders.isEmpty }
        let layoutNames = config.layouts.map { layout in
            var bytes: [UInt8] = []
            JSONWriter.appendString(layout.name, to: &bytes)
            return bytes
        }
        let handlerNames = config.handlers.map { handler in
            var bytes: [UInt8] = []
            JSONWriter.appendString(handler.name, to: &bytes)
            return bytes
        }
        var generationBytes: [UInt8] = []
        JSONWriter.appendInt(Int64(truncatingIfNeeded: generation), to: &generationBytes)
        replyHeads = ByteTable(layoutNames.map { name in
            Array(#""layout":"#.utf8) + name + Array(#","generation":"#.utf8) + generationBytes + Array(#","hit":"#.utf8)
        })
        recordHeads = ByteTable(layoutNames.map { name in
            Array(#","layout":"#.utf8) + name + Array(#","generation":"#.utf8) + generationBytes + Array(#","x":"#.utf8)
        })
        tails = ByteTable(([Array("null".utf8)] + handlerNames).flatMap { (handler: [UInt8]) -> [[UInt8]] in
            Outcome.allCases.map { (outcome: Outcome) -> [UInt8] in
                Array(#","handler":"#.utf8) + handler + Array(#","outcome":""#.utf8)
                    + Array(UnsafeBufferPointer(start: outcome.name.utf8Start, count: outcome.name.utf8CodeUnitCount)) + [0x22]
            }
        })

        hitIndexes = .allocate(capacity: config.layouts.count)
        let slots = config.layouts.reduce(0) { $0 + $1.tree.infos.count }
        var hitTable = ByteTable.Builder(entries: slots, bytesEach: 64)
        var logTable = ByteTable.Builder(entries: slots, bytesEach: 96)
        var firstSlot = 0
        for (index, layout) in config.layouts.enumerated() {
            (hitIndexes.baseAddress! + index).initialize(to: HitIndex(layout, firstSlot: firstSlot))
            let tree = layout.tree
            var gridOfSlot = [Int](repeating: 0, count: tree.infos.count)
            for (grid, node) in tree.nodes.enumerated() where node.info >= 0 { gridOfSlot[Int(node.info)] = grid }
            for (slot, grid) in gridOfSlot.enumerated() {
                hitTable.add { Self.writeHitFragment(tree, grid: grid, slot: slot, to: &$0) }
                let handler = tree.infos[slot].handler
                logTable.add { bytes in
                    if handler >= 0, case .log = config.handlers[Int(handler)].kind {
                        Self.writeLogTail(config, layout: layout, grid: grid, slot: slot, handler: handler, to: &bytes)
                    }
                }
            }
            firstSlot += tree.infos.count
        }
        hits = hitTable.build()
        logTails = logTable.build()
    }

    deinit {
        for index in hitIndexes.indices { hitIndexes[index].free() }
        hitIndexes.deallocate()
        for table in [replyHeads, recordHeads, tails, hits, logTails] { table.free() }
    }

    /// What a tap at (x, y) on layout `layout` hits: the grid, its info slot and its handler slot
    /// (-1: unrouted); nil for a miss.
    @inline(__always)
    public func target(layout: Int, x: Double, y: Double) -> TapTarget? {
        hitIndexes[layout].target(x: x, y: y)
    }

    /// The grid's slider with what its value is worked out from, nil when it is none.
    public func slider(layout: Int, grid: Int) -> SliderPlace? {
        guard hasSliders else { return nil }
        let resolved = layouts[layout].resolved
        guard let spec = resolved.tree.sliders[Int32(grid)] else { return nil }
        return SliderPlace(spec: spec, rect: resolved.rects[grid], direction: resolved.frame.direction)
    }

    /// `Config.layoutIndex(named:)`, on `layouts` for the same reason as `target`.
    public func layoutIndex(named name: String) -> Int? { layouts.firstIndex { $0.name == name } }

    /// The `unknown_layout` message: `unknown layout "nope"; the layouts are "home", "other"`.
    public func unknownLayout(_ name: String) -> String {
        "unknown layout \(jsonEscaped(name)); the layouts are " + layouts.map { jsonEscaped($0.name) }.joined(separator: ", ")
    }

    /// `,"handler":...,"outcome":"..."` for a handler slot (-1: unrouted).
    @inline(__always)
    public func tail(handler slot: Int32, outcome: Outcome) -> UnsafeBufferPointer<UInt8> {
        tails[(Int(slot) + 1) * outcomes + outcome.rawValue]
    }

    /// The hit grid's path as a JSON string, then `,` and its details:
    /// `"0/1","name":...,"tag":...,"actionData":...` (after `"path":` in a reply's hit object,
    /// after `"hit":` in an event-log record).
    /// - Parameter slot: the grid's info slot (every hittable grid has one).
    @inline(__always)
    public func hit(layout: Int, slot: Int) -> UnsafeBufferPointer<UInt8> {
        hits[hitIndexes[layout].firstSlot + slot]
    }

    /// Calls `body` with what a `log` handler's line says about a grid after its `seq`:
    /// ` layout="home" grid="0/1" name="web" tag=1 handler="audit" actionData="https://..."` and `\n`.
    /// - Parameters:
    ///   - slot: the grid's info slot; `handler` must be set.
    ///   - handler: the handler that took the tap.
    ///   - isTapHandler: whether that is the grid's `tap` handler (prebuilt); another class's (a
    ///     long press's, a hold's, a double's) is written afresh.
    public func withLogTail<R>(
        layout: Int, grid: Int, slot: Int, handler: Int32, isTapHandler: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        if isTapHandler {
            let prebuilt = logTails[hitIndexes[layout].firstSlot + slot]
            if !prebuilt.isEmpty { return body(prebuilt) }
        }
        var bytes: [UInt8] = []
        Self.writeLogTail(config, layout: layouts[layout], grid: grid, slot: slot, handler: handler, to: &bytes)
        return bytes.withUnsafeBufferPointer(body)
    }

    private static func writeLogTail(
        _ config: Config, layout: LoadedLayout, grid: Int, slot: Int, handler: Int32, to bytes: inout [UInt8]
    ) {
        let tree = layout.tree
        let info = tree.infos[slot]
        JSONWriter.appendStatic(" layout=", to: &bytes)
        JSONWriter.appendString(layout.name, to: &bytes)
        JSONWriter.appendStatic(" grid=\"", to: &bytes)
        tree.appendPath(of: grid, to: &bytes)
        JSONWriter.appendStatic("\" name=", to: &bytes)
        if let name = info.name { JSONWriter.appendString(name, to: &bytes) } else { JSONWriter.appendStatic("null", to: &bytes) }
        JSONWriter.appendStatic(" tag=", to: &bytes)
        if info.tag != 0 { JSONWriter.appendInt(info.tag, to: &bytes) } else { JSONWriter.appendStatic("null", to: &bytes) }
        JSONWriter.appendStatic(" handler=", to: &bytes)
        JSONWriter.appendString(config.handlers[Int(handler)].name, to: &bytes)
        JSONWriter.appendStatic(" actionData=", to: &bytes)
        bytes += info.actionDataJSON.utf8
        bytes.append(0x0A)
    }

    private static func writeHitFragment(_ tree: GridTree, grid: Int, slot: Int, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        tree.appendPath(of: grid, to: &bytes)
        JSONWriter.appendStatic(#"","name":"#, to: &bytes)
        let info = tree.infos[slot]
        if let name = info.name { JSONWriter.appendString(name, to: &bytes) } else { JSONWriter.appendStatic("null", to: &bytes) }
        JSONWriter.appendStatic(#","tag":"#, to: &bytes)
        if info.tag != 0 { JSONWriter.appendInt(info.tag, to: &bytes) } else { JSONWriter.appendStatic("null", to: &bytes) }
        JSONWriter.appendStatic(#","actionData":"#, to: &bytes)
        bytes += info.actionDataJSON.utf8
    }
}
