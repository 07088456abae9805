/// Reads a config document (already parsed JSON) into a `Config`: every key checked, every
/// problem named by file and JSON path, layouts parsed and resolved, every hittable grid routed.
///
/// Pure: grid files are fetched through `loadGridFile`, which the I/O layer provides.
public struct ConfigParser {
    /// Reads a grid file named in the config (already resolved to a path), or says why it cannot.
    public typealias GridFileLoader = (_ path: String) -> Result<JSONValue, Diagnostic>

    let file: String
    let directory: String
    let loadGridFile: GridFileLoader
    var diagnostics = Diagnostics()
    /// Every layout name the config declares, loaded or not (so one broken layout gives one error).
    var declaredLayouts: [String] = []
    /// The names of the config's `styles`, sorted: what a grid's `"style": "NAME"` may name.
    var styleNames: [String] = []

    /// - Parameters:
    ///   - file: the config file's path as the user named it (messages start with it).
    ///   - directory: the folder relative paths in the config are resolved against.
    public init(file: String, directory: String, loadGridFile: @escaping GridFileLoader) {
        self.file = file
        self.directory = directory
        self.loadGridFile = loadGridFile
    }

    static let topKeys: Set<String> = ["socket", "eventLog", "layouts", "initialLayout", "handlers", "routes", "touch", "mqtt", "panel", "screen", "styles", "iconFont"]

