import TapgridSystem

/// The time requests are decided and recorded at. The lines of one `read(2)` arrived together:
/// inside a batch (`SocketServer` answering one read's lines) the clock is read once for all of
/// them, monotonic and wall-clock time each at its first use; outside one, every read is fresh.
/// Two `clock_gettime` calls per tap were a tenth of a pipelined run's CPU time (`perf record`),
/// where a batch carries up to a thousand taps.
///
/// Reads stay in order: a batch's time is read after everything before the batch and is never
/// later than anything read after it, so the engine never sees time go back (its debounce and
/// touch timings compare successive times). Every time handed to the engine on a request's
/// path therefore comes from here. Loop-owned.
final class RequestClock {
    @exclusivity(unchecked) private var inBatch = false
    @exclusivity(unchecked) private var monotonicRead: UInt64?
    @exclusivity(unchecked) private var realtimeRead: (seconds: Int64, nanoseconds: Int64)?

    /// `Clock.monotonicNanos()`, or the batch's.
    var monotonic: UInt64 {
        guard inBatch else { return Clock.monotonicNanos() }
        if let read = monotonicRead { return read }
        let now = Clock.monotonicNanos()
        monotonicRead = now
        return now
    }

    /// `Clock.realtime()`, or the batch's (an event-log record's `time`).
    var realtime: (seconds: Int64, nanoseconds: Int64) {
        guard inBatch else { return Clock.realtime() }
        if let read = realtimeRead { return read }
        let now = Clock.realtime()
        realtimeRead = now
        return now
    }

    /// Runs `body` as one batch (inside a batch already: as part of it).
    @inline(__always)
    func batch<R>(_ body: () -> R) -> R {
        if inBatch { return body() }
        inBatch = true
        monotonicRead = nil
        realtimeRead = nil
        defer { inBatch = false }
        return body()
    }
}
