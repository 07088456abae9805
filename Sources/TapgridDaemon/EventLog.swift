@preconcurrency import Glibc
import TapgridCore
import TapgridSystem

/// The JSON Lines event log: one record per tap, one per finished child.
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
    private let log: Log
    /// The record buffer, kept between records so it is allocated once: `begin` hands it out,
    /// the caller appends the record's fields, `commit` writes it.
    private let record = ByteBuffer(capacity: 1024)
    /// `Z","run":"<run id>",`: what follows the milliseconds in every record, escaped once.
    private let timeTail: [UInt8]
    private var cachedSecond: Int = -1
    /// `{"time":"YYYY-MM-DDTHH:MM:SS.` of `cachedSecond`: a record starts with one copy of it.
    private let cachedHead = ByteBuffer(capacity: 40)

    init(runID: String, log: Log) {
        var tail = Array(#"Z","run":"#.utf8)
        JSONWriter.appendString(runID, to: &tail)
        tail.append(0x2C)
        self.timeTail = tail
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
        guard path != nil else { return }
        closeFile()
        openFile()
        if ok { log.info("event log reopened: \(path!)") }
    }

    /// Closes the file at shutdown, after syncing what was written.
    func close() {
        if fd >= 0 { _ = fdatasync(fd) }
        closeFile()
    }

    private func closeFile() {
        if fd >= 0 { FD.close(fd) }
        fd = -1
    }

    private func openFile() {
        guard let path else { return }
        lastOpenAttemptNanos = Clock.monotonicNanos()
        Self.makeParentDirectories(of: path)
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

    /// Creates missing parent folders (mode 0750), like `mkdir -p`; errors surface at open.
    static func makeParentDirectories(of path: String) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard !parts.isEmpty else { return }
        var current = path.hasPrefix("/") ? "" : "."
        if path.hasPrefix("/") { parts = parts.dropFirst() }
        for part in parts where !part.isEmpty {
            current += "/" + part
            if !Files.isDirectory(current) { _ = mkdir(current, 0o750) }
        }
    }

    /// Starts a record: `{"time":"...","run":"...",`; the caller appends the rest to the buffer
    /// returned, then calls `commit`.
    func begin() -> ByteBuffer {
        record.removeAll()
        appendTime(to: record)
        record.append(timeTail)
        return record
    }

    /// Ends the record begun by `begin` (`}` and `\n`) and writes it.
    /// - Returns: whether the whole record reached the file.
    func commit() -> Bool {
        record.append(0x7D)
        record.append(0x0A)
        guard let path else { return true }
        if fd < 0 {
            guard Clock.monotonicNanos() &- lastOpenAttemptNanos >= 1_000_000_000 else { return false }
            openFile()
            if fd < 0 { return false }
        }
        let raw = record.bytes
        var offset = 0
        while offset < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            fail("cannot write " + path + ": " + (n < 0 ? Errno.current.description : "short write"))
            return false
        }
        if !ok {
            ok = true
            lastError = nil
            log.info("event log writable again: \(path)")
        }
        return true
    }

    /// Appends `{"time":"YYYY-MM-DDTHH:MM:SS.mmm` (UTC); the part up to the second is cached
    /// (`Z` and the rest come from `timeTail`).
    private func appendTime(to record: ByteBuffer) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let second = Int(ts.tv_sec)
        if second != cachedSecond {
            cachedSecond = second
            var t = ts.tv_sec
            var parts = tm()
            gmtime_r(&t, &parts)
            cachedHead.removeAll()
            cachedHead.append(#"{"time":""#)
            Self.digits(Int(parts.tm_year) + 1900, 4, cachedHead)
            cachedHead.append(0x2D)
            Self.digits(Int(parts.tm_mon) + 1, 2, cachedHead)
            cachedHead.append(0x2D)
            Self.digits(Int(parts.tm_mday), 2, cachedHead)
            cachedHead.append(0x54)
            Self.digits(Int(parts.tm_hour), 2, cachedHead)
            cachedHead.append(0x3A)
            Self.digits(Int(parts.tm_min), 2, cachedHead)
            cachedHead.append(0x3A)
            Self.digits(Int(parts.tm_sec), 2, cachedHead)
            cachedHead.append(0x2E)
        }
        record.append(cachedHead.bytes)
        // The milliseconds without `digits`' loop of divisions.
        let ms = Int(ts.tv_nsec / 1_000_000)
        let tens = ms % 100
        record.append(0x30 + UInt8(truncatingIfNeeded: ms / 100))
        record.append(0x30 + UInt8(truncatingIfNeeded: tens / 10))
        record.append(0x30 + UInt8(truncatingIfNeeded: tens % 10))
    }

    private static func digits(_ value: Int, _ width: Int, _ out: ByteBuffer) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var v = value
        while divisor > 0 {
            out.append(0x30 + UInt8((v / divisor) % 10))
            v %= divisor
            divisor /= 10
        }
    }
}
