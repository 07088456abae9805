/// The lines `tapgrid replay --json` prints, one JSON object each (spaced, for people who read
/// them too), written by `JSONObjectWriter`.
public enum ReplayReport: Sendable, Equatable {
    /// What a tap resolved to, as compared: `{"hit": "0/1", "tag": 3, "actionData": "x", "handler": "h"}`,
    /// then `"active"` where a toggle is involved and `"disabled"` where a disabled grid is (see
    /// `differs`), and `"problem"` when it could not be replayed.
    public struct Resolution: Sendable, Equatable {
        public var hit: String?
        public var tag: Int64?
        public var actionData: JSONValue
        public var handler: String?
        public var problem: String?
        /// A toggle grid's `active` after the tap; nil when the grid does not toggle.
        public var active: Bool?
        /// The grid's state refused the tap (outcome `disabled`).
        public var disabled: Bool
        /// A slider's `change` or `release` value; nil for every other tap.
        public var value: Double?

        public init(hit: String?, tag: Int64?, actionData: JSONValue, handler: String?, problem: String?,
                    active: Bool? = nil, disabled: Bool = false, value: Double? = nil) {
            self.hit = hit
            self.tag = tag
            self.actionData = actionData
            self.handler = handler
            self.problem = problem
            self.active = active
            self.disabled = disabled
            self.value = value
        }

        /// - Parameters: withActive, withDisabled, withValue: whether to write `"active"` (null
        ///   when nil), `"disabled"` and `"value"` (null when nil).
        func object(withActive: Bool, withDisabled: Bool, withValue: Bool = false) -> JSONObjectWriter {
            var object = JSONObjectWriter(.spaced)
            object.string("hit", hit)
            object.int("tag", tag)
            object.value("actionData", actionData)
            object.string("handler", handler)
            if withActive { object.value("active", active.map { .bool($0) } ?? .null) }
            if withDisabled { object.bool("disabled", disabled) }
            if withValue { object.value("value", value.map { .number(JSONNumber($0)) } ?? .null) }
            if let problem { object.string("problem", problem) }
            return object
        }
    }

    /// A recorded tap that replays differently: `{"line": 11, "seq": 8, "x": 250, "y": 50,
    /// "layout": "home", "recorded": {...}, "replayed": {...}}`. Both sides carry `"active"` when
    /// either has one (a toggle grid: the record carries it), `"value"` when either has one (a
    /// slider's), and `"disabled"` when either was.
    case differs(line: Int, record: TapRecord, recorded: Resolution, replayed: Resolution)
    /// A tap the replay fired that the log does not have: `{"line": null, "seq": null, "x": ..,
    /// "y": .., "layout": .., "recorded": null, "replayed": {"class": .., "hit": .., "handler": ..}}`,
    /// with `"active"` when it flipped a toggle, `"value"` for a slider's, and `"disabled": true`
    /// when a disabled grid refused it.
    case replayOnly(TapRecord)
    /// A recorded waking touch (a `wake` record) that the replayed config's screen would press
    /// instead of using it up: `{"line": 6, "seq": 3, "event": "wake", "source": "socket", "x": 10,
    /// "y": 20, "recorded": "used up", "replayed": "pressed", "why": "the screen would be on"}`.
    case wakePressed(line: Int, wake: RecordedWake, why: String)
    /// `{"line": 4, "unreadable": "not JSON (...)"}`.
    case unreadable(line: Int, message: String)
    /// The last line: `{"taps": 11, "differ": 3, "unreadable": 0}`.
    case summary(taps: Int, differ: Int, unreadable: Int)

