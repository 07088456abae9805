import CShims

/// The process's heap.
public enum Memory {
    /// Gives the heap's free pages back to the kernel. glibc keeps the pages of freed blocks that
    /// are not at the top of the heap, so after a burst (a client's megabyte of replies, a big
    /// batch of records) the resident size would stay at its high-water mark. Walks the heap:
    /// call it after a burst, not per request. The corresponding C function is `malloc_trim(0)`.
    /// - Returns: whether any memory was released.
    @discardableResult
    public static func returnFreePages() -> Bool { cshims_malloc_trim() == 1 }
}
