import Testing

@testable import TapgridCore

/// What the fleet publishes next and what it drops, decided without a broker.
@Suite struct InFlightQueueTests {
    @Test func theWindowBoundsWhatIsInFlight() {
        var queue = InFlightQueue<Int>(capacity: 10, window: 2)
        for n in 1...4 { queue.append(n) }
        #expect(queue.next == 1)
        queue.sent(mid: 101)
        #expect(queue.next == 2)
        queue.sent(mid: 102)
        #expect(queue.next == nil, "two in flight: the window is full")
        #expect(queue.count == 4 && queue.inFlightCount == 2 && queue.waitingCount == 2)
        let first = queue.acknowledged(101), again = queue.acknowledged(101), unknown = queue.acknowledged(999)
        #expect(first)
        #expect(!again, "each acknowledgement once")
        #expect(!unknown, "not one of these")
        #expect(queue.next == 3)
        queue.sent(mid: nil)  // QoS 0: done at once
        #expect(queue.inFlightCount == 1 && queue.next == 4)
    }

    @Test func aLostConnectionSendsWhatWasInFlightFirstInItsOrder() {
        var queue = InFlightQueue<Int>(capacity: 10, window: 5)
        for n in 1...5 { queue.append(n) }
        queue.sent(mid: 30)  // 1
        queue.sent(mid: 10)  // 2
        queue.sent(mid: 20)  // 3
        let acknowledged = queue.acknowledged(10)
        #expect(acknowledged)
        queue.connectionLost()
        var order: [Int] = []
        while let next = queue.next {
            order.append(next)
            queue.sent(mid: nil)
        }
        #expect(order == [1, 3, 4, 5])
        #expect(queue.dropped == 0)
    }

    @Test func aFullQueueDropsItsOldestAndOldOnesAreDropped() {
        var queue = InFlightQueue<Int>(capacity: 3, window: 10)
        for n in 1...5 { queue.append(n) }
        #expect(queue.dropped == 2 && queue.next == 3 && !queue.hasRoom)
        queue.dropWaiting { $0 < 5 }
        #expect(queue.dropped == 4 && queue.next == 5 && queue.hasRoom)
        queue.dropWaiting { _ in true }
        #expect(queue.isEmpty && queue.next == nil && queue.dropped == 5)
    }
}
