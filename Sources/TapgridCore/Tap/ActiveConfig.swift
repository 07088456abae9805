/// The config in use, with the JSON pieces a tap's reply and event-log record repeat, written
/// once. Replaced whole when a config is swapped in and otherwise never mutated in its `let`s,
/// so the tap path reads the config in place: a `let` of a final class needs no copy and no
/// exclusivity check, where a `var` struct property of the daemon would be copied per access.
///
/// The fragments: per layout and
/// generation the head (`"layout":"home","generation":3,...`), per handler and outcome the tail
/// (`,"handler":"browser","outcome":"dispatched"`), and per grid its path and details
/// (`"0/1","name":..,"tag":..,"actionData":..`) on its first hit. A tap then copies a few byte
/// runs instead of escaping names, formatting numbers and walking the tree again. Loop-owned.
public final class ActiveConfig {
    public let config: Config
    /// `config.layouts` (the same storage), for the tap path: calling a method on `config`
    /// itself copies the whole `Config` per call.
    public let layouts: [LoadedLayout]
    /// Successful config loads when this one was swapped in (1 for the first).
    public let generation: UInt64
    /// Per layout: `"layout":"home","generation":3,"hit":` (a reply, after `seq`).
    public let replyHeads: [[UInt8]]
    /// Per layout: `,"layout":"home","generation":3,"x":` (an event-log record, after `seq`).
    public let recordHeads: [[UInt8]]
    /// At `(handler slot + 1) * outcomes + outcome` (slot -1: unrouted): `,"handler":...,"outcome":"..."`.
    private let tails: [[UInt8]]
    private let outcomes = Outcome.allCases.count
    /// At `hitStart[layout] + info slot`: the grid's hit fragment, empty until its first hit.
    /// Memory this object owns rather than a `var` array: filling one in on a first hit is rare,
    /// and reads then cost no exclusivity check and no copy-on-write check per tap.
    private let hits: UnsafeMutableBufferPointer<[UInt8]>
    /// Indexed as `hits`: what a `log` handler's line says after `seq=N` for the grid, empty
    /// until its first logged tap.
    private let logTails: UnsafeMutableBufferPointer<[UInt8]>
    private let hitStart: [Int]

    public init(config: Config, generation: UInt64) {
        self.config = config
        self.layouts = config.layouts
        self.generation = generation
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
        replyHeads = layoutNames.map { name in
            Array(#""layout":"#.utf8) + name + Array(#","generation":"#.utf8) + generationBytes + Array(#","hit":"#.utf8)
        }
        recordHeads = layoutNames.map { name in
            Array(#","layout":"#.utf8) + name + Array(#","generation":"#.utf8) + generationBytes + Array(#","x":"#.utf8)
        }
        tails = ([Array("null".utf8)] + handlerNames).flatMap { (handler: [UInt8]) -> [[UInt8]] in
            Outcome.allCases.map { (outcome: Outcome) -> [UInt8] in
                Array(#","handler":"#.utf8) + handler + Array(#","outcome":""#.utf8)
                    + Array(UnsafeBufferPointer(start: outcome.name.utf8Start, count: outcome.name.utf8CodeUnitCount)) + [0x22]
            }
        }

        var starts: [Int] = []
        var total = 0
        for layout in config.layouts {
            starts.append(total)
            total += layout.tree.infos.count
        }
        hitStart = starts
        hits = .allocate(capacity: total)
        hits.initialize(repeating: [])
        logTails = .allocate(capacity: total)
        logTails.initialize(repeating: [])
    }

    deinit {
        hits.deinitialize()
        hits.deallocate()
        logTails.deinitialize()
        logTails.deallocate()
    }

    /// `Config.layoutIndex(named:)`, on `layouts` for the same reason as `target`.
    public func layoutIndex(named name: String) -> Int? { layouts.firstIndex { $0.name == name } }

    /// The `unknown_layout` message: `unknown layout "nope"; the layouts are "home", "other"`.
    public func unknownLayout(_ name: String) -> String {
        "unknown layout \(jsonEscaped(name)); the layouts are " + layouts.map { jsonEscaped($0.name) }.joined(separator: ", ")
    }

    /// `,"handler":...,"outcome":"..."` for a handler slot (-1: unrouted).
    public func tail(handler slot: Int32, outcome: Outcome) -> [UInt8] {
        tails[(Int(slot) + 1) * outcomes + outcome.rawValue]
    }

    /// The hit grid's path as a JSON string, then `,` and its details:
    /// `"0/1","name":...,"tag":...,"actionData":...` (after `"path":` in a reply's hit object,
    /// after `"hit":` in an event-log record).
    /// - Parameter slot: the grid's info slot (every hittable grid has one).
    public func hit(layout: Int, grid: Int, slot: Int) -> [UInt8] {
        let index = hitStart[layout] + slot
        if hits[index].isEmpty { hits[index] = Self.hitFragment(layouts[layout].tree, grid: grid, slot: slot) }
        return hits[index]
    }

    /// What a `log` handler's line says about a grid after its `seq`:
    /// ` layout="home" grid="0/1" name="web" tag=1 handler="audit" actionData="https://..."` and `\n`.
    /// - Parameter slot: the grid's info slot; its handler must be set.
    /// - Parameters:
    ///   - handler: the handler that took the tap.
    ///   - isTapHandler: whether that is the grid's `tap` handler (cached); another class's (a long
    ///     press's, a hold's, a double's) is written afresh.
    public func logTail(layout: Int, grid: Int, slot: Int, handler: Int32, isTapHandler: Bool) -> [UInt8] {
        let index = hitStart[layout] + slot
        guard isTapHandler else { return logTailFragment(layout: layout, grid: grid, slot: slot, handler: handler) }
        if logTails[index].isEmpty { logTails[index] = logTailFragment(layout: layout, grid: grid, slot: slot, handler: handler) }
        return logTails[index]
    }

    private func logTailFragment(layout: Int, grid: Int, slot: Int, handler: Int32) -> [UInt8] {
        let tree = layouts[layout].tree
        let info = tree.infos[slot]
        var bytes = Array(" layout=".utf8)
        JSONWriter.appendString(layouts[layout].name, to: &bytes)
        bytes += Array(" grid=\"".utf8)
        tree.appendPath(of: grid, to: &bytes)
        bytes += Array("\" name=".utf8)
        if let name = info.name { JSONWriter.appendString(name, to: &bytes) } else { bytes += Array("null".utf8) }
        bytes += Array(" tag=".utf8)
        if info.tag != 0 { JSONWriter.appendInt(info.tag, to: &bytes) } else { bytes += Array("null".utf8) }
        bytes += Array(" handler=".utf8)
        JSONWriter.appendString(config.handlers[Int(handler)].name, to: &bytes)
        bytes += Array(" actionData=".utf8)
        bytes += Array(info.actionDataJSON.utf8)
        bytes.append(0x0A)
        return bytes
    }

    private static func hitFragment(_ tree: GridTree, grid: Int, slot: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        tree.appendPath(of: grid, to: &bytes)
        bytes += Array(#"","name":"#.utf8)
        let info = tree.infos[slot]
        if let name = info.name { JSONWriter.appendString(name, to: &bytes) } else { bytes += Array("null".utf8) }
        bytes += Array(#","tag":"#.utf8)
        if info.tag != 0 { JSONWriter.appendInt(info.tag, to: &bytes) } else { bytes += Array("null".utf8) }
        bytes += Array(#","actionData":"#.utf8)
        bytes += Array(info.actionDataJSON.utf8)
        return bytes
    }
}
