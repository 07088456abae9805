import Synchronization

/// Counts long-lived descriptor owners (a client connection, a child's pipes, the event log)
/// dropped while their descriptor was still open.
///
/// Their `OwnedFD` still closes the descriptor, so nothing leaks; but an owner that goes away
/// without being closed through its own path skipped what that path does (unregistering from
/// the loop, ending a client's contacts, logging a child's exit), which is a bug. Owners call
/// `droppedOpen` from `deinit`; the tests check `count` stays 0 after every scenario.
public enum DescriptorAudit {
    private static let dropped = Atomic<Int>(0)

    /// How many owners were dropped open since the process started.
    public static var count: Int { dropped.load(ordering: .relaxed) }

    /// Notes one owner dropped with its descriptor open, and says so on stderr.
    public static func droppedOpen(_ owner: String) {
        dropped.add(1, ordering: .relaxed)
        Stderr.write("tapgridd: bug: \(owner) was dropped with its descriptor open (closed now)\n")
    }
}
