import TapgridCore

/// The grid a hit-test found, as the daemon's `hit` object and the offline hit-test both give it,
/// so that one formatter prints both the same way.
struct HitGrid: Equatable {
    /// The grid path; `""` is the root.
    var path: String
    var name: String?
    /// nil when the grid has none (tag 0 is no tag).
    var tag: Int64?
    /// nil when absent or `null`.
    var actionData: JSONValue?

    /// From the resolved tree (offline).
    init(tree: GridTree, index: Int) {
        let info = tree.info(of: index)
        path = tree.path(of: index)
        name = info?.name
        tag = info.flatMap { $0.tag != 0 ? $0.tag : nil }
        actionData = info?.actionData.flatMap { $0 == .null ? nil : $0 }
    }

    /// From a reply's `hit` object (online).
    init(_ hit: TapReply.Hit) {
        path = hit.path
        name = hit.name
        tag = hit.tag
        actionData = hit.actionData
    }
}

/// One-line descriptions of hits and taps for people.
enum HumanText {
    /// `0 "web" tag 1 actionData "https://example.org"`: the grid's path, then what it carries.
    static func grid(_ grid: HitGrid) -> String {
        var text = gridLabel(grid.path)
        if let name = grid.name { text += " \(jsonEscaped(name))" }
        if let tag = grid.tag { text += " tag \(tag)" }
        if let data = grid.actionData { text += " actionData \(data.compactJSON)" }
        return text
    }

    /// What `tapgrid hit` prints, online and offline alike: `home: 0 "web" tag 1 -> browser`,
    /// `home: 3 tag 99 (unrouted)` or `home: miss`.
    static func hit(layout: String, grid: HitGrid?, handler: String?) -> String {
        guard let grid else { return "\(layout): miss" }
        return "\(layout): \(self.grid(grid))" + (handler.map { " -> \($0)" } ?? " (unrouted)")
    }

    /// What `tapgrid tap` prints: `seq 4 home: 2/0 "docs" tag 1 -> browser: failed: <reason>`.
    /// The reason is the reply's own (`denied`, `failed`); `busy` replies carry none, so it is said here.
    static func tap(
        seq: String?, layout: String, grid: HitGrid?, handler: String?, outcome: String, reason: String?, logged: Bool
    ) -> String {
        var text = (seq.map { "seq \($0) " } ?? "") + "\(layout): "
        if let grid { text += self.grid(grid) + (handler.map { " -> \($0)" } ?? "") + ": " }
        text += outcome
        if let reason {
            text += ": \(reason)"
        } else if outcome == "busy" {
            let who = handler.map { "handler \($0)" } ?? "the handler"
            text += ": \(who) already runs as many children as its maxConcurrent allows and its queue is full; the tap was not run"
        }
        if !logged { text += " (not logged: the event log could not be written)" }
        return text
    }

    static func gridLabel(_ path: String) -> String { path.isEmpty ? "(root)" : path }

    /// What `tapgrid set` prints: `home: 0/1 "volume": text "42 %", active true, value cleared`,
    /// the grid's name as asked when it was asked by name.
    static func cellSet(layout: String, path: String, asked: String, change: CellChange) -> String {
        var parts: [String] = []
        func describe<Value>(_ key: String, _ field: CellField<Value>, _ shown: (Value) -> String) {
            switch field {
            case .keep: break
            case .clear: parts.append("\(key) cleared")
            case .set(let value): parts.append("\(key) \(shown(value))")
            }
        }
        describe("text", change.text, jsonEscaped)
        describe("active", change.active) { String($0) }
        describe("value", change.valueJSON) { $0 }
        describe("enabled", change.enabled) { String($0) }
        let grid = gridLabel(path) + (asked == path ? "" : " \(jsonEscaped(asked))")
        return "\(layout): \(grid): " + parts.joined(separator: ", ")
    }

    /// What `tapgrid load` and `unload` print: `layout "promo" loaded: generation 5`, or that the
    /// daemon had that very definition already.
    static func loaded(layout: String, _ reply: LoadReply, unloaded: Bool) -> String {
        let generation = reply.generation.map { "generation \($0)" } ?? "generation -"
        if reply.unchanged {
            return "layout \(jsonEscaped(layout)) unchanged: the daemon has this definition already (\(generation))"
        }
        return "layout \(jsonEscaped(layout)) \(unloaded ? "unloaded" : "loaded"): \(generation)"
    }
}
