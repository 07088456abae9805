import TapgridCore

/// The config in use, with the JSON pieces a tap's reply and event-log record repeat, written
/// once. Replaced whole when a config is swapped in and otherwise never mutated in its `let`s,
/// so the tap path reads the config in place: a `let` of a final class needs no copy and no
/// exclusivity check, where a `var` struct property of the daemon would be copied per access.
///
/// The fragments: per layout and
/// generation the head (`"layout":"home","generation":3,...`), per handler and outcome the tail
/// (`,"handler":"browser","outcome":"dispatched"`), and per grid its path and details
/// (`"name":..,"tag":..,"actionData":..`) on its first hit. A tap then copies a few byte runs
/// instead of escaping names, formatting numbers and walking the tree again. Loop-owned.
final class ActiveConfig {
    let config: Config
    /// Successful config loads when this one was swapped in (1 for the first).
    let generation: UInt64
    /// Per layout: `"layout":"home","generation":3,"hit":` (a reply, after `seq`).
    let replyHeads: [[UInt8]]
    /// Per layout: `,"layout":"home","generation":3,"x":` (an event-log record, after `seq`).
    let recordHeads: [[UInt8]]
    /// Per handler slot + 1 (0: unrouted) and outcome: `,"handler":...,"outcome":"..."`.
    private let tails: [[[UInt8]]]
    /// The layouts' trees, for building a grid's fragments on its first hit.
    private let trees: [GridTree]
    /// Per layout, per grid-info slot: `"0/1"`; empty until the grid is first hit.
    private var paths: [[[UInt8]]]
    /// Per layout, per grid-info slot: `"name":...,"tag":...,"actionData":...`.
    private var details: [[[UInt8]]]

    init(config: Config, generation: UInt64) {
        self.config = config
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
        tails = ([Array("null".utf8)] + handlerNames).map { handler in
            Outcome.allCases.map { outcome in
                Array(#","handler":"#.utf8) + handler + Array(#","outcome":""#.utf8)
                    + Array(UnsafeBufferPointer(start: outcome.name.utf8Start, count: outcome.name.utf8CodeUnitCount)) + [0x22]
            }
        }

        trees = config.layouts.map { $0.resolved.tree }
        paths = config.layouts.map { [[UInt8]](repeating: [], count: $0.tree.infos.count) }
        details = paths
    }

    /// Appends `,"handler":...,"outcome":"..."` for a handler slot (-1: unrouted).
    func appendTail(handler slot: Int32, outcome: Outcome, to out: ByteBuffer) {
        out.append(tails[Int(slot) + 1][outcome.rawValue])
    }

    /// Appends the hit grid's path as a JSON string, then `,` and its details.
    /// - Parameters:
    ///   - slot: the grid's info slot (every hittable grid has one).
    ///   - pathKey: `"path":` inside a reply's hit object, `"hit":` in an event-log record.
    func appendHit(layout: Int, grid: Int, slot: Int, pathKey: StaticString, to out: ByteBuffer) {
        if paths[layout][slot].isEmpty { build(layout: layout, grid: grid, slot: slot) }
        out.append(pathKey)
        out.append(paths[layout][slot])
        out.append(0x2C)
        out.append(details[layout][slot])
    }

    private func build(layout: Int, grid: Int, slot: Int) {
        let tree = trees[layout]
        var path: [UInt8] = [0x22]
        tree.appendPath(of: grid, to: &path)
        path.append(0x22)
        let info = tree.infos[slot]
        var detail: [UInt8] = Array(#""name":"#.utf8)
        if let name = info.name { JSONWriter.appendString(name, to: &detail) } else { detail += Array("null".utf8) }
        detail += Array(#","tag":"#.utf8)
        if info.tag != 0 { JSONWriter.appendInt(info.tag, to: &detail) } else { detail += Array("null".utf8) }
        detail += Array(#","actionData":"#.utf8)
        detail += Array(info.actionDataJSON.utf8)
        paths[layout][slot] = path
        details[layout][slot] = detail
    }
}
