/// The screen's state machine (docs/configuration.md, the `screen` block): `on`, `dim`, `off`,
/// the idle timers counted from the last person's contact, and which contacts the waking touch
/// uses up. A pure value: each event takes the time (the daemon's monotonic clock, nanoseconds)
/// and returns what the daemon then does, so every rule is tested without a clock
/// (`ScreenMachineTests`). No thread and no polling: the daemon keeps one loop timer at
/// `ScreenActions.deadline` and sends `due(now:)` when it fires.
///
/// ```
///        no contact for dimSeconds        no contact for offSeconds
///   on ──────────────────────────▶ dim ──────────────────────────▶ off
///    ▲  a contact down (touch), a wake, `screen on` (op/mqtt)        │
///    └──────────────────────────────────────────────────────────────┘
/// ```
///
/// Timers: a person's contact (`down`, `move`, `up`; a used-up one too), a wake and `screen on`
/// restart both from that moment. Plain socket taps and MQTT taps never reach the machine.
/// - `screen off` (op or MQTT): `off`, no timer; it stays off until a contact goes down or a wake.
/// - `screen dim`: `dim`, as if the screen had just dimmed by itself: it goes `off` after the span
///   it would have stayed dim (offSeconds − dimSeconds; offSeconds without dimSeconds), unless a
///   person or a wake lights it first; without offSeconds it stays dim.
/// - `screen on` and `wake`: `on`, both timers from now (also when it was on: no change then).
/// - A late timer (the loop was busy, the machine was suspended) that finds both deadlines passed
///   goes straight to `off`: one change, one record.
/// - Only a `down` wakes: a `move` or `up` of a contact that went down while `on` restarts the
///   timers but leaves a dark screen dark (and is never used up: a long press that began before
///   the screen went off still fires).
public struct ScreenMachine: Sendable, Equatable {
    /// A state change: the daemon writes a `screen` record (`ScreenRecord.write`), the backlight's
    /// value for `state` (`ScreenConfig.Backlight.brightness`) and runs `commands.<state>`.
    public struct Change: Sendable, Equatable {
        public var state: ScreenState
        public var reason: ScreenReason

        public init(_ state: ScreenState, _ reason: ScreenReason) {
            self.state = state
            self.reason = reason
        }
    }

    /// What an event asks of the daemon.
    public struct Actions: Sendable, Equatable {
        /// The change to carry out, nil when the state stayed.
        public var change: Change?
        /// When the loop's screen timer should fire next (then `due(now:)`); nil: no timer. Given
        /// after every event; a timer armed earlier than this may also be left (firing early is
        /// harmless: `due` then changes nothing and gives the real deadline), so a burst of moves
        /// need not re-arm it each time.
        public var deadline: UInt64?

        public init(change: Change? = nil, deadline: UInt64?) {
            self.change = change
            self.deadline = deadline
        }
    }

    /// What to do with one contact event.
    public enum Verdict: Sendable, Equatable {
        /// Handle it as usual (the recognizer, its touch record).
        case pass
        /// Used up by the waking touch: no recognizer, no touch record, no reply's `taps`. `wake`
        /// is true for the `down` that woke the screen: the daemon writes its `wake` record
        /// (`WakeRecord.write`); false for every other used-up event (a second finger of the same
        /// wake, the moves and up of a used-up contact).
        case consume(wake: Bool)

        public var isConsumed: Bool { self != .pass }
    }

    public private(set) var state: ScreenState = .on
    /// When the current state began (monotonic nanoseconds): `status`'s `since`.
    public private(set) var since: UInt64 = 0
    /// Whether `start` was sent.
    public private(set) var started = false
    public private(set) var wakeTouch: ScreenConfig.WakeTouch
    private var dimNanos: UInt64?
    private var offNanos: UInt64?
    /// When the idle timers go to `dim` and `off` (each nil when it does not apply now).
    private var dimAt: UInt64?
    private var offAt: UInt64?
    /// The contacts used up by the waking touch, until their `up` or `cancel`.
    private var consumed: Set<ContactKey> = []
    /// When the last waking touch was: a second finger down at that same instant is part of it.
    private var wokeAt: UInt64?

    public init(config: ScreenConfig) {
        wakeTouch = config.wakeTouch
        (dimNanos, offNanos) = Self.nanos(config)
    }

    /// The next deadline of the idle timers in the current state, nil for none.
    public var deadline: UInt64? {
        switch state {
        case .on: return dimAt ?? offAt
        case .dim: return offAt
        case .off: return nil
        }
    }

    /// Whether `key`'s events are used up (it went down to wake the screen, or with the waking
    /// finger): the daemon ignores them, and writes no record for them.
    public func isConsumed(_ key: ContactKey) -> Bool { consumed.contains(key) }

    /// Whether any used-up contact is still down.
    public var holdsConsumedContacts: Bool { !consumed.isEmpty }

