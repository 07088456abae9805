/// The panel's event batch (docs/panel.md): the events for every stream are
/// gathered, then handed to each stream at once, at most once per `intervalNanos` (`Pacing`: a
/// person's tap after a quiet spell goes out at once). So a burst of socket taps costs each
/// stream one write per batch, not one per tap. A stream that keeps up gets every event; one
/// more than `shedBacklog` behind gets the batch's `layout` and `state` events and one `skipped`
/// event counting its taps instead of the taps (a page only flashes cells with them, and a
/// reader that cannot keep up must not make the daemon copy and hold every tap): nothing is
/// lost without being counted. Pure: the daemon passes times and backlogs in.
public final class PanelBatch {
    /// At most one batch per this long: well under what a person sees.
    public static let intervalNanos: UInt64 = 20_000_000
    /// A stream with more than this waiting gets the lean batch.
    public static let shedBacklog = 128 * 1024

    /// Every event of the batch, framed.
    private let full = ByteBuffer(capacity: 16_384)
    /// The batch's events but its taps, then (once sealed) the `skipped` event counting them.
    private let lean = ByteBuffer(capacity: 4096)
    /// The tap events in the batch.
    public private(set) var taps = 0
    public private(set) var pacing = Pacing(intervalNanos: PanelBatch.intervalNanos)

    public init() {}

    public var isEmpty: Bool { full.isEmpty }

    /// Adds one framed event (`PanelDocuments.event`).
    /// - Returns: when the batch is due, if this is its first event (the caller arms its timer
    ///   for then); nil when the batch already waited for its time.
    public func add(_ event: UnsafeRawBufferPointer, isTap: Bool, now: UInt64) -> UInt64? {
        let due = full.isEmpty ? pacing.due(now: now) : nil
        full.append(event)
        if isTap { taps += 1 } else { lean.append(event) }
        return due
    }

    /// The batch goes out at `now`: the lean batch gets its `skipped` event.
    public func seal(now: UInt64) {
        pacing.ran(at: now)
        guard taps > 0 else { return }
        PanelDocuments.skipped(taps: taps).withUnsafeBytes { PanelDocuments.event("skipped", data: $0, into: lean) }
    }

    /// What a stream with `backlog` bytes not yet taken gets of the sealed batch.
    public func bytes(forBacklog backlog: Int) -> UnsafeRawBufferPointer {
        isLean(forBacklog: backlog) ? lean.bytes : full.bytes
    }

    /// A stream with `backlog` bytes not yet taken gets the lean batch (it has taps to leave out).
    public func isLean(forBacklog backlog: Int) -> Bool { backlog > Self.shedBacklog && taps > 0 }

    /// Handed out: empty again (a batch a burst grew goes back to its usual size).
    public func clear() {
        full.removeAll(shrinkingAbove: 1 << 20)
        lean.removeAll(shrinkingAbove: 1 << 16)
        taps = 0
    }
}
