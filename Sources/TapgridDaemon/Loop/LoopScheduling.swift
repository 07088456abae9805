import TapgridSystem

/// What an owner needs of the loop to run on timers: the time, one-shot and repeating timers.
/// `EventLoop` is it for the daemon; a test gives the fleet a loop with a clock it moves by hand
/// (`ManualLoop` in the daemon's tests), so what happens when is checked without waiting.
protocol LoopScheduling: AnyObject {
    /// Now, on the loop's monotonic clock (nanoseconds).
    var now: UInt64 { get }
    /// A timer that, once scheduled, runs `action` once, or every `interval` nanoseconds (0: once).
    func makeTimer(every interval: UInt64, _ action: @escaping () -> Void) -> LoopTimer
    /// Runs `timer` at `time` (nil: not at all).
    func schedule(_ timer: LoopTimer, at time: UInt64?)
    func removeTimer(_ timer: LoopTimer)
}

extension LoopScheduling {
    func makeTimer(_ action: @escaping () -> Void) -> LoopTimer { makeTimer(every: 0, action) }
    func schedule(_ timer: LoopTimer, after nanoseconds: UInt64) { schedule(timer, at: now &+ nanoseconds) }
}

extension EventLoop: LoopScheduling {
    var now: UInt64 { Clock.monotonicNanos() }
}