    // MARK: - Events

    /// The daemon started: `on`, reason `start`, timers from now. Sent once; later calls change nothing.
    public mutating func start(now: UInt64) -> Actions {
        guard !started else { return Actions(deadline: deadline) }
        started = true
        activity(at: now)
        return enter(.on, .start, at: now)
    }

    /// A person's contact event (a touchscreen, a page, the socket's touch ops), before it goes to
    /// the recognizer. - Returns: whether it is used up, and what the daemon does.
    public mutating func contact(_ phase: TouchPhase, key: ContactKey, now: UInt64) -> (verdict: Verdict, actions: Actions) {
        switch phase {
        case .down:
            activity(at: now)
            // A new down on a slot ends whatever contact it had (one whose up never came).
            consumed.remove(key)
            if state.isDark {
                guard wakeTouch == .consume else { return (.pass, enter(.on, .touch, at: now)) }
                consumed.insert(key)
                wokeAt = now
                return (.consume(wake: true), enter(.on, .touch, at: now))
            }
            // Lit: a finger that comes with the waking one (still down, or at the same instant)
            // belongs to the same wake.
            if !consumed.isEmpty || wokeAt == now {
                consumed.insert(key)
                return (.consume(wake: false), Actions(deadline: deadline))
            }
            return (.pass, Actions(deadline: deadline))
        case .move, .up:
            activity(at: now)
            let used = phase == .up ? consumed.remove(key) != nil : consumed.contains(key)
            return (used ? .consume(wake: false) : .pass, Actions(deadline: deadline))
        case .cancel:
            // The contact was ended for the person (a connection closed, a device gone): no activity.
            return (consumed.remove(key) != nil ? .consume(wake: false) : .pass, Actions(deadline: deadline))
        }
    }

    /// A stream's contacts ended without events of their own (its connection closed, its device
    /// went away): its used-up contacts are forgotten.
    public mutating func endContacts(stream: Int) {
        consumed = consumed.filter { $0.stream != stream }
    }

    /// `{"op": "wake"}` or the MQTT `wake` command: `on` (a change when it was dark), timers from now.
    public mutating func wake(from origin: ScreenCommandOrigin, now: UInt64) -> Actions {
        activity(at: now)
        return state == .on ? Actions(deadline: deadline) : enter(.on, origin.reason, at: now)
    }

    /// `{"op": "screen", "state": ...}` or the MQTT `screen` command (Home Assistant's switch).
    /// - Returns: a change when the state differs; the timers as the type's comment says either way.
    public mutating func set(_ target: ScreenState, from origin: ScreenCommandOrigin, now: UInt64) -> Actions {
        switch target {
        case .on:
            return wake(from: origin, now: now)
        case .dim:
            dimAt = nil
            offAt = offNanos.map { now + $0 - (dimNanos ?? 0) }
        case .off:
            dimAt = nil
            offAt = nil
        }
        return state == target ? Actions(deadline: deadline) : enter(target, origin.reason, at: now)
    }

    /// The loop's screen timer fired (or any time: nothing changes before a deadline).
    public mutating func due(now: UInt64) -> Actions {
        switch state {
        case .on:
            if let offAt, offAt <= now { return enter(.off, .idle, at: now) }
            if let dimAt, dimAt <= now { return enter(.dim, .idle, at: now) }
        case .dim:
            if let offAt, offAt <= now { return enter(.off, .idle, at: now) }
        case .off:
            break
        }
        return Actions(deadline: deadline)
    }

    /// A reload: the new block's timers and `wakeTouch`; the state and the used-up contacts stay.
    /// Timers restart from now as they would have been set in this state (on: both from now;
    /// dim: off after the dim span; off: none), so a shorter timer never darkens the screen the
    /// moment a config is loaded.
    public mutating func reconfigure(_ config: ScreenConfig, now: UInt64) -> Actions {
        wakeTouch = config.wakeTouch
        (dimNanos, offNanos) = Self.nanos(config)
        switch state {
        case .on: activity(at: now)
        case .dim, .off: return set(state, from: .op, now: now)
        }
        return Actions(deadline: deadline)
    }

    // MARK: - Inside

    private mutating func activity(at now: UInt64) {
        dimAt = dimNanos.map { now + $0 }
        offAt = offNanos.map { now + $0 }
    }

    private mutating func enter(_ next: ScreenState, _ reason: ScreenReason, at now: UInt64) -> Actions {
        state = next
        since = now
        return Actions(change: Change(next, reason), deadline: deadline)
    }

    private static func nanos(_ config: ScreenConfig) -> (dim: UInt64?, off: UInt64?) {
        func nanos(_ seconds: Double?) -> UInt64? { seconds.map { UInt64(($0 * 1e9).rounded()) } }
        return (nanos(config.dimSeconds), nanos(config.offSeconds))
    }
}
