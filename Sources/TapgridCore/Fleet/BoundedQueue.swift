/// A first-in, first-out queue with a bound, for what waits for the broker (actions, and
/// records when there is no event log): appending to a full one drops the oldest, which the
/// caller counts. Taking from the front moves an index; the array is compacted once half of it
/// is taken, so neither end costs more than amortized constant time. Inlinable: the daemon
/// specializes it for its element types (unspecialized, every call looked its generic metadata up
/// at run time, a few hundred instructions a message).
public struct BoundedQueue<Element> {
    public let capacity: Int
    @usableFromInline var items: [Element] = []
    @usableFromInline var head = 0

    @inlinable public init(capacity: Int) { self.capacity = capacity }

    @inlinable public var count: Int { items.count - head }
    @inlinable public var isEmpty: Bool { head == items.count }
    @inlinable public var first: Element? { isEmpty ? nil : items[head] }

    /// Appends `element`. - Returns: false when the oldest was dropped to make room.
    @discardableResult @inlinable
    public mutating func append(_ element: consuming Element) -> Bool {
        let full = count >= capacity
        if full { head += 1 }
        items.append(element)
        compact()
        return !full
    }

    @inlinable public mutating func removeFirst() -> Element {
        let element = items[head]
        head += 1
        compact()
        return element
    }

    /// Puts `elements` back in front, in their order (messages in flight when the connection
    /// went, to be sent again before what waited behind them).
    @inlinable public mutating func prepend(contentsOf elements: [Element]) {
        items.replaceSubrange(0..<head, with: elements)
        head = 0
    }

    @inlinable mutating func compact() {
        if head > 0 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}
