/// The screen of `replay --config` (docs/event-log-and-replay.md "Replay"): the config's
/// `ScreenMachine` run again over the log's contacts, so that a recorded tap the screen would now
/// use up, or no longer use up, counts as a difference. Beside `OfflineReplay`, which it feeds:
///
/// - each touch record goes through `touch` first, and to `OfflineReplay.feed` only when it
///   answers true. A contact the screen would now use up is withheld whole (down, moves, up), so
///   the classed taps recorded for it find no replayed tap and differ, as any missing tap does.
/// - each `wake` record goes through `wake`: false means the contact would now be pressed (no
///   `screen` block, `wakeTouch` `pass`, or a screen that would still be lit): one difference.
///   Its moves and up were never recorded, so it cannot be pressed again.
/// - each `screen` record goes through `screen`: changes made by ops and MQTT are made again;
///   `idle`, `touch` and `start` follow from the contacts and the timers.
///
/// Times are the records' `time` (wall clock, milliseconds), as nanoseconds on any one scale: the
/// screen's records carry no monotonic `ms`, touch records both. Time never runs backwards here
/// (a clock stepped back holds at the last time). Each run (`run`) starts its own screen, `on`
/// at its first record: a log written without a `screen` block has no `start` record, so a
/// screen that would have gone dark between the daemon's start and its first record is not seen.
/// Ops that changed nothing wrote no record (a `wake` on a lit screen), so their timer restarts
/// are not made again.
public struct ScreenReplay {
    private let config: ScreenConfig?
    private var machine: ScreenMachine?
    private var run: String?
    private var now: UInt64 = 0
    private var streams = RecordedStreams()

    /// - Parameter config: the replayed config's `screen` block; nil: no screen, nothing is used up.
    public init(config: ScreenConfig?) { self.config = config }

    /// A contact event's record. - Returns: whether to feed it to the recognizer (false: the
    /// screen would now use it up).
    public mutating func touch(_ record: TouchRecord, run: String?, at time: UInt64?) -> Bool {
        guard advance(run: run, to: time) else { return true }
        return machine!.contact(record.phase, key: streams.key(of: record), now: now).verdict == .pass
    }

    /// A `wake` record: the down that woke the recorded screen and was used up.
    /// - Returns: whether the replay's screen uses it up too; false is a difference (it would now
    ///   be pressed).
    public mutating func wake(_ record: RecordedWake, run: String?, at time: UInt64?) -> Bool {
        guard advance(run: run, to: time) else { return false }
        // Wake records name no slot, and a used-up contact's moves and up are not in the log: its
        // down is taken and the contact ended at once (a recorded contact after it was not used
        // up, so the waking finger was no longer down then).
        let key = ContactKey(stream: streams.stream(conn: record.conn, source: record.source), slot: -1)
        let verdict = machine!.contact(.down, key: key, now: now).verdict
        _ = machine!.contact(.cancel, key: key, now: now)
        return verdict.isConsumed
    }

    /// A `screen` record: an op's or MQTT's change is made again.
    public mutating func screen(_ record: RecordedScreen, run: String?, at time: UInt64?) {
        guard advance(run: run, to: time), let origin = record.command else { return }
        _ = machine!.set(record.state, from: origin, now: now)
    }

    /// The replay's screen state now (nil without a `screen` block, or before the first record).
    public var state: ScreenState? { machine?.state }

    /// Moves the clock to `time`, starting a new screen for a new run, and runs the timers due.
    /// - Returns: false when there is no screen.
    private mutating func advance(run: String?, to time: UInt64?) -> Bool {
        guard let config else { return false }
        if let time { now = max(now, time) }
        if machine == nil || (run != nil && run != self.run) {
            self.run = run
            machine = ScreenMachine(config: config)
            streams = RecordedStreams()
            _ = machine!.start(now: now)
        }
        _ = machine!.due(now: now)
        return true
    }
}
