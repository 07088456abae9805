import TapgridCore
import TapgridSystem

/// The JSON Lines event log as an append-only sink: one record per tap, one per finished child
/// (the fields are `TapRecord`'s and `ChildExitRecord`'s to write).
///
/// Each record is built in one reusable buffer and written with a single `write(2)` on an
/// `O_APPEND` descriptor, so a record is never split by a concurrent rotation and costs no
/// allocation once the buffer has grown. A failed write does not stop the daemon: the error is
/// remembered (shown by `status`, reported once on stderr), the tap's reply says `"logged": false`,
/// and the next record tries again (re-opening the file at most once a second if it is not open).
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
    /// The record buffer, kept between records: `begin` hands it out, the caller appends the
    /// record's fields, `commit` writes it.
    private let record = ByteBuffer(capacity: 1024)
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
            endTornLine()
            if !ok { log.info("event log writable again: \(path)") }
            ok = true
            lastError = nil
        } catch {
            fail(error.description)
        }
    }

    /// Ends a torn last line left by a crash or power loss mid-write with a `\n` of its own, so
    /// the next record starts on a line of its own: the torn line stays the one line readers
    /// report as unreadable, instead of swallowing the first record of this run.
    private func endTornLine() {
        guard let path, !Files.isEmptyOrEnds(path, with: 0x0A) else { return }
        do throws(Errno) { try FD.writeAll(fd, [0x0A] as [UInt8]) } catch { return }
        log.warning("event log \(path): the last line was torn (a crash while writing?); it stays, unreadable, and records go on after it")
    }

    private func fail(_ message: String) {
        if ok || lastError != message { log.error("event log: \(message)") }
        ok = false
        lastError = message
    }

    /// Removes the first `written` bytes of a record whose write failed (a full disk takes part of
    /// a record and refuses the rest), so the file still ends in a whole record and the next one,
    /// once there is space, starts on a line of its own. If even that fails, the file is closed
    /// and re-opened later, and the torn line is the one a reader reports as unreadable.
    private func takeBack(_ written: Int) {
        guard written > 0 else { return }
        do throws(Errno) { try Files.truncateTail(fd, removing: written) } catch {
            log.error("event log: cannot remove the \(written) bytes of a failed record: \(error)")
            closeFile()
        }
    }

    /// Re-opens the file when the path no longer names the file that is open: a rotator renamed or
    /// deleted it without sending SIGUSR1. Called by the daemon every `movedCheckNanos` (one
    /// `stat` and one `fstat`), so records reach a new file at the configured path within that
    /// time; those written meanwhile are in the renamed file.
    func reopenIfMoved() {
        guard let path, fd >= 0 else { return }
        guard Files.identity(following: path) != Files.identity(ofOpen: fd) else { return }
        closeFile()
        openFile()
        if fd >= 0 { log.info("event log \(path) was moved or deleted; writing to a new file there") }
    }

    /// How often the daemon checks that the path still names the open file (README: a rotated
    /// or deleted log is replaced within 5 s).
    static let movedCheckNanos: UInt64 = 1_000_000_000

    /// Starts a record with its time and run id; the caller appends the rest (ending in `}\n`)
    /// to the buffer returned, then calls `commit`.
    func begin() -> ByteBuffer {
        record.removeAll()
        let now = Clock.realtime()
        head.write(seconds: now.seconds, nanoseconds: now.nanoseconds, into: record)
        return record
    }

    /// Writes the record begun by `begin`.
    /// - Returns: whether the whole record reached the file.
    func commit() -> Bool {
        guard let path else { return true }
        if fd < 0 {
            guard Clock.monotonicNanos() &- lastOpenAttemptNanos >= 1_000_000_000 else { return false }
            openFile()
            if fd < 0 { return false }
        }
        if let (error, written) = FD.writeAllReportingPartial(fd, record.bytes) {
            takeBack(written)
            fail("cannot write " + path + ": " + error.description)
            return false
        }
        if !ok {
            ok = true
            lastError = nil
            log.info("event log writable again: \(path)")
        }
        return true
    }
}
