import TapgridCore
import TapgridSystem
import TapgridSystemd

/// Where the daemon's own messages go: the journal, natively, when stderr is connected to it
/// (`JOURNAL_STREAM` names fd 2), else one line per message on stderr, written whole (with a
/// `<N>` priority prefix when some other systemd log stream takes it).
///
/// When a record cannot be sent to the journal (journald gone: `ENOENT`, `ECONNREFUSED`; its
/// queue full: `EAGAIN`; the send never waits), the daemon says so once on stderr, writes its
/// messages there instead, tries the journal again every `JournalRetry.interval` and says on
/// stderr when the journal takes them again. What journald itself drops under its rate limit
/// is dropped silently on its side: no sender can see it.
///
/// The event log, not this, is the record of taps; this carries `log` handlers' records, child
/// output and exits, warnings and errors, so a tap storm does not run into journald's rate limit
/// unless `log` handlers ask for it.
final class LogSink {
    enum Level: Int { case error = 3, warning = 4, notice = 5, info = 6, debug = 7 }

    /// What a message is about: its journal `MESSAGE_ID`, so `journalctl MESSAGE_ID=...` finds
    /// every record of one kind. (Random 128-bit IDs, made once for tapgrid; never change them.)
    enum Kind {
        case general, tap, childExit, childOutput, reload

        var messageID: StaticString {
            switch self {
            case .general: return "4d546de4df0e4225b0e6ea9c70ff2b52"
            case .tap: return "16e8ab1a9e274ced8796491c97be08b7"
            case .childExit: return "174bef0c6f954d0a95fa70f0e9c67101"
            case .childOutput: return "797c9ecce87243f1a0bd3c232ae29dd0"
            case .reload: return "118636b6085749638ee41cae3af560f5"
            }
        }
    }

    let verbose: Bool
    /// Writing natively to the journal (else to stderr).
    let journal: Bool
    /// Writing `<N>` priority prefixes on stderr lines (stderr goes to some systemd log stream).
    let priorityPrefixes: Bool
    /// A line being built for `write(_:_:)` (the loop thread's only).
    private let line = ByteBuffer(capacity: 256)
    /// Finished stderr lines held back to go out with one `write(2)` after the replies of a loop
    /// wakeup (`log` handlers' records: a pipelining client's taps would otherwise cost a `write`
    /// each). Any other stderr message writes them first, so lines keep their order.
    private let held = ByteBuffer(capacity: 4096)
    /// The native journal connection (used only when `journal`).
    private let journalSocket: JournalSocket
    /// Whether the journal is in use now, or failed and when to try it again.
    private var journalRetry = JournalRetry()

    init(verbose: Bool, journal: Bool, priorityPrefixes: Bool, journalSocket: JournalSocket = JournalSocket()) {
        self.verbose = verbose
        self.journal = journal
        self.priorityPrefixes = priorityPrefixes
        self.journalSocket = journalSocket
    }

    func error(_ message: String) { write(.error, message) }
    func warning(_ message: String) { write(.warning, message) }
    func info(_ message: String, kind: Kind = .general) { write(.info, message, kind: kind) }
    func debug(_ message: @autoclosure () -> String) { if verbose { write(.debug, message()) } }

    func write(_ level: Level, _ message: String, kind: Kind = .general, file: StaticString = #fileID,
               lineNumber: UInt = #line, function: StaticString = #function) {
        if journal {
            send(JournalEntry(message: message, priority: Self.priority(level), messageID: kind.messageID,
                              file: file, line: lineNumber, function: function), orWrite: level, message)
            return
        }
        writeLine(level, message)
    }

    /// A structured record: the journal gets `fields` beside the message; stderr only the message.
    func record(_ level: Level, _ message: String, kind: Kind, file: StaticString = #fileID, lineNumber: UInt = #line,
                function: StaticString = #function, fields: (inout JournalEntry) -> Void) {
        guard journal else {
            writeLine(level, message)
            return
        }
        var entry = JournalEntry(message: message, priority: Self.priority(level), messageID: kind.messageID,
                                 file: file, line: lineNumber, function: function)
        fields(&entry)
        send(entry, orWrite: level, message)
    }

    /// To the journal when it is in use (or due to be tried again), else on stderr.
    private func send(_ entry: JournalEntry, orWrite level: Level, _ message: String) {
        let now = Clock.monotonicNanos()
        if journalRetry.shouldTry(now: now) {
            do throws(SystemdError) {
                try journalSocket.send(entry)
                if journalRetry.succeeded() { writeLine(.info, "the journal takes messages again; logging to it") }
                return
            } catch {
                if journalRetry.failed(now: now) {
                    writeLine(.warning, "cannot log to the journal: \(error); writing messages to stderr until it takes them again (tried every \(JournalRetry.interval.components.seconds) s)")
                }
            }
        }
        // The message still goes out, on stderr.
        writeLine(level, message)
    }

    private func writeLine(_ level: Level, _ message: String) {
        writeHeld()
        line.removeAll(shrinkingAbove: 1 << 16)
        appendPrefix(level, to: line)
        var message = message
        message.withUTF8 { line.append($0) }
        line.append(0x0A)
        Stderr.write(line.bytes)
    }

    private static func priority(_ level: Level) -> JournalPriority { JournalPriority(rawValue: UInt8(level.rawValue)) ?? .info }

    /// Writes the prefix of a stderr line built by the caller in its own buffer (no String per tap).
    func appendPrefix(_ level: Level, to line: ByteBuffer) {
        if priorityPrefixes {
            line.append(0x3C)
            line.append(0x30 + UInt8(level.rawValue))
            line.append(0x3E)
        }
        line.append("tapgridd: ")
        if level == .error { line.append("error: ") }
        if level == .warning { line.append("warning: ") }
    }

    /// Starts a stderr line that is held until `writeHeld` (no `String` per tap): appends the
    /// prefix for `level` and lends `body` the buffer, to which it appends the text and `\n`
    /// (lent, not returned: a returned reference cost a retain and a release per `log` tap).
    @inline(__always)
    func withHeldLine(_ level: Level, _ body: (ByteBuffer) -> Void) {
        if held.count >= 1 << 16 { writeHeld() }  // keeps the buffer small under heavy pipelining
        appendPrefix(level, to: held)
        body(held)
    }

    /// Writes the held lines, if any, with one `write(2)`.
    func writeHeld() {
        guard !held.isEmpty else { return }
        Stderr.write(held.bytes)
        held.removeAll(shrinkingAbove: 1 << 18)
    }
}

/// When to try the journal again after a record could not be sent: a pure decision on given
/// times (`CLOCK_MONOTONIC` nanoseconds), so a journald that is gone costs one failed `sendmsg`
/// per `interval`, not one per message, and its outage is reported once.
struct JournalRetry {
    static let interval: Duration = .seconds(30)
    private static let intervalNanos = UInt64(interval.components.seconds) * 1_000_000_000

    /// When the last send failed; nil while the journal takes records.
    private(set) var failedAt: UInt64?

    /// Whether a record at `now` goes to the journal: always while it works, else once
    /// `interval` has passed since it last failed.
    func shouldTry(now: UInt64) -> Bool {
        guard let failedAt else { return true }
        return now &- failedAt >= Self.intervalNanos
    }

    /// A send failed at `now`. Returns true when the journal was in use until now (say so).
    mutating func failed(now: UInt64) -> Bool {
        defer { failedAt = now }
        return failedAt == nil
    }

    /// A send worked. Returns true when the journal had failed (say it is back).
    mutating func succeeded() -> Bool {
        defer { failedAt = nil }
        return failedAt != nil
    }
}
