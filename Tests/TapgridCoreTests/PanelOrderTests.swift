import Testing
@testable import TapgridCore

/// A page session's numbered contacts are carried out in their numbers' order, whatever order
/// they arrive in; one that never arrives holds the rest up for half a second, no longer.
@Suite struct PanelOrderTests {
    @Test func inOrderGoesAtOnce() {
        var order = PanelOrder<String>()
        #expect(order.arrived("down", number: 0, now: 0) == ["down"])
        #expect(order.arrived("up", number: 1, now: 1) == ["up"])
        #expect(order.nextExpiry == nil)
    }

    @Test func anUpBeforeItsDownWaitsForIt() {
        var order = PanelOrder<String>()
        #expect(order.arrived("up", number: 1, now: 10).isEmpty)
        #expect(order.nextExpiry == 10 + PanelOrder<String>.waitNanos)
        #expect(order.arrived("down", number: 0, now: 20) == ["down", "up"])
        #expect(order.held.isEmpty)
        #expect(order.arrived("next", number: 2, now: 30) == ["next"])
    }

    @Test func aMissingContactIsSkippedAfterHalfASecond() {
        var order = PanelOrder<String>()
        #expect(order.arrived("a", number: 0, now: 0) == ["a"])
        #expect(order.arrived("c", number: 2, now: 100).isEmpty)
        #expect(order.arrived("d", number: 3, now: 200).isEmpty)
        let wait = PanelOrder<String>.waitNanos
        #expect(order.expire(now: 100 + wait - 1).isEmpty, "not a nanosecond early")
        #expect(order.expire(now: 100 + wait) == ["c", "d"])
        #expect(order.expected == 4)
        // The skipped one arriving late is carried out rather than never.
        #expect(order.arrived("b", number: 1, now: 100 + wait + 1) == ["b"])
        #expect(order.arrived("e", number: 4, now: 100 + wait + 2) == ["e"])
    }

    @Test func aGapAfterTheSkippedOneWaitsAgain() {
        var order = PanelOrder<String>()
        #expect(order.arrived("b", number: 1, now: 0).isEmpty)
        #expect(order.arrived("d", number: 3, now: 0).isEmpty)
        #expect(order.expire(now: PanelOrder<String>.waitNanos) == ["b"], "up to the next gap")
        #expect(order.nextExpiry == PanelOrder<String>.waitNanos)
        #expect(order.expire(now: PanelOrder<String>.waitNanos) == ["d"])
    }
}
