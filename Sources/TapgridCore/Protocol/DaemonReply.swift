/// A reply line read back: the client's side of `ReplyWriter` (and the daemon's status reply).
/// Fields a reply lacks, or has with another type, read as nil: the client says what it got and
/// does not refuse a reply from a newer daemon.
public enum DaemonReply: Sendable, Equatable {
    /// `{"error": {"code": ..., "message": ...}}`.
    case error(ReplyError)
    /// Any other object (or value): the reply as read.
    case ok(JSONValue)

    /// Reads one reply line (without its `\n`), strictly.
    public static func read(_ line: [UInt8]) throws(JSONSyntaxError) -> DaemonReply {
        DaemonReply(try JSONParser.parse(line, lenient: false))
    }

    public init(_ value: JSONValue) {
        if let error = ReplyError(value["error"]) { self = .error(error) } else { self = .ok(value) }
    }
}

/// An error reply's `error` object.
public struct ReplyError: Sendable, Equatable {
    /// `code` (`unknown_layout`, ...), when a string.
    public var code: String?
    /// `message`, when a string.
    public var message: String?
    /// The object as read.
    public var value: JSONValue

    /// nil unless `error` is an object.
    public init?(_ error: JSONValue?) {
        guard let error, case .object = error else { return nil }
        value = error
        code = error["code"]?.stringValue
        message = error["message"]?.stringValue
    }

    /// `ErrorCode.unknownLayout`'s name.
    public var isUnknownLayout: Bool { code == "unknown_layout" }
}

/// A `tap` or `hit` reply (also each tap of a touch op's `taps`).
public struct TapReply: Sendable, Equatable {
    /// The grid a hit-test found: the reply's `hit` object.
    public struct Hit: Sendable, Equatable {
        /// The grid path; `""` is the root.
        public var path: String
        public var name: String?
        /// nil when `null` (no tag).
        public var tag: Int64?
        /// nil when absent or `null`.
        public var actionData: JSONValue?

        /// nil for `null` (a miss), or anything but an object with a string `path`.
        public init?(_ hit: JSONValue?) {
            guard let hit, case .object = hit, let path = hit["path"]?.stringValue else { return nil }
            self.path = path
            name = hit["name"]?.stringValue
            tag = hit["tag"]?.int64Value
            if let data = hit["actionData"], data != .null { actionData = data }
        }
    }

    /// `seq` (no `seq` for a hit-test).
    public var seq: Int64?
    public var layout: String?
    public var generation: Int64?
    /// nil for a miss.
    public var hit: Hit?
    public var handler: String?
    public var outcome: String?
    /// Why it was denied or failed.
    public var reason: String?
    /// The class of a tap from a touch contact.
    public var tapClass: String?
    /// False only when the reply says `"logged": false`.
    public var logged: Bool
    /// The reply as read, for `--json`.
    public var value: JSONValue

    public init(_ value: JSONValue) {
        self.value = value
        seq = value["seq"]?.int64Value
        layout = value["layout"]?.stringValue
        generation = value["generation"]?.int64Value
        hit = Hit(value["hit"])
        handler = value["handler"]?.stringValue
        outcome = value["outcome"]?.stringValue
        reason = value["reason"]?.stringValue
        tapClass = value["class"]?.stringValue
        logged = value["logged"] != .bool(false)
    }
}

/// A touch op's reply: `{"ok":true,"taps":[...]}` (`taps` on an `up` that ended a press).
public struct TouchReply: Sendable, Equatable {
    public var taps: [TapReply]

    public init(_ value: JSONValue) {
        guard case .array(let taps)? = value["taps"] else {
            self.taps = []
            return
        }
        self.taps = taps.map(TapReply.init)
    }
}

/// A `set` reply: `{"ok":true,"layout":"home","grid":"0/1"}` (the grid's path, also when the
/// request named it).
public struct CellSetReply: Sendable, Equatable {
    public var layout: String?
    public var grid: String?

    public init(_ value: JSONValue) {
        layout = value["layout"]?.stringValue
        grid = value["grid"]?.stringValue
    }
}

