import TapgridCore
import TapgridSystem
import TapgridSystemd

/// Where the daemon's own messages go: the journal, natively, when stderr is connected to it
/// (`JOURNAL_STREAM` names fd 2), else one line per message on stderr, written whole (with a
/// `<N>` priority prefix when some other systemd log stream takes it).
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
    private var journalFailed = false

    init(verbose: Bool, journal: Bool, priorityPrefixes: Bool) {
        self.verbose = verbose
        self.journal = journal
        self.priorityPrefixes = priorityPrefixes
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

    private func send(_ entry: JournalEntry, orWrite level: Level, _ message: String) {
        do throws(SystemdError) {
            try Journal.send(entry)
        } catch {
            // journald gone: the message still goes out, on stderr.
            if !journalFailed { writeLine(.warning, "cannot log to the journal: \(error); using stderr") }
            journalFailed = true
            writeLine(level, message)
        }
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
    /// prefix for `level` and returns the buffer, to which the caller appends the text and `\n`.
    func beginHeldLine(_ level: Level) -> ByteBuffer {
        if held.count >= 1 << 16 { writeHeld() }  // keeps the buffer small under heavy pipelining
        appendPrefix(level, to: held)
        return held
    }

    /// Writes the held lines, if any, with one `write(2)`.
    func writeHeld() {
        guard !held.isEmpty else { return }
        Stderr.write(held.bytes)
        held.removeAll(shrinkingAbove: 1 << 18)
    }
}
