@preconcurrency import Glibc
import CSystemd
import TapgridSystem

/// The systemd journal: native structured records, and whether stderr already goes there.
public enum Journal {
    /// Sends `entry` to journald as one record. libsystemd adds `SYSLOG_IDENTIFIER` (the program
    /// name) and the journal adds `_PID`, `_UID`, `_SYSTEMD_UNIT`, ... itself. The `iovec` array
    /// lives on the stack and points into the entry's buffer: nothing is copied or allocated here.
    /// Without a running journald the datagram is dropped and this still succeeds.
    /// The corresponding C function is `sd_journal_sendv`.
    /// - Throws: `SystemdError` naming `sd_journal_sendv` (`EINVAL` for an empty entry).
    public static func send(_ entry: JournalEntry) throws(SystemdError) {
        let ends = entry.ends
        guard !ends.isEmpty else { throw SystemdError("sd_journal_sendv", Errno(EINVAL), detail: "empty journal entry") }
        let result: CInt = entry.bytes.withUnsafeBytes { raw in
            withUnsafeTemporaryAllocation(of: iovec.self, capacity: ends.count) { vectors in
                var start = 0
                for (index, end) in ends.enumerated() {
                    vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + start), iov_len: end - start)
                    start = end
                }
                return sd_journal_sendv(vectors.baseAddress, CInt(ends.count))
            }
        }
        _ = try SystemdError.check(result, "sd_journal_sendv")
    }

    /// Whether our stderr is connected to the journal: systemd sets `JOURNAL_STREAM=dev:inode`
    /// for the stream it hands a service, and it is still ours only if descriptor 2 is that very
    /// stream (a child of the service with stderr redirected inherits the variable, not the
    /// stream). Then log with `send`; otherwise write `<N>`-prefixed stderr lines.
    /// The corresponding C function is `fstat`.
    public static func standardErrorIsJournal() -> Bool {
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return streamMatches(CurrentProcess.environment("JOURNAL_STREAM"), device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Whether a `JOURNAL_STREAM` value (`dev:inode`, both decimal) names this device and inode.
    public static func streamMatches(_ journalStream: String?, device: UInt64, inode: UInt64) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        return dev == device && ino == inode
    }
}
