/// Runs the tap-class recognizer again over an event log's touch records, on their recorded
/// timing, against a (possibly changed) config: what `tapgrid replay` compares with the classed
/// tap records the daemon wrote. Pure: the times come from the records.
public struct TouchReplay {
    private var engine: TapEngine
    /// Touchscreens' names to their (negative) streams.
    private var devices: [String: Int] = [:]
    private var fired: [ClassedTap] = []
    private var lastNanos: UInt64 = 0

    public init(config: Config) { engine = TapEngine(config: config, generation: 1) }

    /// Feeds one contact event. - Returns: the taps fired up to and including it, in order.
    public mutating func feed(_ record: TouchRecord) -> [TapRecord] {
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
        _ = try? engine.touch(record.phase, key: ContactKey(stream: stream, slot: record.slot), x: record.x, y: record.y,
                              layout: layout, now: now, into: &fired)
        _ = engine.takeEndedContacts()
        return fired.map(describe)
    }

    /// The taps the recognizer still owes when the log ends (windows and timers due by its last event).
    public mutating func finish() -> [TapRecord] {
        fired.removeAll(keepingCapacity: true)
        engine.advanceTouch(to: lastNanos, into: &fired)
        return fired.map(describe)
    }

    /// The tap as its record would read (no `seq`: replay numbers nothing).
    private func describe(_ tap: ClassedTap) -> TapRecord {
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
        return record
    }
}
