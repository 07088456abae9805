/// Runs the tap-class recognizer again over an event log's touch records, on their recorded
/// timing, against a (possibly changed) config: what `tapgrid replay` compares with the classed
/// tap records the daemon wrote. Pure: the times come from the records.
public struct TouchReplay {
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
    /// Touchscreens' names to their (negative) streams.
    private var devices: [String: Int] = [:]
    private var fired: [ClassedTap] = []
    private var lastNanos: UInt64 = 0

    public init(config: Config) { engine = TapEngine(config: config, generation: 1) }

    /// Feeds one contact event. - Returns: the taps fired up to and including it, in order.
    public mutating func feed(_ record: TouchRecord) -> [Fired] {
        let now = UInt64(max(0, record.ms * 1_000_000).rounded())
        lastNanos = max(lastNanos, now)
        let stream: Int
        if let conn = record.conn {
            stream = conn
        } else if let known = devices[record.source] {
            stream = known
        } else {
            stream = -(devices.count + 1)
            devices[record.source] = stream
        }
        let key = ContactKey(stream: stream, slot: record.slot)
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

    /// The taps the recognizer still owes when the log ends: a tap waiting for its double fires
    /// when its window ends, as the running daemon fired it after the last contact event. (A
    /// contact still down when a log was cut short may fire a long press the daemon never got to.)
    public mutating func finish() -> [Fired] {
        fired.removeAll(keepingCapacity: true)
        let window = engine.active.layouts.map(\.timing.doubleTapMs).max() ?? 0
        engine.advanceTouch(to: lastNanos + UInt64(window) * 1_000_000, into: &fired)
        return fired.map(describe)
    }

    /// The tap as its record would read (no `seq`: replay numbers nothing), with its press.
    private func describe(_ tap: ClassedTap) -> Fired {
        let decision = tap.decision
        let layout = engine.active.layouts[decision.layout]
        var record = TapRecord(seq: "-", layout: layout.name, x: tap.x, y: tap.y,
                               handler: engine.active.config.handlerName(decision.handler),
                               outcome: decision.outcome.name.description)
        record.tapClass = decision.tapClass.name.description
        if let target = decision.target {
            record.hit = layout.tree.path(of: target.grid)
            let info = layout.tree.infos[target.info]
            record.tag = info.tag != 0 ? info.tag : nil
            record.actionData = info.actionData ?? .null
        }
        return Fired(press: tap.press, record: record)
    }
}
