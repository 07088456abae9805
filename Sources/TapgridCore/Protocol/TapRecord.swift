/// A tap's record in the event log: written by the daemon (`write`), read back by `replay` and
/// the CLI (`EventRecord.read`). The one owner of the record's fields:
///
/// ```json
/// {"time": "...", "run": "...", "seq": 42, "layout": "home", "generation": 3, "x": 120, "y": 340,
///  "hit": "0/1", "name": "web", "tag": 1, "actionData": "https://example.org",
///  "handler": "browser", "outcome": "dispatched"}
/// ```
public struct TapRecord: Sendable, Equatable {
    /// `seq` as written (compact JSON), kept as text for reports.
    public var seq: String
    public var layout: String
    public var x: Double
    public var y: Double
    /// The hit grid's path; nil for a miss.
    public var hit: String?
    /// The grid's tag; nil when untagged or a miss.
    public var tag: Int64?
    /// The grid's actionData; `.null` when absent.
    public var actionData: JSONValue
    /// The handler's name; nil when unrouted or a miss.
    public var handler: String?
    /// The outcome's name as recorded.
    public var outcome: String?
    /// The class, for taps from touch contacts (`tap`, `long`, `hold`, `double`, `change`,
    /// `release`) and plain taps on sliders (`release`); nil for other tap requests.
    public var tapClass: String?
    /// Where its contact came from (`socket` or a touchscreen's name); nil for tap requests.
    public var source: String?
    /// A `toggle` grid's `active` after this tap flipped it; nil for every other tap.
    public var active: Bool?
    /// A slider's value for its `change` and `release` (docs/touch.md "Sliders"); nil for every other tap.
    public var value: Double?

    public init(seq: String, layout: String, x: Double, y: Double, hit: String? = nil, tag: Int64? = nil,
                actionData: JSONValue = .null, handler: String? = nil, outcome: String? = nil) {
        self.seq = seq
        self.layout = layout
        self.x = x
        self.y = y
        self.hit = hit
        self.tag = tag
        self.actionData = actionData
        self.handler = handler
        self.outcome = outcome
    }