/// A `load` or `unload` reply: `{"ok":true,"generation":5}`, `"unchanged":true` when the
/// definition was the one in place already.
public struct LoadReply: Sendable, Equatable {
    public var generation: Int64?
    public var unchanged: Bool

    public init(_ value: JSONValue) {
        generation = value["generation"]?.int64Value
        unchanged = value["unchanged"] == .bool(true)
    }
}

/// A `layouts` reply (`{"layouts":[{"name","width","height","current","grids":[...]}]}`), with
/// each grid's cell state when asked for with `"state": true`.
public struct LayoutsReply: Sendable, Equatable {
    public struct Grid: Sendable, Equatable {
        /// The grid path; `""` is the root.
        public var path: String
        public var rect: Rect
        public var name: String?
        /// nil when the grid has none.
        public var tag: Int64?
        /// `"toggle": true` (only in replies with state).
        public var toggle: Bool
        /// The grid's state; empty when the reply carries none for it.
        public var state: CellState
        /// A slider's scale and the edge its value grows from (only in replies with state).
        public var slider: SliderPlace?

        /// nil unless `grid` is an object with a string `path` and a rect of four numbers.
        public init?(_ grid: JSONValue) {
            guard case .object = grid, let path = grid["path"]?.stringValue,
                case .array(let numbers)? = grid["rect"], numbers.count == 4
            else { return nil }
            let values = numbers.compactMap(\.doubleValue)
            guard values.count == 4 else { return nil }
            self.path = path
            rect = Rect(x: values[0], y: values[1], width: values[2], height: values[3])
            name = grid["name"]?.stringValue
            tag = grid["tag"]?.int64Value
            toggle = grid["toggle"] == .bool(true)
            var state = CellState(text: grid["text"]?.stringValue, active: grid["active"]?.boolValue, enabled: grid["enabled"]?.boolValue,
                                  icon: grid["icon"]?.stringValue, style: grid["style"]?.stringValue)
            if let value = grid["value"], value != .null { state.valueJSON = value.compactJSON }
            self.state = state
            if let min = grid["slider"]?["min"]?.doubleValue, let max = grid["slider"]?["max"]?.doubleValue,
               let step = grid["slider"]?["step"]?.doubleValue,
               let from = grid["slider"]?["from"]?.stringValue.flatMap(SliderFill.Origin.init(rawValue:)) {
                slider = SliderPlace(spec: SliderSpec(min: min, max: max, step: step, vertical: from == .bottom),
                                     rect: rect, direction: from == .right ? .rtl : .ltr)
            }
        }
    }

    public struct Layout: Sendable, Equatable {
        public var name: String
        public var width: Double
        public var height: Double
        public var current: Bool
        /// In pre-order, as the daemon lists them; grids it could not read are left out.
        public var grids: [Grid]
    }

    /// The layouts with a string `name`, in the reply's order.
    public var layouts: [Layout]

    public init(_ value: JSONValue) {
        guard case .array(let layouts)? = value["layouts"] else {
            self.layouts = []
            return
        }
        self.layouts = layouts.compactMap { layout in
            guard let name = layout["name"]?.stringValue else { return nil }
            var grids: [Grid] = []
            if case .array(let list)? = layout["grids"] { grids = list.compactMap(Grid.init) }
            return Layout(
                name: name, width: layout["width"]?.doubleValue ?? 0, height: layout["height"]?.doubleValue ?? 0,
                current: layout["current"] == .bool(true), grids: grids)
        }
    }

    /// The layout named `name`, else the current one when `name` is nil.
    public func layout(named name: String?) -> Layout? {
        guard let name else { return layouts.first(where: \.current) }
        return layouts.first { $0.name == name }
    }
}

extension JSONValue {
    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The exact integer, if this is an integral number that fits.
    public var int64Value: Int64? {
        if case .number(let n) = self { return n.int64 }
        return nil
    }

    /// The number, if this is one.
    public var doubleValue: Double? {
        if case .number(let n) = self { return n.double }
        return nil
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }
}
