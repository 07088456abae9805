import TapgridCore
import TapgridSystem

/// The JSON Lines event log as an append-only sink: one record per tap, one per finished child
/// (the fields are `TapRecord`'s and `ChildExitRecord`'s to write).
///
/// Records are built back to back in one reusable buffer and written with a single `write(2)`
/// on an `O_APPEND` descriptor: a tap's record is *staged* while its request is answered, and the
/// socket server has the staged records of a whole read batch written (`writeStaged`) before it
/// sends any reply of that batch, so a pipelining client costs one `write(2)` per batch, not per
/// tap, and still never sees a reply whose record is not in the file. A record is never split by
/// a concurrent rotation (one `write` on `O_APPEND`) and costs no allocation once the buffer has
/// grown. A failed write does not stop the daemon: the error is remembered (shown by `status`,
/// reported once on stderr), the replies of the records that did not reach the file say
/// `"logged": false`, and the next write tries again (re-opening the file at most once a second
/// if it is not open).
final class EventLog {
    /// Where records go; nil when the log is off (`"eventLog": false`).
    private(set) var path: String?
    private var fd: CInt = -1
    /// False after a failed open or write, until a write succeeds.
    private(set) var ok = true
    /// The last failure, as `cannot write PATH: ...`.
    private(set) var lastError: String?
    private var lastOpenAttemptNanos: UInt64 = 0
    private let log: LogSink
    /// Staged records, back to back, kept between batches: `begin` starts the next record at its
    /// end, the caller appends the record's fields, `stage` keeps it, `writeStaged` writes them all.
    private let batch = ByteBuffer(capacity: 1 << 16)
    /// Where each staged record ends in `batch` (a partial write tells which records made it).
    private var ends: [Int] = []
    /// Where the record being built starts in `batch`.
    private var recordStart = 0
    private let head: EventRecordHead

    init(runID: String, log: LogSink) {
        head = EventRecordHead(runID: runID)
        self.log = log
    }

    deinit { if fd >= 0 { FD.close(fd) } }

    var isEnabled: Bool { path != nil }

    /// The event log's path for a config setting: the configured path, else
    /// `$STATE_DIRECTORY/events.jsonl` (systemd's `StateDirectory=`), else
    /// `$XDG_STATE_HOME/tapgrid/events.jsonl`, else `$HOME/.local/state/tapgrid/events.jsonl`,
    /// else `/var/lib/tapgrid/events.jsonl`; nil when turned off.
    static func resolvePath(_ setting: EventLogSetting, environment env: [String: String]) -> String? {
        switch setting {
        case .off: return nil
        case .path(let p): return p
        case .standard:
            if let state = env["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
                return String(state) + "/events.jsonl"
            }
            if let xdg = env["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/tapgrid/events.jsonl" }
            if let home = env["HOME"], home.hasPrefix("/") { return home + "/.local/state/tapgrid/events.jsonl" }
            return "/var/lib/tapgrid/events.jsonl"
        }
    }

    /// Switches to `newPath` (or off), opening it now. Called at start and after a reload.
    func configure(path newPath: String?) {
        if newPath == path && (fd >= 0 || newPath == nil) { return }
        closeFile()
        path = newPath
        ok = true
        lastError = nil
        if newPath != nil { openFile() }
    }

    /// Closes and re-opens the same path (SIGUSR1, after a log rotator moved the file away).
    func reopen() {
        guard let path else { return }
        closeFile()
        openFile()
        if ok { log.info("event log reopened: \(path)") }
    }

    /// Closes the file at shutdown, after syncing what was written.
    func close() {
        if fd >= 0 { FD.syncData(fd) }
        closeFile()
    }

    private func closeFile() {
        if fd >= 0 { FD.close(fd) }
        fd = -1
    }

    private func openFile() {
        guard let path else { return }
        lastOpenAttemptNanos = Clock.monotonicNanos()
        Files.makeParentDirectories(of: path)
        do throws(SystemError) {
            fd = try Files.openForAppending(path).release()
            if !ok { log.info("event log writable again: \(path)") }
            ok = true
            lastError = nil
        } catch {
            fail(error.description)
        }
    }

    private func fail(_ message: String) {
        if ok || lastError != message { log.error("event log: \(message)") }
        ok = false
        lastError = message
    }

    /// Starts a record with its time and run id after the staged ones; the caller appends the
    /// rest (ending in `}\n`) to the buffer returned, then calls `stage` or `commit`.
    func begin() -> ByteBuffer {
        recordStart = batch.count
        let now = Clock.realtime()
        head.write(seconds: now.seconds, nanoseconds: now.nanoseconds, into: batch)
        return batch
    }

    /// Keeps the record begun by `begin` for the next `writeStaged`.
    @inline(__always)
    func stage() { ends.append(batch.count) }

    /// How many records are staged and not written yet.
    var stagedCount: Int { ends.count }

    /// Whether a record staged now would surely not reach the file: the file is not open and
    /// the next attempt to re-open it is not due yet (so a caller can say `"logged": false` at
    /// once instead of staging).
    var isUnwritable: Bool {
        path != nil && fd < 0 && Clock.monotonicNanos() &- lastOpenAttemptNanos < 1_000_000_000
    }

    /// Writes the record begun by `begin`, with any staged before it, now.
    /// - Returns: whether that record reached the file.
    func commit() -> Bool {
        stage()
        let count = ends.count
        return writeStaged() == count
    }

    /// Writes every staged record with one `write(2)` (more only if the kernel takes part of it)
    /// and empties the batch.
    /// - Returns: how many of the staged records, from the first, reached the file whole: all of
    ///   them unless the write failed (a record cut short by a failing write counts as lost).
    @discardableResult
    func writeStaged() -> Int {
        let count = ends.count
        guard count > 0 else { return 0 }
        defer {
            ends.removeAll(keepingCapacity: true)
            batch.removeAll(shrinkingAbove: 1 << 20)
        }
        guard let path else { return count }
        if fd < 0 {
            guard Clock.monotonicNanos() &- lastOpenAttemptNanos >= 1_000_000_000 else { return 0 }
            openFile()
            if fd < 0 { return 0 }
        }
        let bytes = batch.bytes
        var written = 0
        while written < bytes.count {
            var failure: String?
            do throws(Errno) {
                let outcome = try FD.write(fd, UnsafeRawBufferPointer(rebasing: bytes[written...]))
                if case .transferred(let n) = outcome, n > 0 { written += n } else { failure = "the file takes no more bytes" }
            } catch {
                failure = error.description
            }
            if let failure {
                fail("cannot write " + path + ": " + failure)
                var whole = 0
                while whole < count && ends[whole] <= written { whole += 1 }
                return whole
            }
        }
        if !ok {
            ok = true
            lastError = nil
            log.info("event log writable again: \(path)")
        }
        return count
    }
}
