/// `cells.json` (docs/cell-state.md "Cell state across restarts"): every grid's state, kept across restarts, as one JSON object
/// `{"version":1,"layouts":{"home":{"0/1":{"text":"42 %","active":true,"value":42,"enabled":null}}}}`
/// (`"icon"` and `"style"` after `enabled` for a grid that has them)
/// and a final `\n`. Layouts by name, grids by path, so the file outlives layout and grid indexes
/// (grids no longer at their layout and path are dropped by `TapEngine.restoreCells`).
///
/// Only the text is here; the daemon reads and writes the file (atomically, `Files.writeAtomically`).
/// Decoding is strict about what it keeps: a wrong type, a `text` or `value` over the limits `set`
/// enforces, a `version` it does not know or a torn document refuse the whole file (the daemon
/// then starts with no state), so a cell is never restored half-read. Keys it does not know are
/// ignored, so a later tapgridd may add some without a new version.
public enum CellsDocument {
    /// The format's version, the value of `"version"`.
    public static let version: Int64 = 1

    /// The most the file may hold (64 MiB): read at start in one piece. The writer refuses a
    /// larger snapshot too, so the daemon never writes a file it would not read back.
    public static let maxBytes = 64 << 20

    /// Why a file's text is not a cell state the daemon can restore, for a warning that names the file.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// The document for `cells` (in the order given, each layout's grids together under the
    /// layout's first appearance), written through `JSONObjectWriter`, ending in `\n`.
    public static func encode(_ cells: [TapEngine.NamedCell]) -> [UInt8] {
        var order: [String] = []
        var byLayout: [String: [TapEngine.NamedCell]] = [:]
        for cell in cells where !cell.state.isEmpty {
            if byLayout[cell.layout] == nil { order.append(cell.layout) }
            byLayout[cell.layout, default: []].append(cell)
        }
        var document = JSONObjectWriter()
        document.int("version", version)
        document.object("layouts") { layouts in
            for name in order {
                layouts.object(name) { grids in
                    for cell in byLayout[name]! {
                        grids.object(cell.path) { cell.state.write(into: &$0) }
                    }
                }
            }
        }
        return document.bytes + [0x0A]
    }

    /// The cells in `bytes`, in document order (grids whose state is all null are left out).
    /// - Throws: `Problem` saying what is wrong and where (`layouts.home, grid "0/1": ...`).
    public static func decode(_ bytes: [UInt8]) throws(Problem) -> [TapEngine.NamedCell] {
        guard !bytes.isEmpty else { throw Problem("the file is empty") }
        let document: JSONValue
        do throws(JSONSyntaxError) {
            document = try JSONParser.parse(bytes, lenient: false)
        } catch {
            let cutShort = error.kind == .endOfInput || error.kind == .unterminatedString
            throw Problem("not valid JSON: \(error)" + (cutShort ? " (the file is cut short: torn by a crash, or a full disk?)" : ""))
        }
        guard case .object = document else {
            throw Problem("expected an object {\"version\": 1, \"layouts\": {...}}, found \(document.typeDescription)")
        }
        switch document["version"] {
        case nil: throw Problem("\"version\" is missing (this tapgridd reads version \(version))")
        case .number(let n)? where n.int64 == version: break
        case .number(let n)?: throw Problem("version \(n.int64.map(String.init) ?? "\(n.double)") is not one this tapgridd reads (it reads version \(version))")
        case let other?: throw Problem("\"version\" must be the number \(version), not \(other.typeDescription)")
        }
        guard let layoutsValue = document["layouts"] else { throw Problem("\"layouts\" is missing") }
        guard case .object(let layouts) = layoutsValue else {
            throw Problem("\"layouts\" must be an object of layouts by name, not \(layoutsValue.typeDescription)")
        }
        var cells: [TapEngine.NamedCell] = []
        for layout in layouts {
            guard case .object(let grids) = layout.value else {
                throw Problem("layouts.\(layout.key): expected an object of grids by path, found \(layout.value.typeDescription)")
            }
            for grid in grids {
                let state = try cellState(grid.value, at: "layouts.\(layout.key), grid \(jsonEscaped(grid.key))")
                if !state.isEmpty { cells.append(TapEngine.NamedCell(layout: layout.key, path: grid.key, state: state)) }
            }
        }
        return cells
    }

    /// One grid's `{"text", "active", "value", "enabled", "icon", "style"}`; a key left out is null.
    /// The icon and style are kept as written (a style the config no longer has shows `default`).
    private static func cellState(_ value: JSONValue, at place: String) throws(Problem) -> CellState {
        guard case .object = value else {
            throw Problem("\(place): expected an object {\"text\", \"active\", \"value\", \"enabled\"}, found \(value.typeDescription)")
        }
        var state = CellState()
        switch value["text"] {
        case nil, .null?: break
        case .string(let text)?:
            guard text.utf8.count <= CellState.maxTextBytes else {
                throw Problem("\(place): \"text\" is \(text.utf8.count) bytes; at most \(CellState.maxTextBytes)")
            }
            state.text = text
        case let other?: throw Problem("\(place): \"text\" must be a string or null, not \(other.typeDescription)")
        }
        for key in ["icon", "style"] {
            switch value[key] {
            case nil, .null?: break
            case .string(let text)?:
                guard text.utf8.count <= CellState.maxTextBytes else {
                    throw Problem("\(place): \"\(key)\" is \(text.utf8.count) bytes; at most \(CellState.maxTextBytes)")
                }
                if key == "icon" { state.icon = text } else { state.style = text }
            case let other?: throw Problem("\(place): \"\(key)\" must be a string or null, not \(other.typeDescription)")
            }
        }
        state.active = try bool(value, "active", at: place)
        state.enabled = try bool(value, "enabled", at: place)
        switch value["value"] {
        case nil, .null?: break
        case let json?:
            let text = json.compactJSON
            guard text.utf8.count <= CellState.maxValueBytes else {
                throw Problem("\(place): \"value\" is \(text.utf8.count) bytes as compact JSON; at most \(CellState.maxValueBytes)")
            }
            state.valueJSON = text
        }
        return state
    }

    private static func bool(_ object: JSONValue, _ key: String, at place: String) throws(Problem) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw Problem("\(place): \"\(key)\" must be true, false or null, not \(other.typeDescription)")
        }
    }
}

extension CellState {
    /// `"text"`, `"active"`, `"value"` and `"enabled"` (nulls included), then `"icon"` and
    /// `"style"` each only when set, as members of `object`: what `cells.json` holds per grid.
    public func write(into object: inout JSONObjectWriter) {
        object.string("text", text)
        object.bool("active", active)
        if let valueJSON { object.json("value", valueJSON) } else { object.null("value") }
        object.bool("enabled", enabled)
        if let icon { object.string("icon", icon) }
        if let style { object.string("style", style) }
    }
}
