import TapgridCore
import TapgridSystem

/// The JSON Lines event log as an append-only sink: one record per tap, contact event, cell state
/// change and finished child (the fields are `TapRecord`'s, `TouchRecord`'s, `StateRecord`'s and
/// `ChildExitRecord`'s to write).
///
/// Every record is built back to back in one reusable buffer and *staged*, together with where in
/// its reply (if it has one) `"logged": false` would go, and written with a single `write(2)`
/// on an `O_APPEND` descriptor: before any reply is sent (`TapOutput.writeStagedRecords`) and at the end
/// of every loop wakeup. So a pipelining client, or
/// several clients served in one wakeup, cost one `write(2)` for all their taps, and a client
/// still never sees a reply whose record is not in the file: when the write fails, or the kernel
/// takes only part of it, the replies of exactly the records that did not reach the file get
/// `"logged": false` before anything of them is sent. A record is never split by a concurrent
/// rotation (one `write` on `O_APPEND`) and costs no allocation once the buffers have grown. A
/// failed write does not stop the daemon: the error is remembered (shown by `status`, reported
/// once on stderr) and the next write tries again (re-opening the file at most once a second if
/// it is not open).
final class EventLog {
    /// Where records go; nil when the log is off (`"eventLog": false`).
    private(set) var path: String?
    /// The open file; nil while the log is off or could not be opened.
    @exclusivity(unchecked) private var file: OwnedFD?
    private var fd: CInt { file?.rawValue ?? -1 }
    /// False after a failed open or write, until a write succeeds.
    private(set) var ok = true
    /// The last failure, as `cannot write PATH: ...`.
    private(set) var lastError: String?
    private var lastOpenAttemptNanos: UInt64 = 0
    private let log: LogSink
    /// Staged records, back to back, kept between batches: `begin` starts the next record at its
    /// end, the caller appends the record's fields, `stage` keeps it, `writeStaged` writes them all.
    private let batch = ByteBuffer(capacity: 1 << 16)
    /// Per staged record: where it ends in `batch` (a partial write tells which records made it)
    /// and where `,"logged":false` goes in its reply (-1: no reply). Unchecked: loop-owned, never
    /// accessed re-entrantly (a checked access costs a runtime call per tap).
    @exclusivity(unchecked) private var ends: [Int] = []
    @exclusivity(unchecked) private var notLoggedMarks: [Int] = []
    /// The outputs the staged replies are in: each from the index of the first record whose reply
    /// it holds (one per connection served in the batch).
    @exclusivity(unchecked) private var outputs: [(output: ByteBuffer, from: Int)] = []
    /// The last of `outputs`, compared per tap without touching the array.
    private var lastOutput: ObjectIdentifier?
    private let head: EventRecordHead

    /// The time records are stamped with (one read per batch of requests).
    let clock: RequestClock

    init(runID: String, log: LogSink, clock: RequestClock = RequestClock()) {
        head = EventRecordHead(runID: runID)
        self.log = log
        self.clock = clock
    }

    /// An event log dropped open skipped `close()`: staged records unwritten, the file not synced.
    deinit {
        if file != nil { DescriptorAudit.droppedOpen("the event log \(path ?? "")") }
    }

    /// Records are kept (for the fleet) although no file is written: `"eventLog": false` with
    /// `mqtt` in the config. Each written record goes to the sink, without its `\n`.
    var memorySink: ((ArraySlice<UInt8>) -> Void)?

    /// Batches written (or handed to the memory sink) so far: the fleet's feed reads the file
    /// again only when this moved.
    private(set) var writes: UInt64 = 0

