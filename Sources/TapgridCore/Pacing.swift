/// "At once after a quiet spell, else at most once every `interval`": when work that keeps
/// arriving is done. The panel's event batches (20 ms), the fleet's publishing rounds (2 ms) and
/// the socket server's heap trims (1 s) pace themselves so: a person's single tap goes out at
/// once, a burst costs one round per interval. Pure: times are passed in, nothing is scheduled.
public struct Pacing: Sendable, Equatable {
    public let intervalNanos: UInt64
    /// When the work last ran (monotonic ns); nil: never.
    public private(set) var lastRun: UInt64?

    public init(intervalNanos: UInt64) { self.intervalNanos = intervalNanos }

    /// Whether work arriving at `now` may run now: an interval has passed since the last run.
    public func mayRun(now: UInt64) -> Bool { lastRun.map { now &- $0 >= intervalNanos } ?? true }

    /// When work arriving at `now` runs: `now` after a quiet spell, else an interval after the last run.
    public func due(now: UInt64) -> UInt64 { mayRun(now: now) ? now : lastRun! &+ intervalNanos }

    /// The work ran at `now`.
    public mutating func ran(at now: UInt64) { lastRun = now }
}
