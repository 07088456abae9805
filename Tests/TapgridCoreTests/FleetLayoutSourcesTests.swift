import Testing

@testable import TapgridCore

/// Layouts pushed over MQTT to several scopes: the node's wins, then its groups' in config
/// order, then broadcast's; each message's effect on the layout in place.
@Suite struct FleetLayoutSourcesTests {
    static func definition(_ width: Int) -> [UInt8] { Array(#"{"width":\#(width),"height":480,"grid":{"tag":1}}"#.utf8) }
    static let byScope: [FleetScope: [UInt8]] = [
        .node: definition(1), .group(index: 0): definition(2), .group(index: 1): definition(3), .broadcast: definition(4),
    ]

    @Test func aSingleScopeLoadsReplacesAndUnloads() {
        var sources = FleetLayoutSources()
        #expect(sources.receive(name: "promo", scope: .broadcast, payload: Self.definition(4))
            == .load(name: "promo", definition: Self.definition(4), scope: .broadcast))
        // The broker sends retained messages again on every reconnect: nothing to do.
        #expect(sources.receive(name: "promo", scope: .broadcast, payload: Self.definition(4)) == .none)
        #expect(sources.receive(name: "promo", scope: .broadcast, payload: Self.definition(5))
            == .load(name: "promo", definition: Self.definition(5), scope: .broadcast))
        #expect(sources.receive(name: "promo", scope: .broadcast, payload: []) == .unload(name: "promo"))
        #expect(sources.winner(of: "promo") == nil)
        #expect(sources.names.isEmpty)
        // Emptying what is not there changes nothing.
        #expect(sources.receive(name: "promo", scope: .broadcast, payload: []) == .none)
    }

    @Test func theNodeOverridesAGroupThatOverridesBroadcast() {
        var sources = FleetLayoutSources()
        let b = Self.byScope[.broadcast]!, g = Self.byScope[.group(index: 0)]!, n = Self.byScope[.node]!
        #expect(sources.receive(name: "p", scope: .broadcast, payload: b) == .load(name: "p", definition: b, scope: .broadcast))
        #expect(sources.receive(name: "p", scope: .group(index: 0), payload: g) == .load(name: "p", definition: g, scope: .group(index: 0)))
        #expect(sources.receive(name: "p", scope: .node, payload: n) == .load(name: "p", definition: n, scope: .node))
        // Changes under the winner are kept, not loaded.
        #expect(sources.receive(name: "p", scope: .broadcast, payload: Self.definition(40)) == .none)
        #expect(sources.receive(name: "p", scope: .group(index: 0), payload: Self.definition(20)) == .none)
        // Taking the node's back falls to the group's latest, then to broadcast's latest.
        #expect(sources.receive(name: "p", scope: .node, payload: []) == .load(name: "p", definition: Self.definition(20), scope: .group(index: 0)))
        #expect(sources.receive(name: "p", scope: .group(index: 0), payload: []) == .load(name: "p", definition: Self.definition(40), scope: .broadcast))
        #expect(sources.receive(name: "p", scope: .broadcast, payload: []) == .unload(name: "p"))
    }

    @Test func groupsWinInConfigOrder() {
        var sources = FleetLayoutSources()
        let g0 = Self.byScope[.group(index: 0)]!, g1 = Self.byScope[.group(index: 1)]!
        #expect(sources.receive(name: "p", scope: .group(index: 1), payload: g1) == .load(name: "p", definition: g1, scope: .group(index: 1)))
        #expect(sources.receive(name: "p", scope: .group(index: 0), payload: g0) == .load(name: "p", definition: g0, scope: .group(index: 0)))
        #expect(sources.receive(name: "p", scope: .group(index: 1), payload: []) == .none)
        #expect(sources.winner(of: "p")?.scope == .group(index: 0))
    }

    @Test func theSameTextFromAnotherScopeChangesNothing() {
        var sources = FleetLayoutSources()
        let same = Self.definition(9)
        #expect(sources.receive(name: "p", scope: .broadcast, payload: same) == .load(name: "p", definition: same, scope: .broadcast))
        #expect(sources.receive(name: "p", scope: .node, payload: same) == .none)
        #expect(sources.winner(of: "p")?.scope == .node)
        #expect(sources.receive(name: "p", scope: .node, payload: []) == .none)
        #expect(sources.winner(of: "p")?.scope == .broadcast)
    }

    @Test func namesAreIndependent() {
        var sources = FleetLayoutSources()
        let a = Self.definition(1), b = Self.definition(2)
        #expect(sources.receive(name: "a", scope: .node, payload: a) == .load(name: "a", definition: a, scope: .node))
        #expect(sources.receive(name: "b", scope: .broadcast, payload: b) == .load(name: "b", definition: b, scope: .broadcast))
        #expect(sources.names == ["a", "b"])
        #expect(sources.receive(name: "a", scope: .node, payload: []) == .unload(name: "a"))
        #expect(sources.winner(of: "b")?.definition == b)
    }

    /// Every order in which the four scopes can arrive, then every order in which they can be
    /// taken back: an arrival loads only when it outranks every scope already there, and a
    /// removal loads the next scope's definition only when it took the winner away.
    @Test func everyOrderOfArrivalAndRemoval() {
        let scopes: [FleetScope] = [.node, .group(index: 0), .group(index: 1), .broadcast]
        for arrival in permutations(scopes) {
            for removal in permutations(scopes) {
                var sources = FleetLayoutSources()
                var present: [FleetScope] = []
                for scope in arrival {
                    let outranksAll = present.allSatisfy { scope < $0 }
                    present.append(scope)
                    let effect = sources.receive(name: "p", scope: scope, payload: Self.byScope[scope]!)
                    #expect(effect == (outranksAll ? .load(name: "p", definition: Self.byScope[scope]!, scope: scope) : .none),
                            "arrival \(arrival), at \(scope)")
                }
                #expect(sources.winner(of: "p")?.scope == .node)
                for scope in removal {
                    let wasWinner = present.min() == scope
                    present.removeAll { $0 == scope }
                    let expected: FleetLayoutEffect
                    if present.isEmpty {
                        expected = .unload(name: "p")
                    } else if wasWinner {
                        let next = present.min()!
                        expected = .load(name: "p", definition: Self.byScope[next]!, scope: next)
                    } else {
                        expected = .none
                    }
                    #expect(sources.receive(name: "p", scope: scope, payload: []) == expected, "arrival \(arrival), removal \(removal), at \(scope)")
                }
                #expect(sources.names.isEmpty)
            }
        }
    }

    func permutations(_ items: [FleetScope]) -> [[FleetScope]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { i in
            var rest = items
            let first = rest.remove(at: i)
            return permutations(rest).map { [first] + $0 }
        }
    }
}