    public var json: String {
        var object = JSONObjectWriter(.spaced)
        switch self {
        case .differs(let line, let record, let recorded, let replayed):
            object.tapHead(line: line, record)
            let withActive = recorded.active != nil || replayed.active != nil
            let withDisabled = recorded.disabled || replayed.disabled
            let withValue = recorded.value != nil || replayed.value != nil
            object.object("recorded", recorded.object(withActive: withActive, withDisabled: withDisabled, withValue: withValue))
            object.object("replayed", replayed.object(withActive: withActive, withDisabled: withDisabled, withValue: withValue))
        case .replayOnly(let record):
            object.null("line")
            object.null("seq")
            object.number("x", record.x)
            object.number("y", record.y)
            object.string("layout", record.layout)
            object.null("recorded")
            object.object("replayed") { replayed in
                replayed.string("class", record.tapClass ?? "tap")
                replayed.string("hit", record.hit)
                replayed.string("handler", record.handler)
                if let active = record.active { replayed.bool("active", active) }
                if let value = record.value { replayed.number("value", value) }
                if record.outcome == Outcome.disabled.name.description { replayed.bool("disabled", true) }
            }
        case .wakePressed(let line, let wake, let why):
            object.int("line", line)
            object.json("seq", wake.seq)
            object.string("event", "wake")
            object.string("source", wake.source)
            object.number("x", wake.x)
            object.number("y", wake.y)
            object.string("recorded", "used up")
            object.string("replayed", "pressed")
            object.string("why", why)
        case .unreadable(let line, let message):
            object.int("line", line)
            object.string("unreadable", message)
        case .summary(let taps, let differ, let unreadable):
            object.int("taps", taps)
            object.int("differ", differ)
            object.int("unreadable", unreadable)
        }
        return object.text
    }
}

/// The lines `tapgrid replay --dispatch --json` prints (besides `ReplayReport.unreadable`).
public enum DispatchReport: Sendable, Equatable {
    /// What went wrong with one tap's reply.
    public enum Problem: Sendable, Equatable {
        /// The daemon's `error` object, as it sent it (compact).
        case reply(JSONValue)
        /// A reply that is not what the protocol promises: `{"code": "not_json", "message": ...}`.
        case unexpected(code: String, message: String)
    }

    /// `{"line": 12, "seq": 9, "x": 300, "y": 100, "layout": "settings", "error": {...}}`.
    case error(line: Int, record: TapRecord, Problem)
    /// A `set` refused: `{"line": 5, "seq": 4, "event": "state", "layout": "panel", "grid": "2",
    /// "error": {...}}` (the state record's own names).
    case setError(line: Int, state: RecordedState, Problem)
    /// The last line: `{"taps": 11, "sets": 2, "outcomes": {"dispatched": 5, ...}, "errors": 2,
    /// "notLogged": 0, "unreadable": 0}`, the outcomes in the order given (`sets`: the state
    /// records sent as `set`s).
    case summary(taps: Int, sets: Int, outcomes: [(name: String, count: Int)], errors: Int, notLogged: Int, unreadable: Int)

    public var json: String {
        var object = JSONObjectWriter(.spaced)
        switch self {
        case .error(let line, let record, let problem):
            object.tapHead(line: line, record)
            object.problem(problem)
        case .setError(let line, let state, let problem):
            object.int("line", line)
            object.json("seq", state.seq)
            object.string("event", "state")
            object.string("layout", state.layout)
            object.string("grid", state.grid)
            object.problem(problem)
        case .summary(let taps, let sets, let outcomes, let errors, let notLogged, let unreadable):
            object.int("taps", taps)
            object.int("sets", sets)
            object.object("outcomes") { counts in
                for outcome in outcomes { counts.int(outcome.name, outcome.count) }
            }
            object.int("errors", errors)
            object.int("notLogged", notLogged)
            object.int("unreadable", unreadable)
        }
        return object.text
    }

    public static func == (a: DispatchReport, b: DispatchReport) -> Bool { a.json == b.json }
}

extension JSONObjectWriter {
    /// `"error": {...}`: the daemon's, or one for a reply that is not what the protocol promises.
    mutating func problem(_ problem: DispatchReport.Problem) {
        switch problem {
        case .reply(let error): value("error", error)
        case .unexpected(let code, let message):
            object("error") { error in
                error.string("code", code)
                error.string("message", message)
            }
        }
    }

    /// `"line": 12, "seq": 9, "x": 300, "y": 100, "layout": "settings"`: which recorded tap a line is about.
    mutating func tapHead(line: Int, _ record: TapRecord) {
        int("line", line)
        json("seq", record.seq)
        number("x", record.x)
        number("y", record.y)
        string("layout", record.layout)
    }
}
