/// Messages for the broker (docs/fleet.md "When the broker is away"): those waiting, oldest first and at most `capacity`
/// (a full queue drops its oldest), and those in flight (published at QoS 1, not yet
/// acknowledged), at most `window`. When the connection goes, what was in flight goes back to
/// the front, in its order, to be sent again before what waited behind it. What the fleet
/// publishes next and what it counts as dropped is decided here, without a broker; the fleet
/// only publishes `next` and reports what became of it. Inlinable, as `BoundedQueue` is: the
/// daemon specializes it for its messages.
public struct InFlightQueue<Element> {
    public let window: Int
    @usableFromInline var waiting: BoundedQueue<Entry>
    /// In the order sent (`inFlight[inFlightHead...]`): PUBACKs come back in that order from one
    /// broker connection, so the one acknowledged is nearly always the first, found without
    /// hashing (a dictionary by mid cost two hashes a message).
    @usableFromInline var inFlight: [(mid: Int32, entry: Entry)] = []
    @usableFromInline var inFlightHead = 0
    @usableFromInline var nextOrder: UInt64 = 0
    /// Messages dropped: the oldest of a full queue, or too old to send (`dropWaiting(while:)`).
    @inlinable public var dropped: UInt64 { droppedCount }
    @usableFromInline var droppedCount: UInt64 = 0

    @usableFromInline struct Entry {
        @usableFromInline var order: UInt64
        @usableFromInline var element: Element
        @inlinable init(order: UInt64, element: Element) {
            self.order = order
            self.element = element
        }
    }

    @inlinable public init(capacity: Int, window: Int) {
        waiting = BoundedQueue(capacity: capacity)
        self.window = window
    }

    @inlinable public var capacity: Int { waiting.capacity }
    @inlinable public var waitingCount: Int { waiting.count }
    @inlinable public var inFlightCount: Int { inFlight.count - inFlightHead }
    /// Waiting and in flight.
    @inlinable public var count: Int { waiting.count + inFlightCount }
    /// Nothing waits (some may be in flight).
    @inlinable public var isEmpty: Bool { waiting.isEmpty }
    /// Room to append without dropping the oldest.
    @inlinable public var hasRoom: Bool { waiting.count < waiting.capacity }

    /// What to publish now: the oldest waiting, while fewer than `window` are in flight.
    @inlinable public var next: Element? { inFlightCount < window ? waiting.first?.element : nil }

    /// Queues `element` (the oldest is dropped, and counted, when full).
    /// (`consuming`: the caller's reference moves in, no retain and release per message.)
    @inlinable public mutating func append(_ element: consuming Element) {
        if !waiting.append(Entry(order: nextOrder, element: element)) { droppedCount += 1 }
        nextOrder &+= 1
    }

    /// `next` was published: in flight as `mid`, or (nil: at QoS 0) done.
    @inlinable public mutating func sent(mid: Int32?) {
        guard !waiting.isEmpty else { return }
        let entry = waiting.removeFirst()
        if let mid { inFlight.append((mid, entry)) }
    }

    /// Whether `mid` is the oldest in flight (what the next PUBACK nearly always names).
    @inlinable public func isOldest(_ mid: Int32) -> Bool { inFlightHead < inFlight.count && inFlight[inFlightHead].mid == mid }

    /// The broker acknowledged `mid`: true when it was one of these.
    @inlinable public mutating func acknowledged(_ mid: Int32) -> Bool {
        guard inFlightHead < inFlight.count else { return false }
        if inFlight[inFlightHead].mid == mid {
            inFlightHead += 1
        } else {
            guard let index = inFlight[inFlightHead...].firstIndex(where: { $0.mid == mid }) else { return false }
            inFlight.remove(at: index)
        }
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
        } else if inFlightHead >= 1024 && inFlightHead * 2 >= inFlight.count {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
        return true
    }

    /// The connection went: the messages in flight wait again, in front, oldest first.
    @inlinable public mutating func connectionLost() {
        waiting.prepend(contentsOf: inFlight[inFlightHead...].map(\.entry).sorted { $0.order < $1.order })
        inFlight.removeAll(keepingCapacity: true)
        inFlightHead = 0
    }

    /// Drops the waiting messages at the front while `tooOld` says so (each counted).
    @inlinable public mutating func dropWaiting(while tooOld: (Element) -> Bool) {
        while let entry = waiting.first, tooOld(entry.element) {
            _ = waiting.removeFirst()
            droppedCount += 1
        }
    }
}
