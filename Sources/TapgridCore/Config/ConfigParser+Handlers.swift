extension ConfigParser {
    static let commonHandlerKeys: Set<String> = ["type", "timeoutSeconds", "killGraceSeconds", "maxConcurrent", "queue"]
    static let handlerKeys: [String: Set<String>] = [
        "url": ["command", "schemes"], "script": ["interpreter", "directory"], "layout": [], "log": [],
        "mqtt": ["topic", "qos", "retain"],
    ]

    mutating func parseHandlers(_ value: JSONValue?) -> [HandlerConfig] {
        guard let value else { return [] }
        guard case .object(let members) = value else {
            error("handlers", "expected an object of named handlers, found \(value.typeDescription)")
            return []
        }
        return members.compactMap { parseHandler(name: $0.key, $0.value) }
    }

    mutating func parseHandler(name: String, _ value: JSONValue) -> HandlerConfig? {
        let path = "handlers.\(name)"
        guard case .object(let members) = value else {
            error(path, "expected a handler object with a \"type\", found \(value.typeDescription)")
            return nil
        }
        guard case .string(let type)? = value["type"], let extra = ConfigParser.handlerKeys[type] else {
            let found = value["type"].map(shown) ?? "nothing"
            error("\(path).type", "expected \"url\", \"script\", \"layout\", \"log\" or \"mqtt\", found \(found)")
            return nil
        }
        let before = diagnostics.errors.count
        for member in members where !ConfigParser.commonHandlerKeys.contains(member.key) && !extra.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.commonHandlerKeys.union(extra))
            warning("\(path).\(member.key)", "unknown key for a \(type) handler ignored\(hint)")
        }
        var handler = HandlerConfig(name: name, kind: .log)
        switch type {
        case "url":
            let command = stringArray(value["command"], path: "\(path).command") ?? ["xdg-open"]
            let schemes = stringArray(value["schemes"], path: "\(path).schemes", allowEmpty: true) ?? ["http", "https"]
            handler.kind = .url(command: command, schemes: schemes.map { $0.lowercased() })
        case "script":
            let interpreter = stringArray(value["interpreter"], path: "\(path).interpreter")
            var directory: String?
            if let dir = value["directory"] {
                if case .string(let text) = dir, !text.isEmpty {
                    directory = resolvePath(text)
                } else {
                    error("\(path).directory", "expected a folder path (a non-empty string), found \(shown(dir))")
                }
            }
            if value["interpreter"] == nil && value["directory"] == nil {
                error(path, "a script handler needs \"interpreter\" (e.g. [\"/bin/sh\", \"-c\"]) or \"directory\" (a folder of executables)")
            } else if value["interpreter"] != nil && value["directory"] != nil {
                error(path, "give \"interpreter\" or \"directory\", not both")
            }
            handler.kind = .script(interpreter: interpreter, directory: directory)
        case "layout": handler.kind = .layout
        case "mqtt": handler.kind = parseMQTTHandler(value, path: path)
        default: handler.kind = .log
        }
        if let timeout = positive(value["timeoutSeconds"], path: "\(path).timeoutSeconds", allowZero: false) {
            handler.timeoutSeconds = timeout
        }
        if let grace = positive(value["killGraceSeconds"], path: "\(path).killGraceSeconds", allowZero: true) {
            handler.killGraceSeconds = grace
        }
        if let maximum = integer(value["maxConcurrent"], path: "\(path).maxConcurrent", minimum: 1) {
            handler.maxConcurrent = maximum
        }
        if let queue = integer(value["queue"], path: "\(path).queue", minimum: 0) { handler.queue = queue }
        if !handler.spawnsChildren {
            for key in ["timeoutSeconds", "killGraceSeconds", "maxConcurrent", "queue"] where value[key] != nil {
                warning("\(path).\(key)", "has no effect on a \(type) handler (it starts no process)")
            }
        }
        return diagnostics.errors.count == before ? handler : nil
    }

    /// An `mqtt` handler's `topic`, `qos` (0 or 1, default 1) and `retain` (default false). The
    /// topic is one to publish to: no wildcards, no empty string, no NUL.
    mutating func parseMQTTHandler(_ value: JSONValue, path: String) -> HandlerConfig.Kind {
        var topic = ""
        switch value["topic"] {
        case .string(let text)? where !text.isEmpty && !text.utf8.contains(0) && !text.contains("+") && !text.contains("#") && text.utf8.count <= 65_535:
            topic = text
        case let other?:
            error("\(path).topic", "expected a topic to publish to (a non-empty string without the wildcards + and #), found " + shown(other))
        case nil:
            error(path, #"an mqtt handler needs "topic" (e.g. "studio/lights")"#)
        }
        var qos = 1
        if let qosValue = value["qos"] {
            if case .number(let n) = qosValue, let level = n.int64, level == 0 || level == 1 {
                qos = Int(level)
            } else {
                error("\(path).qos", "expected 0 or 1, found " + shown(qosValue))
            }
        }
        var retain = false
        if let retainValue = value["retain"] {
            if case .bool(let flag) = retainValue { retain = flag } else { error("\(path).retain", "expected true or false, found " + shown(retainValue)) }
        }
        return .mqtt(topic: topic, qos: qos, retain: retain)
    }

    mutating func stringArray(_ value: JSONValue?, path: String, allowEmpty: Bool = false) -> [String]? {
        guard let value else { return nil }
        if case .array(let elements) = value, allowEmpty || !elements.isEmpty {
            var strings: [String] = []
            for element in elements {
                guard case .string(let text) = element, !text.isEmpty else { break }
                strings.append(text)
            }
            if strings.count == elements.count { return strings }
        }
        error(path, "expected \(allowEmpty ? "an" : "a non-empty") array of non-empty strings, found \(shown(value))")
        return nil
    }

    mutating func positive(_ value: JSONValue?, path: String, allowZero: Bool) -> Double? {
        guard let value else { return nil }
        if case .number(let n) = value, n.double.isFinite, n.double > 0 || (allowZero && n.double == 0), n.double <= 86_400 {
            return n.double
        }
        error(path, "expected a number of seconds \(allowZero ? ">= 0" : "> 0") (at most 86400), found \(shown(value))")
        return nil
    }

    mutating func integer(_ value: JSONValue?, path: String, minimum: Int) -> Int? {
        guard let value else { return nil }
        if case .number(let n) = value, let int = n.int64, int >= Int64(minimum), int <= 1_000_000 { return Int(int) }
        error(path, "expected an integer from \(minimum) to 1000000, found \(shown(value))")
        return nil
    }

    mutating func parseRoutes(_ value: JSONValue?, handlers: [HandlerConfig]) -> [Route] {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            error("routes", "expected an array of routes such as {\"tags\": [1, 2], \"handler\": \"browser\"}, found \(value.typeDescription)")
            return []
        }
        var routes: [Route] = []
        for (index, element) in elements.enumerated() {
            let path = "routes[\(index)]"
            guard case .object(let members) = element else {
                error(path, "expected an object {\"tags\": [...], \"handler\": NAME}, found \(element.typeDescription)")
                continue
            }
            for member in members where member.key != "tags" && member.key != "handler" && member.key != "on" {
                warning("\(path).\(member.key)", "unknown key ignored" + hintOrList(didYouMean(member.key, among: ["tags", "handler", "on"]), "a route has tags, handler and on"))
            }
            var on: [TapClass] = [.tap]
            if let onValue = element["on"] {
                let names: [JSONValue]
                if case .array(let list) = onValue { names = list } else { names = [onValue] }
                let classes = names.map { name -> TapClass? in if case .string(let text) = name { TapClass(name: text) } else { nil } }
                guard !classes.isEmpty, !classes.contains(where: { $0 == nil }) else {
                    error("\(path).on", "expected \"tap\", \"long\", \"hold\", \"double\", \"change\" or \"release\", or a list of them, found \(shown(onValue))")
                    continue
                }
                on = classes.compactMap { $0 }
            }
            var tags: [Int64]?
            if let tagValue = element["tags"] {
                if case .array(let list) = tagValue, list.allSatisfy({ if case .number(let n) = $0 { n.int64 != nil } else { false } }) {
                    tags = list.compactMap { if case .number(let n) = $0 { n.int64 } else { nil } }
                } else {
                    error("\(path).tags", "expected an array of integer tags, found \(shown(tagValue))")
                    continue
                }
            }
            guard case .string(let name)? = element["handler"] else {
                error("\(path).handler", "expected the name of a handler, found \(element["handler"].map(shown) ?? "nothing")")
                continue
            }
            guard let handler = handlers.firstIndex(where: { $0.name == name }) else {
                error("\(path).handler", "\(jsonEscaped(name)) is not a handler; the handlers are \(handlerList(handlers))")
                continue
            }
            routes.append(Route(tags: tags, handler: handler, on: on))
        }
        return routes
    }

    func handlerList(_ handlers: [HandlerConfig]) -> String {
        handlers.isEmpty ? "none" : handlers.map { jsonEscaped($0.name) }.joined(separator: ", ")
    }

    /// Sets every hittable grid's handlers: for `tap`, its `action` if it has one, else the first
    /// route for `tap` whose tags hold its tag (or that has no tags); for `long`, `hold` and
    /// `double`, the first route for that class. A slider (docs/touch.md "Sliders") has no `tap`,
    /// `long`, `hold` or `double`: its `release` takes the `tap` slot (its `action`, else the
    /// first route for `tap` or `release`: a route without `on` takes only `release` there) and
    /// its `change` the first route for `change`. Done once at load so a tap costs no lookup.
    mutating func route(_ layout: inout LoadedLayout, handlers: [HandlerConfig], routes: [Route]) {
        var unroutedTags: Set<Int64> = []
        var tree = layout.resolved.tree
        var memo: [Int64: Int32] = [:]
        var classMemo: [Int64: ClassHandlers] = [:]
        let classRoutes = routes.contains { route in route.on.contains { $0 != .tap } }
        /// The index in `routes` of the first route for `tapClass` that takes `tag`.
        func firstRouteIndex(_ tapClass: TapClass, or other: TapClass? = nil, tag: Int64) -> Int? {
            routes.firstIndex { route in
                (route.on.contains(tapClass) || other.map(route.on.contains) == true) && (route.tags.map { tag != 0 && $0.contains(tag) } ?? true)
            }
        }
        func firstRoute(_ tapClass: TapClass, or other: TapClass? = nil, tag: Int64) -> Int32 {
            firstRouteIndex(tapClass, or: other, tag: tag).map { Int32(routes[$0].handler) } ?? -1
        }
        let sliders = tree.sliders
        var conflicts: [(Int, Int64)] = []
        for index in tree.nodes.indices where tree.nodes[index].hittable {
            let slot = Int(tree.nodes[index].info)
            guard slot >= 0 else { continue }
            let info = tree.infos[slot]
            let isSlider = !sliders.isEmpty && sliders[Int32(index)] != nil
            if isSlider {
                let change = firstRoute(.change, tag: info.tag)
                if change >= 0 { layout.classHandlers[slot] = ClassHandlers(change: change) }
            } else if classRoutes {
                let classes: ClassHandlers
                if let known = classMemo[info.tag] {
                    classes = known
                } else {
                    classes = ClassHandlers(long: firstRoute(.long, tag: info.tag), hold: firstRoute(.hold, tag: info.tag),
                                            double: firstRoute(.double, tag: info.tag))
                    classMemo[info.tag] = classes
                }
                if !classes.isEmpty { layout.classHandlers[slot] = classes }
                if classes.long >= 0 && classes.hold >= 0 { conflicts.append((index, info.tag)) }
            }
            if let action = info.action {
                if let handler = handlers.firstIndex(where: { $0.name == action }) {
                    tree.infos[slot].handler = Int32(handler)
                } else {
                    diagnostics.append(Diagnostic(.error, file: file, layout: layout.name, gridPath: tree.path(of: index),
                        "\"action\": \(jsonEscaped(action)) is not a handler; the handlers are \(handlerList(handlers))"))
                }
                continue
            }
            let handler: Int32
            if isSlider {
                handler = firstRoute(.tap, or: .release, tag: info.tag)
            } else if let known = memo[info.tag] {
                handler = known
            } else {
                handler = firstRoute(.tap, tag: info.tag)
                memo[info.tag] = handler
            }
            tree.infos[slot].handler = handler
            if handler < 0 && info.tag != 0 && layout.classHandlers[slot] == nil { unroutedTags.insert(info.tag) }
        }
        // One error per grid would be a flood for a matrix: one per tag, naming its first grid.
        var reported: Set<Int64> = []
        for (index, tag) in conflicts where reported.insert(tag).inserted {
            // Named by their JSON paths, as the routes' own errors are: the fix is in one of them.
            // (Routing runs only when no route had an error, so `routes` is the config's list.)
            func named(_ tapClass: TapClass) -> String {
                let route = firstRouteIndex(tapClass, tag: tag)!
                return "\"\(tapClass.name)\" (routes[\(route)], handler \(jsonEscaped(handlers[routes[route].handler].name)))"
            }
            diagnostics.append(Diagnostic(.error, file: file, layout: layout.name, gridPath: tree.path(of: index),
                "\(tag != 0 ? "tag \(tag)" : "this grid") is routed for both \(named(.long)) and \(named(.hold)); a press held down is one or the other: route only one of them"))
        }
        layout.resolved.tree = tree
        if !unroutedTags.isEmpty {
            diagnostics.append(Diagnostic(.warning, file: file, layout: layout.name,
                "\(unroutedTags.count == 1 ? "tag" : "tags") \(describeTags(unroutedTags)) \(unroutedTags.count == 1 ? "matches" : "match") no route and there is no default route; taps there are \"unrouted\""))
        }
    }

    /// `1, 5, 100-2099`: sorted tags with runs folded.
    func describeTags(_ tags: Set<Int64>) -> String {
        var parts: [String] = []
        var sorted = tags.sorted()[...]
        while let start = sorted.popFirst() {
            var end = start
            while let next = sorted.first, next == end + 1 { end = sorted.removeFirst() }
            parts.append(end == start ? "\(start)" : "\(start)-\(end)")
        }
        return parts.joined(separator: ", ")
    }
}
