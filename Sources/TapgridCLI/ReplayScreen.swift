import TapgridCore

/// The screen of an offline `replay` (docs/event-log-and-replay.md "Replay"): the core's
/// `ScreenReplay` fed the log's touch, `wake` and `screen` records on their recorded `time` and
/// `run`, and what `ReplayCommand` needs of it to report: which contacts it holds back from the
/// recognizer, which recorded taps came from one of those (their problem is `usedUp`), and why a
/// recorded waking touch would now be pressed.
struct ReplayScreen {
    private var replay: ScreenReplay
    private let config: ScreenConfig?
    /// Whether the last contact seen at a source's point was held back: a recorded tap fires where
    /// its contact last was, so its point tells which contact it came from.
    private var heldBackAt: [Place: Bool] = [:]

    private struct Place: Hashable {
        var source: String
        var x: Double
        var y: Double
    }

    /// What a recorded tap whose contact the screen would now use up replays to.
    static let usedUp = "used up: this touch would now wake the screen"

    init(config: ScreenConfig?) {
        self.config = config
        replay = ScreenReplay(config: config)
    }

    /// A touch record. - Returns: whether to feed it to the recognizer (false: held back).
    mutating func touch(_ record: TouchRecord, line: ArraySlice<UInt8>) -> Bool {
        // Without a screen nothing is held back, and the record's head need not be read again.
        guard config != nil else { return true }
        let head = Self.head(of: line)
        let passes = replay.touch(record, run: head.run, at: head.nanos)
        if let x = record.x, let y = record.y { heldBackAt[Place(source: record.source, x: x, y: y)] = !passes }
        return passes
    }

    /// Whether a recorded classed tap came from a contact the screen now holds back.
    func heldBack(_ tap: TapRecord) -> Bool {
        guard let source = tap.source else { return false }
        return heldBackAt[Place(source: source, x: tap.x, y: tap.y)] == true
    }

    /// A `wake` record. - Returns: nil when the replay's screen uses it up too, else why it would
    /// now be pressed (a difference).
    mutating func wake(_ record: RecordedWake, line: ArraySlice<UInt8>) -> String? {
        let head = Self.head(of: line)
        if replay.wake(record, run: head.run, at: head.nanos) { return nil }
        guard let config else { return "the config has no screen block" }
        if config.wakeTouch == .pass { return #"wakeTouch is "pass""# }
        return "the screen would be on"
    }

    /// A `screen` record: an op's or MQTT's change is made again.
    mutating func screen(_ record: RecordedScreen, line: ArraySlice<UInt8>) {
        guard config != nil else { return }
        let head = Self.head(of: line)
        replay.screen(record, run: head.run, at: head.nanos)
    }

    /// A record's `run` and its `time` in nanoseconds since 1970, milliseconds exact (`TapRecord`
    /// and `TouchRecord` leave both out: replay compares neither). nil for either one missing or
    /// not as the daemon writes it.
    static func head(of line: ArraySlice<UInt8>) -> (run: String?, nanos: UInt64?) {
        guard let value = try? JSONParser.parse(Array(line), lenient: false) else { return (nil, nil) }
        var nanos: UInt64? = nil
        if case .string(let time)? = value["time"], let seconds = RecordedTime.seconds(time), seconds >= 0 {
            nanos = UInt64((seconds * 1000).rounded()) * 1_000_000
        }
        return (value["run"]?.stringValue, nanos)
    }
}