    /// Appends a decided tap's fields to a record begun with its `EventRecordHead`, and the
    /// record's end. `hit` and `tail` are `active`'s fragments for the decision, looked up once
    /// by the caller for both the record and the reply.
    /// - Parameters:
    ///   - source: the contact's source as a JSON string, for taps from touch contacts; for a tap
    ///     request, where it came from when that is not the socket (`"mqtt"`), else nil.
    ///   - xText, yText: the coordinates as the request wrote them, when that is exactly what
    ///     `JSONWriter.writeNumber` writes (`PlainTap`): copied instead of formatted.
    public static func write(
        _ decision: TapDecision, x: Double, y: Double, active: ActiveConfig, hit: UnsafeBufferPointer<UInt8>?, tail: UnsafeBufferPointer<UInt8>,
        source: [UInt8]? = nil, xText: UnsafeBufferPointer<UInt8>? = nil, yText: UnsafeBufferPointer<UInt8>? = nil,
        into record: ByteBuffer
    ) {
        record.append(#""seq":"#)
        record.append(uint: decision.seq)
        record.append(active.recordHeads[decision.layout])
        if let xText { record.append(xText) } else { record.append(number: x) }
        record.append(#","y":"#)
        if let yText { record.append(yText) } else { record.append(number: y) }
        if let hit {
            record.append(#","hit":"#)
            record.append(hit)
        } else {
            record.append(#","hit":null,"name":null,"tag":null,"actionData":null"#)
        }
        record.append(tail)
        if decision.fromContact {
            record.append(#","class":""#)
            record.append(decision.tapClass.name)
            record.append(#"","source":"#)
            if let source { record.append(source) } else { record.append("null") }
        } else {
            // A plain tap on a slider is a `release` (docs/touch.md "Sliders").
            if decision.tapClass != .tap {
                record.append(#","class":""#)
                record.append(decision.tapClass.name)
                record.append(0x22)
            }
            if let source {
                // A tap request from elsewhere than the socket (an MQTT command: `"mqtt"`).
                record.append(#","source":"#)
                record.append(source)
            }
        }
        if let value = decision.value {
            record.append(#","value":"#)
            record.append(number: value)
        }
        if let toggled = decision.toggledActive { record.append(toggled ? #","active":true"# : #","active":false"#) }
        record.append("}\n")
    }
}

/// A cell state change's record: `{"time":...,"run":...,"seq":43,"event":"state","layout":"home",
/// "grid":"0/1","text":"42 %","active":true,"value":42,"enabled":null,"source":"socket"}`, the
/// grid's whole state after the change (docs/cell-state.md "Cell state").
public enum StateRecord {
    /// Where a change came from.
    public enum Source: String, Sendable {
        case socket, mqtt, toggle
    }

    public static func write(seq: UInt64, layout: String, path: String, state: CellState, source: Source, into record: ByteBuffer) {
        record.append(#""seq":"#)
        record.append(uint: seq)
        record.append(#","event":"state","layout":"#)
        record.append(jsonString: layout)
        record.append(#","grid":"#)
        record.append(jsonString: path)
        var fields: [UInt8] = [0x2C]
        state.appendFields(to: &fields)
        record.append(fields)
        record.append(#","source":"#)
        record.append(jsonString: source.rawValue)
        record.append("}\n")
    }
}

/// A state record read back (`replay`): which grid, its whole state after the change, and where
/// the change came from.
public struct RecordedState: Sendable, Equatable {
    /// `seq` as written (compact JSON), kept as text for reports.
    public var seq: String
    public var layout: String
    /// The grid's path (state records name grids by path, as the daemon keeps state over reloads).
    public var grid: String
    /// The grid's whole state after the change.
    public var state: CellState
    /// `socket`, `mqtt`, `toggle`, or a source a newer daemon writes, as recorded.
    public var source: String

    public init(seq: String, layout: String, grid: String, state: CellState, source: String) {
        self.seq = seq
        self.layout = layout
        self.grid = grid
        self.state = state
        self.source = source
    }

    /// A change made from outside (a `set` over the socket or MQTT): replay applies it. A
    /// toggle's flip (`source` `toggle`) is not: replay flips toggles itself.
    public var isSet: Bool { source != StateRecord.Source.toggle.rawValue }

    /// The `set` that leaves the grid in this state whatever it was before: every key given, null
    /// for the cleared ones (what `replay --dispatch` sends); `icon` and `style` only when the
    /// record has them (records leave them out when null, so a log written before they existed
    /// is dispatched as before).
    public var request: ControlRequest.Set {
        func field<Value>(_ value: Value?) -> CellField<Value> { value.map { .set($0) } ?? .clear }
        return ControlRequest.Set(
            layout: layout, grid: grid,
            change: CellChange(text: field(state.text), active: field(state.active), valueJSON: field(state.valueJSON),
                               enabled: field(state.enabled), icon: state.icon.map { .set($0) } ?? .keep,
                               style: state.style.map { .set($0) } ?? .keep))
    }
}

/// A contact event's record: `{"time":...,"run":...,"event":"touch","phase":"down","slot":0,
/// "x":120,"y":340,"source":"socket","conn":3,"ms":1234.5,"current":"home"}` (`layout` on a `down`
/// that named one, `current` on every `down`; no `x`/`y` on an `up` or `cancel` that gave none; no
/// `conn` for touchscreens).
public struct TouchRecord: Sendable, Equatable {
    public var phase: TouchPhase
    public var slot: Int
    public var x: Double?
    public var y: Double?
    public var source: String
    public var conn: Int?
    /// The daemon's monotonic clock, in milliseconds.
    public var ms: Double
    /// The layout a `down` aimed at, when the request named one.
    public var layout: String?
    /// The layout that was current at a `down` (so replay presses where the finger did).
    public var current: String?

    public init(phase: TouchPhase, slot: Int, x: Double? = nil, y: Double? = nil, source: String, conn: Int? = nil,
                ms: Double, layout: String? = nil, current: String? = nil) {
        self.phase = phase
        self.slot = slot
        self.x = x
        self.y = y
        self.source = source
        self.conn = conn
        self.ms = ms
        self.layout = layout
        self.current = current
    }

    /// Appends the record's fields after its `EventRecordHead`, and its end.
    /// - Parameter source: the source as a JSON string.
    public static func write(
        _ phase: TouchPhase, slot: Int, x: Double?, y: Double?, source: [UInt8], conn: Int?, nanos: UInt64,
        layout: String?, current: String?, into record: ByteBuffer
    ) {
        record.append(#""event":"touch","phase":""#)
        record.append(phase.name)
        record.append(#"","slot":"#)
        record.append(int: Int64(slot))
        if let x, let y {
            record.append(#","x":"#)
            record.append(number: x)
            record.append(#","y":"#)
            record.append(number: y)
        }
        record.append(#","source":"#)
        record.append(source)
        if let conn {
            record.append(#","conn":"#)
            record.append(int: Int64(conn))
        }
        record.append(#","ms":"#)
        record.append(number: Double(nanos / 1000) / 1000)
        if let layout {
            record.append(#","layout":"#)
            record.append(jsonString: layout)
        }
        if let current {
            record.append(#","current":"#)
            record.append(jsonString: current)
        }
        record.append("}\n")
    }
}

/// A finished child's record: `{"time":...,"run":...,"seq":42,"event":"exit","status":0,"durationMs":12}`,
/// with `"signal"` (and `"timedOut": true`) instead of `status` when a signal ended it.
public enum ChildExitRecord {
    public static func write(
        seq: UInt64, status: Int32?, signal: String?, timedOut: Bool, durationMs: Int64, into record: ByteBuffer
    ) {
        record.append(#""seq":"#)
        record.append(uint: seq)
        record.append(#","event":"exit","#)
        if let signal {
            record.append(#""signal":"#)
            record.append(jsonString: signal)
            if timedOut { record.append(#","timedOut":true"#) }
        } else {
            record.append(#""status":"#)
            record.append(int: Int64(status ?? -1))
        }
        record.append(#","durationMs":"#)
        record.append(int: durationMs)
        record.append("}\n")
    }
}

/// One line of an event log, read back.
public enum EventRecord: Sendable, Equatable {
    case tap(TapRecord)
    /// A contact event (`"event": "touch"`).
    case touch(TouchRecord)
    /// A cell state change (`"event": "state"`).
    case state(RecordedState)
    /// Any other record with an `"event"` key (child exits, and kinds a newer daemon writes).
    case event(String)

    /// Why a line could not be read.
    public struct Unreadable: Error, Sendable, Equatable {
        public let message: String
        public init(_ message: String) { self.message = message }
    }

    /// Reads one line (without its `\n`).
    /// - Returns: nil for a blank line, else the record or why it is unreadable.
    public static func read(_ line: ArraySlice<UInt8>) -> Result<EventRecord, Unreadable>? {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return nil }
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(line), lenient: false)
        } catch {
            return .failure(Unreadable("not JSON (\(error))"))
        }
        guard case .object = value else { return .failure(Unreadable("not a JSON object")) }
        if let event = value["event"] {
            if case .string("touch") = event { return readTouch(value) }
            if case .string("state") = event { return readState(value) }
            if case .string(let kind) = event { return .success(.event(kind)) }
            return .success(.event(event.compactJSON))
        }
        guard case .string(let layout)? = value["layout"], case .number(let x)? = value["x"],
            case .number(let y)? = value["y"], let seq = value["seq"]
        else { return .failure(Unreadable("not a tap record (needs layout, x, y and seq)")) }
        var record = TapRecord(seq: seq.compactJSON, layout: layout, x: x.double, y: y.double,
                               actionData: value["actionData"] ?? .null)
        if case .string(let path)? = value["hit"] { record.hit = path }
        if case .number(let tag)? = value["tag"] { record.tag = tag.int64 }
        if case .string(let handler)? = value["handler"] { record.handler = handler }
        if case .string(let outcome)? = value["outcome"] { record.outcome = outcome }
        if case .string(let tapClass)? = value["class"] { record.tapClass = tapClass }
        if case .string(let source)? = value["source"] { record.source = source }
        if case .bool(let active)? = value["active"] { record.active = active }
        if case .number(let number)? = value["value"] { record.value = number.double }
        return .success(.tap(record))
    }

    /// A state record: `layout`, `grid` and `source` strings and a `seq`; `text`, `icon` and
    /// `style` strings, `active` and `enabled` true or false, `value` any JSON (each null or absent
    /// when cleared).
    private static func readState(_ value: JSONValue) -> Result<EventRecord, Unreadable> {
        guard case .string(let layout)? = value["layout"], case .string(let grid)? = value["grid"],
            case .string(let source)? = value["source"], let seq = value["seq"]
        else { return .failure(Unreadable("not a state record (needs layout, grid, source and seq)")) }
        var state = CellState()
        switch value["text"] {
        case nil, .null?: break
        case .string(let text)?: state.text = text
        case let other?: return .failure(Unreadable("not a state record (\"text\" is \(other.typeDescription), not a string or null)"))
        }
        for key in ["active", "enabled"] {
            switch value[key] {
            case nil, .null?: break
            case .bool(let flag)?: if key == "active" { state.active = flag } else { state.enabled = flag }
            case let other?: return .failure(Unreadable("not a state record (\"\(key)\" is \(other.typeDescription), not true, false or null)"))
            }
        }
        if let stored = value["value"], stored != .null { state.valueJSON = stored.compactJSON }
        for key in ["icon", "style"] {
            switch value[key] {
            case nil, .null?: break
            case .string(let text)?: if key == "icon" { state.icon = text } else { state.style = text }
            case let other?: return .failure(Unreadable("not a state record (\"\(key)\" is \(other.typeDescription), not a string or null)"))
            }
        }
        return .success(.state(RecordedState(seq: seq.compactJSON, layout: layout, grid: grid, state: state, source: source)))
    }

    private static func readTouch(_ value: JSONValue) -> Result<EventRecord, Unreadable> {
        guard case .string(let phaseName)? = value["phase"], let phase = TouchPhase(name: phaseName),
            case .number(let slot)? = value["slot"], let slotValue = slot.int64, case .number(let ms)? = value["ms"],
            case .string(let source)? = value["source"]
        else { return .failure(Unreadable("not a touch record (needs phase, slot, source and ms)")) }
        var record = TouchRecord(phase: phase, slot: Int(slotValue), source: source, ms: ms.double)
        if case .number(let x)? = value["x"], case .number(let y)? = value["y"] {
            record.x = x.double
            record.y = y.double
        }
        if case .number(let conn)? = value["conn"], let number = conn.int64 { record.conn = Int(number) }
        if case .string(let layout)? = value["layout"] { record.layout = layout }
        if case .string(let current)? = value["current"] { record.current = current }
        return .success(.touch(record))
    }
}
