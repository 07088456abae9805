/// What the tap engine decided for one tap: what it hit, where it goes, and what the daemon must
/// carry out. Indexes only (into `ActiveConfig`), so deciding a tap copies no strings or arrays.
public struct TapDecision: Sendable, Equatable {
    /// The tap's sequence number; 0 for a hit-test (`hit` op), which is not a tap.
    public var seq: UInt64
    /// Index of the layout the tap was tested against.
    public var layout: Int
    /// The grid hit, its info slot and its handler slot; nil for a miss.
    public var target: TapTarget?
    /// The outcome; `.dispatched` for `.spawn` until the daemon settles it.
    public var outcome: Outcome
    /// What the daemon must do for it.
    public var action: TapAction
    /// Why the tap was denied, for the reply's `reason` (denials only: never on the common path).
    public var reason: String?
    /// The tap's class; `.tap` for plain tap requests.
    public var tapClass: TapClass = .tap
    /// Whether it came from a touch contact (its record and reply then carry `class`).
    public var fromContact = false
    /// A `toggle` grid's `active` after this tap flipped it (its record and reply carry it);
    /// nil for every other tap.
    public var toggledActive: Bool? = nil
    /// A slider's value for its `change` and `release` (docs/touch.md "Sliders"); nil for
    /// every other tap.
    public var value: Double? = nil
    /// The slider's state `value` changed to `value` with this tap (the caller tells the
    /// transports that show state; no state record: the tap's record carries the value).
    public var storedValue = false

    /// The handler slot, -1 when unrouted or a miss.
    public var handler: Int32 { target?.handler ?? -1 }
}

/// The side effect a decided tap asks of the daemon.
public enum TapAction: Sendable, Equatable {
    /// Nothing beyond the record and the reply (miss, unrouted, suppressed, denied, checked).
    case none
    /// One record of a `log` handler.
    case log
    /// A child of a `url` or `script` handler; the daemon reports back with `settle`.
    case spawn
    /// A `layout` handler made `to` current (it was `from`; equal when it already was).
    case switchLayout(from: Int, to: Int)
    /// An `mqtt` handler's message: the daemon queues it on the fleet connection and reports
    /// back with `settle` (`busy` when the queue is full).
    case publish

    /// Whether the daemon reports back with `TapEngine.settle` (a child's or a queue's answer
    /// decides the outcome), so the engine neither counts the outcome nor notes the dispatch.
    public var isSettledByCaller: Bool {
        switch self {
        case .spawn, .publish: return true
        case .none, .log, .switchLayout: return false
        }
    }
}
