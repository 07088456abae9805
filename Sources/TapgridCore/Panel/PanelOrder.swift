/// A page session's contacts in the order the page numbered them (`n`): a browser sends each
/// request as soon as it happens, over whichever of its connections is free, so a `down` and its
/// `up` can arrive the other way round. One that comes early waits for those before it, at most
/// `waitNanos` (a request that never arrives, e.g. a fetch the page aborted, is then skipped).
/// Pure: the daemon says what arrived and when, and carries out what comes back.
public struct PanelOrder<Item> {
    /// How long an early contact waits for the ones before it.
    public static var waitNanos: UInt64 { 500_000_000 }

    /// The number the next contact should have: a page numbers its session's contacts from 0.
    /// (A page whose session expired while it stayed open continues its numbering: its first
    /// contact then waits `waitNanos` once, for numbers that will not come.)
    public private(set) var expected: Int? = 0
    /// Early contacts by number, each with when it arrived.
    public private(set) var held: [Int: (item: Item, since: UInt64)] = [:]

    public init() {}

    /// A contact numbered `number` arrived at `now`.
    /// - Returns: the items to carry out now, in order (empty when it must wait).
    public mutating func arrived(_ item: Item, number: Int, now: UInt64) -> [Item] {
        guard let next = expected else {
            expected = number + 1
            return [item] + drain()
        }
        if number < next { return [item] }  // late (its turn was skipped): at once rather than never
        if number > next {
            held[number] = (item, now)
            return []
        }
        expected = number + 1
        return [item] + drain()
    }

    /// Early contacts that waited `waitNanos`: the gap before the oldest is skipped.
    public mutating func expire(now: UInt64) -> [Item] {
        guard let oldest = held.values.map(\.since).min(), now >= oldest &+ Self.waitNanos,
              let first = held.keys.min() else { return [] }
        expected = first
        return drain()
    }

    /// When the oldest early contact stops waiting, if one waits.
    public var nextExpiry: UInt64? { held.values.map(\.since).min().map { $0 &+ Self.waitNanos } }

    private mutating func drain() -> [Item] {
        var out: [Item] = []
        while let next = expected, let entry = held.removeValue(forKey: next) {
            out.append(entry.item)
            expected = next + 1
        }
        return out
    }
}
