/// Runs the tap-class recognizer again over an event log's touch records, on their recorded
/// timing, against a (possibly changed) config: what `tapgrid replay` compares with the classed
/// tap records the daemon wrote. Pure: the times come from the records.
public struct TouchReplay {
    /// One tap the recognizer fired in the replay.
    public struct Tap: Sendable, Equatable {
        public var tapClass: TapClass
        /// The layout it was on.
        public var layout: String
        public var x: Double
        public var y: Double
        /// The hit grid's path; nil for a miss.
        public var hit: String?
        public var tag: Int64?
        public var actionData: JSONValue
        public var handler: String?
    }

    private var engine: TapEngine
    /// Touchscreens' names to their (negative) streams.
    private var devices: [String: Int] = [:]
    private var fired: [ClassedTap] = []
    private var lastNanos: UInt64 = 0

    public init(config: Config) { engine = TapEngine(config: config, generation: 1) }

    /// Feeds one contact event. - Returns: the taps fired up to and including it, in order.
    public mutating func feed(_ record: TouchRecord) -> [Tap] {
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
    public mutating func finish() -> [Tap] {
        fired.removeAll(keepingCapacity: true)
        engine.advanceTouch(to: lastNanos, into: &fired)
        return fired.map(describe)
    }

    private func describe(_ tap: ClassedTap) -> Tap {
        let decision = tap.decision
        let layout = engine.active.layouts[decision.layout]
        var result = Tap(tapClass: decision.tapClass, layout: layout.name, x: tap.x, y: tap.y, hit: nil, tag: nil,
                         actionData: .null, handler: engine.active.config.handlerName(decision.handler))
        if let target = decision.target {
            result.hit = layout.tree.path(of: target.grid)
            let info = layout.tree.infos[target.info]
            result.tag = info.tag != 0 ? info.tag : nil
            result.actionData = info.actionData ?? .null
        }
        return result
    }
}
