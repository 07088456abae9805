extension Array {
    /// `removeAll(keepingCapacity: true)` for the per-wakeup lists, which usually hold one or
    /// two elements: those are popped, as the general path (a `replaceSubrange` with an empty
    /// collection) cost 80 to 200 instructions even for one element, 600 of a lockstep tap's
    /// (callgrind). Longer lists take the general path.
    @inline(__always)
    mutating func removeAllKeepingCapacity() {
        if count <= 4 {
            while !isEmpty { removeLast() }
        } else {
            removeAll(keepingCapacity: true)
        }
    }
}
