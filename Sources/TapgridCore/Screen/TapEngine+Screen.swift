extension TapEngine {
    /// The next sequence number, for a record that is not a tap (`screen`, `wake`): taken from
    /// the taps' counter as state records take theirs, so `seq` stays unique and ordered within
    /// the run.
    public mutating func takeSeq() -> UInt64 {
        seq += 1
        return seq
    }
}