    var isEnabled: Bool { path != nil || memorySink != nil }

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
        writeStaged()  // records of taps decided before the switch go to the file they were meant for
        closeFile()
        path = newPath
        ok = true
        lastError = nil
        if newPath != nil { openFile() }
    }

    /// Closes and re-opens the same path (SIGUSR1, after a log rotator moved the file away).
    func reopen() {
        guard let path else { return }
        writeStaged()
        closeFile()
        openFile()
        if ok { log.info("event log reopened: \(path)") }
    }

    /// Closes the file at shutdown, after writing what is staged and syncing.
    func close() {
        writeStaged()
        if fd >= 0 { FD.syncData(fd) }
        closeFile()
    }

    private func closeFile() { file = nil }

    private func openFile() {
        guard let path else { return }
        lastOpenAttemptNanos = Clock.monotonicNanos()
        Files.makeParentDirectories(of: path)
        do throws(SystemError) {
            file = try Files.openForAppending(path)
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

    /// How often the daemon checks that the path still names the open file (docs/event-log-and-replay.md
    /// "Event log": a log renamed or deleted under the daemon is noticed within a second).
    static let movedCheckNanos: UInt64 = 1_000_000_000

    /// Starts a record with its time and run id after the staged ones; the caller appends the
    /// rest (ending in `}\n`) to the buffer returned, then calls `stage`.
    func begin() -> ByteBuffer {
        writeHead()
        return batch
    }

    /// `begin` for the tap path: `body` appends the rest of the record to the batch, borrowed
    /// rather than returned (the returned reference cost a retain and a release per tap).
    @inline(__always)
    func withRecord(_ body: (ByteBuffer) -> Void) {
        writeHead()
        body(batch)
    }

    /// A record's time and run id, after the staged records.
    @inline(__always)
    private func writeHead() {
        let now = clock.realtime
        head.write(seconds: now.seconds, nanoseconds: now.nanoseconds, into: batch)
    }

    /// Keeps the record begun by `begin` for the next `writeStaged`, with where in `output` its
    /// reply's `,"logged":false` goes should the record not reach the file (before the reply
    /// object's closing `}`; the reply stays unsent until then).
    @inline(__always)
    func stage(notLoggedAt mark: Int, in output: ByteBuffer) {
        if ObjectIdentifier(output) != lastOutput {
            outputs.append((output, ends.count))
            lastOutput = ObjectIdentifier(output)
        }
        ends.append(batch.count)
        notLoggedMarks.append(mark)
        // A wakeup of heavy pipelining stages thousands: written in pieces, the buffer stays small
        // (memory does not grow with the load) and a `write` still carries about 1,000 records.
        if batch.count >= Self.batchLimit { writeStaged() }
    }

    /// Staged bytes past which `stage` writes them at once (before any of their replies is sent,
    /// like every write).
    static let batchLimit = 1 << 18

    /// How many records are staged and not written yet.
    var stagedCount: Int { ends.count }

    /// Whether a record staged now would surely not reach the file: the file is not open and
    /// the next attempt to re-open it is not due yet (so a caller can say `"logged": false` at
    /// once instead of staging).
    var isUnwritable: Bool {
        path != nil && fd < 0 && Clock.monotonicNanos() &- lastOpenAttemptNanos < 1_000_000_000
    }

    /// Keeps the record begun by `begin`, which no reply waits for, for the next `writeStaged`.
    func stage() {
        ends.append(batch.count)
        notLoggedMarks.append(-1)
        if batch.count >= Self.batchLimit { writeStaged() }
    }

    /// Writes every staged record with one `write(2)` (more only if the kernel takes part of it),
    /// marks the replies of those that did not reach the file `"logged": false`, and empties the
    /// batch.
    /// - Returns: how many of the staged records, from the first, reached the file whole: all of
    ///   them unless the write failed (a record cut short by a failing write counts as lost).
    @discardableResult
    func writeStaged() -> Int {
        let count = ends.count
        guard count > 0 else { return 0 }
        let written = writeBatch()
        if written < count { markNotLogged(from: written) }
        ends.removeAllKeepingCapacity()
        notLoggedMarks.removeAllKeepingCapacity()
        outputs.removeAllKeepingCapacity()
        lastOutput = nil
        batch.removeAll(shrinkingAbove: Self.batchLimit * 2)
        return written
    }

    /// The `write(2)` of `writeStaged`: how many staged records reached the file whole.
    private func writeBatch() -> Int {
        let count = ends.count
        writes &+= 1
        guard let path else {
            if let memorySink {
                let bytes = Array(batch.bytes)
                var start = 0
                for end in ends {
                    memorySink(bytes[start..<end - 1])
                    start = end
                }
            }
            return count
        }
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
                var whole = 0
                while whole < count && ends[whole] <= written { whole += 1 }
                // The file must end in a whole record: take back the part of the one cut short.
                takeBack(written - (whole > 0 ? ends[whole - 1] : 0))
                fail("cannot write " + path + ": " + failure)
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

    /// Adds `,"logged":false` to the replies of the staged records from `first` on (none of them
    /// sent yet: the socket server writes the records before it sends). Rebuilds each output
    /// concerned once; only a failing event log pays for it.
    private func markNotLogged(from first: Int) {
        for (k, segment) in outputs.enumerated() {
            let end = k + 1 < outputs.count ? outputs[k + 1].from : ends.count
            let marks = notLoggedMarks[max(segment.from, first)..<end].filter { $0 >= 0 }
            guard !marks.isEmpty else { continue }
            let out = segment.output
            let old = Array(out.bytes)
            out.removeAll()
            var from = 0
            for mark in marks {
                old[from..<mark].withUnsafeBytes { out.append($0) }
                ReplyWriter.notLogged(into: out)
                from = mark
            }
            old[from...].withUnsafeBytes { out.append($0) }
        }
    }
}