    /// The config, or nil when there are errors; diagnostics either way.
    public mutating func parse(_ document: JSONValue) -> (config: Config?, diagnostics: Diagnostics) {
        guard case .object(let members) = document else {
            error("", "the config must be a JSON object, found \(document.typeDescription)")
            return (nil, diagnostics)
        }
        for member in members where !ConfigParser.topKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.topKeys)
            warning(member.key, "unknown key ignored" + hintOrList(hint, "the config's keys are socket, eventLog, layouts, initialLayout, handlers, routes, touch, mqtt, panel, screen, styles and iconFont"))
        }
        let socket = parseSocket(document["socket"])
        let eventLog = parseEventLog(document["eventLog"])
        let styles = parseStyles(document["styles"])
        if case .object(let named)? = document["styles"] { styleNames = named.map(\.key).filter { !$0.isEmpty }.sorted() }
        let iconFont = parseIconFont(document["iconFont"])
        var layouts = parseLayouts(document["layouts"])
        let initial = parseInitialLayout(document["initialLayout"], layouts: layouts)
        var handlers = parseHandlers(document["handlers"])
        var routes = parseRoutes(document["routes"], handlers: handlers)
        let touch = parseTouch(document["touch"])
        let mqtt = parseMQTT(document["mqtt"])
        let panel = parsePanel(document["panel"])
        let screen = parseScreen(document["screen"])
        if document["mqtt"] == nil {
            for handler in handlers {
                if case .mqtt = handler.kind {
                    error("handlers.\(handler.name)", #"an mqtt handler needs "mqtt" in the config (the broker it publishes to)"#)
                }
            }
        }
        if document["handlers"] == nil && document["routes"] == nil {
            // No handlers and no routes: an implicit `log` handler takes every hit.
            handlers = [HandlerConfig(name: "log", kind: .log)]
            routes = [Route(tags: nil, handler: 0)]
        }
        if !diagnostics.hasErrors {
            for index in layouts.indices { route(&layouts[index], handlers: handlers, routes: routes) }
            if mqtt != nil { for layout in layouts { warnAboutCellKeys(layout) } }
        }
        guard !diagnostics.hasErrors, let initial else { return (nil, diagnostics) }
        let config = Config(
            file: file, socket: socket, eventLog: eventLog, layouts: layouts, initialLayout: initial,
            handlers: handlers, routes: routes, touch: touch, mqtt: mqtt, panel: panel, screen: screen,
            styles: styles, iconFont: iconFont)
        return (config, diagnostics)
    }

    // MARK: - Messages

    mutating func error(_ path: String, _ message: String) {
        diagnostics.append(Diagnostic(.error, file: file, path.isEmpty ? message : "\(path): \(message)"))
    }

    mutating func warning(_ path: String, _ message: String) {
        diagnostics.append(Diagnostic(.warning, file: file, path.isEmpty ? message : "\(path): \(message)"))
    }

    /// A path from the config as messages show it: relative to where the config file was named
    /// from (`examples/layouts/settings.json` for `examples/tapgrid.json`), so it can be opened.
    func shownPath(_ path: String) -> String {
        guard !path.hasPrefix("/"), let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }

    /// `path` made absolute against the config's folder.
    func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") || directory.isEmpty { return normalizedPath(path) }
        return normalizedPath(directory + "/" + path)
    }

    // MARK: - Sections

    mutating func parseSocket(_ value: JSONValue?) -> SocketConfig {
        var socket = SocketConfig()
        guard let value else { return socket }
        guard case .object(let members) = value else {
            error("socket", "expected an object with path, mode, allow, allowControl, maxClients; found \(value.typeDescription)")
            return socket
        }
        for member in members {
            let path = "socket.\(member.key)"
            switch member.key {
            case "path":
                if case .string(let text) = member.value, !text.isEmpty {
                    socket.path = resolvePath(text)
                } else {
                    error(path, "expected a non-empty string (a file path), found \(shown(member.value))")
                }
            case "mode":
                if case .string(let text) = member.value, let mode = parseOctalMode(text) {
                    socket.mode = mode
                } else {
                    error(path, "expected an octal mode string such as \"0660\", found \(shown(member.value))")
                }
            case "allow", "allowControl":
                let list = parseAllowList(member.value, path: path)
                if member.key == "allow" { socket.allow = list } else { socket.allowControl = list }
            case "maxClients":
                if case .number(let n) = member.value, let count = n.int64, count >= 1, count <= 1_000_000 {
                    socket.maxClients = Int(count)
                } else {
                    error(path, "expected an integer from 1 to 1000000, found \(shown(member.value))")
                }
            default:
                let hint = didYouMean(member.key, among: ["path", "mode", "allow", "allowControl", "maxClients"])
                warning(path, "unknown key ignored" + hintOrList(hint, "use path, mode, allow, allowControl or maxClients"))
            }
        }
        return socket
    }

    func parseOctalMode(_ text: String) -> UInt32? {
        guard !text.isEmpty, text.utf8.count <= 4, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 55 }) else { return nil }
        return UInt32(text, radix: 8)
    }

    mutating func parseAllowList(_ value: JSONValue, path: String) -> PeerAllowList? {
        guard case .object(let members) = value else {
            error(path, "expected an object {\"uids\": [...], \"gids\": [...]}, found \(value.typeDescription)")
            return nil
        }
        var list = PeerAllowList(uids: [], gids: [])
        for member in members {
            guard member.key == "uids" || member.key == "gids" else {
                warning("\(path).\(member.key)", "unknown key ignored" + hintOrList(didYouMean(member.key, among: ["uids", "gids"]), "use uids or gids"))
                continue
            }
            var ids: [UInt32] = []
            if case .array(let elements) = member.value {
                for element in elements {
                    if case .number(let n) = element, let id = n.int64, id >= 0, id <= Int64(UInt32.max) {
                        ids.append(UInt32(id))
                    } else {
                        error("\(path).\(member.key)", "expected an array of numeric ids (integers >= 0), found \(shown(element)) in it")
                    }
                }
            } else {
                error("\(path).\(member.key)", "expected an array of numeric ids, found \(member.value.typeDescription)")
            }
            if member.key == "uids" { list.uids = ids } else { list.gids = ids }
        }
        return list
    }

    mutating func parseEventLog(_ value: JSONValue?) -> EventLogSetting {
        switch value {
        case nil: return .standard
        case .bool(false)?: return .off
        case .object(let members)?:
            var setting = EventLogSetting.standard
            for member in members {
                if member.key == "path" {
                    if case .string(let text) = member.value, !text.isEmpty {
                        setting = .path(resolvePath(text))
                    } else {
                        error("eventLog.path", "expected a non-empty string (a file path), found \(shown(member.value))")
                    }
                } else {
                    warning("eventLog.\(member.key)", "unknown key ignored" + hintOrList(didYouMean(member.key, among: ["path"]), "use path"))
                }
            }
            return setting
        case let other?:
            error("eventLog", "expected {\"path\": ...} or false, found \(shown(other))")
            return .standard
        }
    }

    mutating func parseInitialLayout(_ value: JSONValue?, layouts: [LoadedLayout]) -> String? {
        switch value {
        case nil:
            if layouts.count == 1 { return layouts[0].name }
            if layouts.count > 1 {
                error("initialLayout", "required when there is more than one layout; name one of \(layouts.map { jsonEscaped($0.name) }.joined(separator: ", "))")
            }
            return nil
        case .string(let name)?:
            if layouts.contains(where: { $0.name == name }) { return name }
            if !declaredLayouts.contains(name) {
                error("initialLayout", "\(jsonEscaped(name)) is not a layout; the layouts are \(declaredLayouts.map { jsonEscaped($0) }.joined(separator: ", "))")
            }
            return nil
        case let other?:
            error("initialLayout", "expected the name of a layout, found \(shown(other))")
            return nil
        }
    }
}

/// `path` with `.` and `..` components and repeated slashes folded away, lexically (symlinks are
/// not followed), so logs and `status` show `/srv/run/x.sock` rather than `/srv/examples/../run/x.sock`.
public func normalizedPath(_ path: String) -> String {
    let absolute = path.hasPrefix("/")
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
        if part == "." { continue }
        if part == "..", let last = parts.last, last != ".." {
            parts.removeLast()
        } else if part == ".." && absolute {
            continue
        } else {
            parts.append(part)
        }
    }
    let joined = parts.joined(separator: "/")
    return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
}
