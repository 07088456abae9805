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
    public static func write(
        _ decision: TapDecision, x: Double, y: Double, active: ActiveConfig, hit: [UInt8]?, tail: [UInt8],
        into record: ByteBuffer
    ) {
        record.append(#""seq":"#)
        record.append(uint: decision.seq)
        record.append(active.recordHeads[decision.layout])
        record.append(number: x)
        record.append(#","y":"#)
        record.append(number: y)
        if let hit {
            record.append(#","hit":"#)
            record.append(hit)
        } else {
            record.append(#","hit":null,"name":null,"tag":null,"actionData":null"#)
        }
        record.append(tail)
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
    /// Any record with an `"event"` key (child exits, and kinds a newer daemon writes).
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
        return .success(.tap(record))
    }
}
