/// A screen change's record: `{"time":...,"run":...,"seq":44,"event":"screen","state":"off",
/// "reason":"idle"}` (docs/event-log-and-replay.md "Event log"). `seq` is the next of the taps'
/// counter, as state records take it (`TapEngine.takeSeq`).
public enum ScreenRecord {
    /// Appends the record's fields after its `EventRecordHead`, and its end.
    public static func write(seq: UInt64, state: ScreenState, reason: ScreenReason, into record: ByteBuffer) {
        record.append(#""seq":"#)
        record.append(uint: seq)
        record.append(#","event":"screen","state":""#)
        record.append(state.name)
        record.append(#"","reason":""#)
        record.append(reason.name)
        record.append("\"}\n")
    }
}

/// The waking touch's record, in place of the used-up contact's touch records:
/// `{"time":...,"run":...,"seq":45,"event":"wake","source":"socket","conn":3,"x":120,"y":340}`.
/// `source` and `conn` as touch records have them (`conn` is null for a touchscreen, which has
/// none); `x`, `y` the down's point in layout units.
public enum WakeRecord {
    /// Appends the record's fields after its `EventRecordHead`, and its end.
    /// - Parameter source: the contact's source as a JSON string (as `TouchRecord.write` takes it).
    public static func write(seq: UInt64, source: [UInt8], conn: Int?, x: Double, y: Double, into record: ByteBuffer) {
        record.append(#""seq":"#)
        record.append(uint: seq)
        record.append(#","event":"wake","source":"#)
        record.append(source)
        record.append(#","conn":"#)
        if let conn { record.append(int: Int64(conn)) } else { record.append("null") }
        record.append(#","x":"#)
        record.append(number: x)
        record.append(#","y":"#)
        record.append(number: y)
        record.append("}\n")
    }
}

/// A `screen` or `wake` record read back (`replay`). `EventRecord.read` hands both out as
/// `.event("screen")` and `.event("wake")`, so that readers that know nothing of the screen skip
/// them; `read` gives their fields.
public enum ScreenEventRecord: Sendable, Equatable {
    case screen(RecordedScreen)
    case wake(RecordedWake)

    /// Reads one line (without its `\n`).
    /// - Returns: nil for a line that is not a `screen` or `wake` record (a tap, a touch record, a
    ///   blank or broken line: `EventRecord.read` says which), else the record or why it is unreadable.
    public static func read(_ line: ArraySlice<UInt8>) -> Result<ScreenEventRecord, EventRecord.Unreadable>? {
        guard let value = try? JSONParser.parse(Array(line), lenient: false) else { return nil }
        switch value["event"] {
        case .string("screen")?:
            guard case .string(let stateName)? = value["state"], let state = ScreenState(name: stateName),
                case .string(let reason)? = value["reason"], let seq = value["seq"]
            else { return .failure(EventRecord.Unreadable(#"not a screen record (needs seq, "state" on, dim or off, and reason)"#)) }
            return .success(.screen(RecordedScreen(seq: seq.compactJSON, state: state, reason: reason)))
        case .string("wake")?:
            guard case .string(let source)? = value["source"], case .number(let x)? = value["x"], case .number(let y)? = value["y"],
                let seq = value["seq"]
            else { return .failure(EventRecord.Unreadable("not a wake record (needs seq, source, x and y)")) }
            var wake = RecordedWake(seq: seq.compactJSON, source: source, x: x.double, y: y.double)
            if case .number(let conn)? = value["conn"], let number = conn.int64 { wake.conn = Int(number) }
            return .success(.wake(wake))
        default:
            return nil
        }
    }
}

/// A `screen` record read back.
public struct RecordedScreen: Sendable, Equatable {
    /// `seq` as written (compact JSON), kept as text for reports.
    public var seq: String
    public var state: ScreenState
    /// `idle`, `touch`, `op`, `mqtt`, `start`, or a reason a newer daemon writes, as recorded.
    public var reason: String

    public init(seq: String, state: ScreenState, reason: String) {
        self.seq = seq
        self.state = state
        self.reason = reason
    }

    /// The command that made the change, when one did (`op` or `mqtt`): replay makes it again.
    /// The other reasons (`idle`, `touch`, `start`) follow from the contacts and the timers.
    public var command: ScreenCommandOrigin? {
        switch reason {
        case "op": return .op
        case "mqtt": return .mqtt
        default: return nil
        }
    }
}

/// A `wake` record read back: the down that woke the screen and was used up.
public struct RecordedWake: Sendable, Equatable {
    public var seq: String
    public var source: String
    /// The connection's number; nil for a touchscreen.
    public var conn: Int?
    public var x: Double
    public var y: Double

    public init(seq: String, source: String, conn: Int? = nil, x: Double, y: Double) {
        self.seq = seq
        self.source = source
        self.conn = conn
        self.x = x
        self.y = y
    }
}
