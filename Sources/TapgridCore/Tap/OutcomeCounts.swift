/// How many taps ended in each outcome (for `status`). Kept in memory this object owns: as a
/// `var` array property of the daemon, each tap's count costs an exclusivity check and a
/// copy-on-write check.
public final class OutcomeCounts {
    private let counts: UnsafeMutableBufferPointer<UInt64>

    public init() {
        counts = .allocate(capacity: Outcome.allCases.count)
        counts.initialize(repeating: 0)
    }

    deinit { counts.deallocate() }

    public func add(_ outcome: Outcome) { counts[outcome.rawValue] += 1 }

    public subscript(_ outcome: Outcome) -> UInt64 { counts[outcome.rawValue] }

    /// Every tap decided so far (state changes share the sequence numbers but are not taps).
    public var total: UInt64 { counts.reduce(0, +) }
}
