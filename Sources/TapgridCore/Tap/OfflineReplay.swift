/// Replays an event log against a (possibly changed) config, offline, through one `TapEngine`:
/// tap requests are hit-tested again on their recorded layout (`tap`), the tap-class recognizer
/// runs again over the touch records on their recorded timing (`feed`, `finish`), and cell state
/// follows the log (`apply`: the recorded `set`s; toggles flip as the daemon flipped them, so a
/// toggle continues from a set's value, and a grid a set disabled refuses the taps after it).
/// What `tapgrid replay` compares with the records the daemon wrote. Pure: the times come from
/// the records.
///
/// The log's records are fed in order. A tap a timer fired (a long press, a single tap at the end
/// of a double-tap window) fires here when the next contact event (or `finish`) moves the
/// recognizer's clock past it, which may be after a tap request or a `set` the log has before it.
public struct OfflineReplay {
    /// A tap the replay fired, and the press that made it.
    public struct Fired: Sendable, Equatable {
        public var press: Int
        public var record: TapRecord
    }

    private var engine: TapEngine
    /// Downs read so far: press numbers, as the daemon's engine numbered them.
    private var downs = 0
    /// The press each contact is on, and each press's source and last position (to tell which
    /// press a recorded tap came from: a tap is fired where its contact last was).
    private var pressOfContact: [ContactKey: Int] = [:]
    private var pressPlaces: [Int: (source: String, x: Double?, y: Double?)] = [:]
    private var streams = RecordedStreams()
    private var fired: [ClassedTap] = []
    private var lastNanos: UInt64 = 0

    public init(config: Config) { engine = TapEngine(config: config, generation: 1) }

    /// Feeds one contact event. - Returns: the taps fired up to and including it, in order.
    public mutating func feed(_ record: TouchRecord) -> [Fired] {
        let now = UInt64(max(0, record.ms * 1_000_000).rounded())
        lastNanos = max(lastNanos, now)
        let key = streams.key(of: record)
        if record.phase == .down {
            downs += 1
            pressOfContact[key] = downs
            pressPlaces[downs] = (record.source, record.x, record.y)
        } else if let press = pressOfContact[key], record.x != nil {
            pressPlaces[press] = (record.source, record.x, record.y)
        }
        var layout: Int? = nil
        if record.phase == .down {
            if let aimed = record.layout {
                layout = engine.layoutIndex(for: aimed)
            } else if let current = record.current, let index = engine.layoutIndex(for: current), index != engine.currentLayout {
                // The page the finger pressed, as the daemon had it (plain taps and `use` may
                // have switched it; replay does not dispatch those).
                _ = engine.use(layout: current)
            }
            // A layout the config no longer has: the contact is pressed on the current one.
        }
        fired.removeAll(keepingCapacity: true)
        _ = try? engine.touch(record.phase, key: key, x: record.x, y: record.y, layout: layout, now: now, into: &fired)
        _ = engine.takeEndedContacts()
        return fired.map(describe)
    }

    /// Which press a recorded classed tap came from: the latest press of its source whose
    /// contact was last at the tap's position; nil when none was.
    public func press(of tap: TapRecord) -> Int? {
        pressPlaces.filter { $0.value.source == tap.source && $0.value.x == tap.x && $0.value.y == tap.y }.keys.max()
    }

    /// A recorded tap request hit-tested again on its recorded layout, with the cell rules it meets
    /// (a disabled grid: outcome `disabled`; a toggle grid: `active` flipped). Nothing is routed:
    /// replay follows each tap's recorded layout, so no layout switch is made.
    /// - Returns: the tap as its record would read (outcome `disabled` or `checked`), nil when the
    ///   config has no layout of the recorded name.
    public mutating func tap(_ recorded: TapRecord) -> TapRecord? {
        guard let layout = engine.layoutIndex(for: recorded.layout) else { return nil }
        let decision = engine.replayTap(layout: layout, x: recorded.x, y: recorded.y)
        return describe(decision, x: recorded.x, y: recorded.y)
    }

    /// A recorded state change: a `set` (from the socket or MQTT) puts its grid in the recorded
    /// state; a toggle's own record is left alone (the replay flips its toggles itself).
    /// - Returns: whether it changed the replay's state (false for a toggle's record, and for a
    ///   grid the config no longer has at that layout and path).
    @discardableResult
    public mutating func apply(_ record: RecordedState) -> Bool {
        guard record.isSet else { return false }
        return engine.replaceState(layout: record.layout, path: record.grid, with: record.state)
    }

    /// The replay's state of a grid, by layout and path (all null when none, or no such grid).
    public func state(layout name: String, path: String) -> CellState {
        guard let layout = engine.active.layoutIndex(named: name), let grid = engine.active.layouts[layout].tree.index(ofPath: path)
        else { return CellState() }
        return engine.cellState(layout: layout, grid: grid)
    }

    /// The taps the recognizer still owes when the log ends: a tap waiting for its double fires
    /// when its window ends, as the running daemon fired it after the last contact event. (A
    /// contact still down when a log was cut short may fire a long press the daemon never got to.)
    public mutating func finish() -> [Fired] {
        fired.removeAll(keepingCapacity: true)
        let window = engine.active.layouts.map(\.timing.doubleTapMs).max() ?? 0
        engine.advanceTouch(to: lastNanos + UInt64(window) * 1_000_000, into: &fired)
        return fired.map(describe)
    }

    /// A classed tap as its record would read, with its press.
    private func describe(_ tap: ClassedTap) -> Fired {
        var record = describe(tap.decision, x: tap.x, y: tap.y)
        record.tapClass = tap.decision.tapClass.name.description
        return Fired(press: tap.press, record: record)
    }

    /// A decided tap as its record would read (no `seq`: replay numbers nothing).
    private func describe(_ decision: TapDecision, x: Double, y: Double) -> TapRecord {
        let layout = engine.active.layouts[decision.layout]
        var record = TapRecord(seq: "-", layout: layout.name, x: x, y: y,
                               handler: engine.active.config.handlerName(decision.handler),
                               outcome: decision.outcome.name.description)
        if let target = decision.target {
            record.hit = layout.tree.path(of: target.grid)
            let info = layout.tree.infos[target.info]
            record.tag = info.tag != 0 ? info.tag : nil
            record.actionData = info.actionData ?? .null
        }
        record.active = decision.toggledActive
        // A slider's value, worked out again from the point (docs/touch.md "Sliders").
        record.value = decision.value
        // A plain tap on a slider is a `release`, as its record says.
        if decision.tapClass != .tap { record.tapClass = decision.tapClass.name.description }
        return record
    }
}

/// The streams of recorded contacts, as the daemon numbered them: a connection's number (`conn`),
/// or for a touchscreen (no `conn`) a negative id per device name, in the order they appear.
struct RecordedStreams {
    private var devices: [String: Int] = [:]

    mutating func stream(conn: Int?, source: String) -> Int {
        if let conn { return conn }
        if let known = devices[source] { return known }
        let stream = -(devices.count + 1)
        devices[source] = stream
        return stream
    }

    mutating func key(of record: TouchRecord) -> ContactKey {
        ContactKey(stream: stream(conn: record.conn, source: record.source), slot: record.slot)
    }
}
