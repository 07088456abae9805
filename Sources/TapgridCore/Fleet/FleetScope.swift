/// Who a fleet topic is addressed to (docs/fleet.md "What a panel publishes and takes (P = prefix,
/// N = node)", commands): this node, one of its groups, or every node. Ordered by precedence,
/// because a layout pushed to several scopes takes the definition of the most specific one: the
/// node's first, then its groups' in config order (`mqtt.groups`), then broadcast's.
public enum FleetScope: Sendable, Hashable, Comparable {
    /// `P/<node>/...`.
    case node
    /// `P/<group>/...`; `index` is the group's place in `mqtt.groups`, so an earlier group wins.
    case group(index: Int)
    /// `P/broadcast/...`.
    case broadcast

    /// Lower ranks win: node 0, groups 1... in config order, broadcast last.
    private var rank: Int {
        switch self {
        case .node: return 0
        case .group(let index): return 1 + index
        case .broadcast: return Int.max
        }
    }

    /// `a < b` when `a` takes precedence over `b`.
    public static func < (a: FleetScope, b: FleetScope) -> Bool { a.rank < b.rank }
}
