import TapgridCore

/// What the tap path tells the transports that publish (the fleet, the panel): each decided tap
/// and each state change, appended as it happens and drained once at the end of the wakeup
/// (`Daemon.endWakeup`), so neither is called in the middle of a tap. Each event keeps the
/// config it was decided under: a `load` later in the same wakeup changes the engine's.
final class Outbox {
    enum Event {
        /// A tap decided and carried out; `source` as its record says it (nil: a socket client's plain tap).
        case tap(TapDecision, source: [UInt8]?, active: ActiveConfig)
        /// A cell's state changed.
        case state(layout: Int, grid: Int, CellState, active: ActiveConfig)
        /// The screen went on, dim or off (docs/screen.md).
        case screen(ScreenState)
    }

    /// (Loop-owned: no run-time exclusivity check per appended event.)
    @exclusivity(unchecked) private(set) var events: [Event] = []

    init() { events.reserveCapacity(256) }

    @inline(__always)
    func append(_ event: Event) { events.append(event) }

    /// The wakeup's events have been handed out: empties it (keeping its memory unless a burst grew it).
    func clear() { events.removeAll(keepingCapacity: events.capacity <= 4096) }
}

/// The `mqtt` handler's queue (the fleet): a tap routed to it is queued there at once, its
/// outcome `busy` when the queue is full.
protocol MQTTHandlerQueue: AnyObject {
    func publishHandlerMessage(_ decision: TapDecision) -> Bool
}
