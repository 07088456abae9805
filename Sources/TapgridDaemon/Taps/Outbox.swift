import TapgridCore

/// What the tap path tells the transports that publish (the fleet, the panel): each decided tap
/// and each state change, appended as it happens and drained once at the end of the wakeup
/// (`Daemon.endWakeup`), so neither is called in the middle of a tap. Each event is read with
/// the config it was decided under (a `load` later in the same wakeup changes the engine's):
/// the configs are kept beside the events, one entry per change, so an event holds no
/// reference of its own (a retained config per event cost each tap three retain and release
/// pairs: made, read by the fleet, read by the panel).
final class Outbox {
    enum Event {
        /// A tap decided and carried out; `source` as its record says it (nil: a socket client's plain tap).
        case tap(TapDecision, source: [UInt8]?)
        /// A cell's state changed.
        case state(layout: Int, grid: Int, CellState)
        /// The screen went on, dim or off (docs/screen.md).
        case screen(ScreenState)
    }

    /// (Loop-owned: no run-time exclusivity check per appended event.)
    @exclusivity(unchecked) private(set) var events: [Event] = []
    /// The config of `events[from...]`, up to the next entry's `from`.
    @exclusivity(unchecked) private var configs: [(from: Int, active: ActiveConfig)] = []

    init() { events.reserveCapacity(256) }

    /// Appends `event`, decided under `active` (borrowed: compared by identity, kept only when it
    /// differs from the last event's).
    @inline(__always)
    func append(_ event: Event, active: ActiveConfig) {
        if configs.isEmpty || configs[configs.count - 1].active !== active { configs.append((events.count, active)) }
        events.append(event)
    }

    /// Calls `body` with each event in order and the config it was decided under.
    @inline(__always)
    func forEach(_ body: (Event, ActiveConfig) -> Void) {
        var next = 0
        var active: ActiveConfig? = nil
        events.withUnsafeBufferPointer { events in
            for index in events.indices {
                while next < configs.count && configs[next].from <= index {
                    active = configs[next].active
                    next += 1
                }
                body(events[index], active!)
            }
        }
    }

    /// The wakeup's events have been handed out: empties it (keeping its memory unless a burst grew it).
    func clear() {
        if events.capacity <= 4096 { events.removeAllKeepingCapacity() } else { events.removeAll() }
        configs.removeAllKeepingCapacity()
    }
}

/// The `mqtt` handler's queue (the fleet): a tap routed to it is queued there at once, its
/// outcome `busy` when the queue is full.
protocol MQTTHandlerQueue: AnyObject {
    func publishHandlerMessage(_ decision: TapDecision) -> Bool
}
