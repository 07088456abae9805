import TapgridCore

/// The JSON pieces a tap's reply and event-log record repeat: layout and handler names escaped
/// once per config, and each grid's path and details (`"name":..,"tag":..,"actionData":..`)
/// written once, on its first hit. A tap then copies bytes instead of escaping names and
/// walking the tree again. Loop-owned; rebuilt whenever a config is swapped in.
final class TapFragments {
    /// `"home"` per layout index.
    let layoutNames: [[UInt8]]
    /// `"browser"` per handler index.
    let handlerNames: [[UInt8]]
    /// Per layout, per grid-info slot: `"0/1"`; empty until the grid is first hit.
    private var paths: [[[UInt8]]]
    /// Per layout, per grid-info slot: `"name":...,"tag":...,"actionData":...`.
    private var details: [[[UInt8]]]

    init(config: Config) {
        layoutNames = config.layouts.map { layout in
            var bytes: [UInt8] = []
            JSONWriter.appendString(layout.name, to: &bytes)
            return bytes
        }
        handlerNames = config.handlers.map { handler in
            var bytes: [UInt8] = []
            JSONWriter.appendString(handler.name, to: &bytes)
            return bytes
        }
        paths = config.layouts.map { [[UInt8]](repeating: [], count: $0.tree.infos.count) }
        details = paths
    }

    /// Appends the hit grid's path as a JSON string, then `,` and its details.
    /// - Parameters:
    ///   - slot: the grid's info slot (every hittable grid has one).
    ///   - pathKey: `"path":` inside a reply's hit object, `"hit":` in an event-log record.
    func appendHit(layout: Int, grid: Int, slot: Int, tree: GridTree, pathKey: StaticString, to out: inout [UInt8]) {
        if paths[layout][slot].isEmpty { build(layout: layout, grid: grid, slot: slot, tree: tree) }
        ReplyWriter.raw(pathKey, &out)
        out.append(contentsOf: paths[layout][slot])
        out.append(0x2C)
        out.append(contentsOf: details[layout][slot])
    }

    private func build(layout: Int, grid: Int, slot: Int, tree: GridTree) {
        var path: [UInt8] = []
        ReplyWriter.gridPath(tree, grid, &path)
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
