/// The control requests that carry more than `RequestScanner` reads (`set`, `load`, `unload`,
/// `layouts` with `state`), taken from the line's parsed JSON. Not on the tap path: they are rare,
/// and their values (a definition, any JSON `value`) need the whole tree.
public enum ControlRequest {
    /// `{"op": "set", "layout": ..., "grid": ..., "text": ..., "active": ..., "value": ..., "enabled": ...,
    /// "icon": ..., "style": ...}`.
    public struct Set: Sendable, Equatable {
        /// nil: the current layout.
        public var layout: String?
        /// A grid's `name` or its path (`"0/1"`).
        public var grid: String
        public var change: CellChange

        public init(layout: String?, grid: String, change: CellChange) {
            self.layout = layout
            self.grid = grid
            self.change = change
        }
    }

    /// `{"op": "load", "layout": NAME, "definition": {...}}`.
    public struct Load: Sendable, Equatable {
        public var layout: String
        public var definition: JSONValue

        public init(layout: String, definition: JSONValue) {
            self.layout = layout
            self.definition = definition
        }
    }

    /// Reads a `set` request. - Returns: the request, or the `bad_request` message.
    /// - Parameter styles: the config's style names, which `style` must be one of (docs/panel.md
    ///   "What a cell shows"); nil: not checked here.
    public static func set(_ object: JSONValue, styles: [String]? = nil) -> Result<Set, RequestError> {
        guard case .string(let grid)? = object["grid"] else {
            return .failure(.badRequest(object["grid"] == nil ? "\"grid\" is required: a grid's name or path" : "\"grid\" must be a string"))
        }
        var request = Set(layout: nil, grid: grid, change: CellChange())
        switch optionalString(object, "layout") {
        case .failure(let error): return .failure(error)
        case .success(let layout): request.layout = layout
        }
        switch object["text"] {
        case nil: break
        case .null?: request.change.text = .clear
        case .string(let text)?:
            guard text.utf8.count <= CellState.maxTextBytes else {
                return .failure(.badRequest("\"text\" is \(text.utf8.count) bytes; at most \(CellState.maxTextBytes)"))
            }
            request.change.text = .set(text)
        case let other?: return .failure(.badRequest("\"text\" must be a string or null, not \(other.typeDescription)"))
        }
        switch bool(object, "active") {
        case .failure(let error): return .failure(error)
        case .success(let field): request.change.active = field
        }
        switch bool(object, "enabled") {
        case .failure(let error): return .failure(error)
        case .success(let field): request.change.enabled = field
        }
        switch object["value"] {
        case nil: break
        case .null?: request.change.valueJSON = .clear
        case let value?:
            var bytes: [UInt8] = []
            JSONWriter.appendValue(value, to: &bytes)
            guard bytes.count <= CellState.maxValueBytes else {
                return .failure(.badRequest("\"value\" is \(bytes.count) bytes as compact JSON; at most \(CellState.maxValueBytes)"))
            }
            request.change.valueJSON = .set(String(decoding: bytes, as: UTF8.self))
        }
        switch object["icon"] {
        case nil: break
        case .null?: request.change.icon = .clear
        case .string(let icon)?:
            guard icon.utf8.count <= CellState.maxTextBytes else {
                return .failure(.badRequest("\"icon\" is \(icon.utf8.count) bytes; at most \(CellState.maxTextBytes)"))
            }
            guard GridLook.isIconName(icon) else {
                return .failure(.badRequest("\"icon\" must be an icon name such as \"mdi:lightbulb\", not \(jsonEscaped(icon))"))
            }
            request.change.icon = .set(icon)
        case let other?:
            return .failure(.badRequest("\"icon\" must be an icon name such as \"mdi:lightbulb\" or null, not \(other.typeDescription)"))
        }
        switch object["style"] {
        case nil: break
        case .null?: request.change.style = .clear
        case .string(let name)?:
            if let styles, !styles.contains(name) {
                let named = styles.isEmpty ? #"the config has no "styles""#
                    : "the config's styles are " + styles.map(jsonEscaped).joined(separator: ", ")
                return .failure(.badRequest("\"style\": no style \(jsonEscaped(name)); \(named)"))
            }
            request.change.style = .set(name)
        case let other?: return .failure(.badRequest("\"style\" must be a style's name or null, not \(other.typeDescription)"))
        }
        return .success(request)
    }

    /// The most a `load` definition may take, as compact JSON (1 MiB).
    public static let maxDefinitionBytes = 1 << 20

    /// Reads a `load` request. - Returns: the request, or the `bad_request` message.
    public static func load(_ object: JSONValue) -> Result<Load, RequestError> {
        guard case .string(let layout)? = object["layout"] else {
            return .failure(.badRequest(object["layout"] == nil ? "\"layout\" is required: the name of the layout to load" : "\"layout\" must be a string"))
        }
        guard let definition = object["definition"] else {
            return .failure(.badRequest("\"definition\" is required: a layout as a config's \"layouts\" entry holds it"))
        }
        guard case .object = definition else {
            return .failure(.badRequest("\"definition\" must be an object, not \(definition.typeDescription)"))
        }
        return .success(Load(layout: layout, definition: definition))
    }

    /// Reads an `unload` request's layout name. - Returns: the name, or the `bad_request` message.
    public static func unload(_ object: JSONValue) -> Result<String, RequestError> {
        guard case .string(let layout)? = object["layout"] else {
            return .failure(.badRequest(object["layout"] == nil ? "\"layout\" is required: the pushed layout to unload" : "\"layout\" must be a string"))
        }
        return .success(layout)
    }

    /// `layouts`' `"state"`: whether to add each grid's state. - Returns: the flag, or the error.
    public static func layoutsWithState(_ object: JSONValue) -> Result<Bool, RequestError> {
        switch object["state"] {
        case nil, .null?: return .success(false)
        case .bool(let flag)?: return .success(flag)
        case let other?: return .failure(.badRequest("\"state\" must be true or false, not \(other.typeDescription)"))
        }
    }

    private static func optionalString(_ object: JSONValue, _ key: String) -> Result<String?, RequestError> {
        switch object[key] {
        case nil, .null?: return .success(nil)
        case .string(let value)?: return .success(value)
        case let other?: return .failure(.badRequest("\"\(key)\" must be a string, not \(other.typeDescription)"))
        }
    }

    private static func bool(_ object: JSONValue, _ key: String) -> Result<CellField<Bool>, RequestError> {
        switch object[key] {
        case nil: return .success(.keep)
        case .null?: return .success(.clear)
        case .bool(let value)?: return .success(.set(value))
        case let other?: return .failure(.badRequest("\"\(key)\" must be true, false or null, not \(other.typeDescription)"))
        }
    }
}
