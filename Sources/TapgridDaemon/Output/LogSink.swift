import TapgridCore
import TapgridSystem

/// Where the daemon's own messages go: one line per message on stderr, written whole.
///
/// Under systemd (`JOURNAL_STREAM` set) each line starts with a syslog priority prefix (`<3>`...`<7>`)
/// that the journal turns into the record's priority (`SyslogLevelPrefix=`, on by default).
/// The event log, not this, is the record of taps; this carries `log` handlers' records, child
/// output and exits, warnings and errors.
final class LogSink {
    enum Level: Int { case error = 3, warning = 4, notice = 5, info = 6, debug = 7 }

    let verbose: Bool
    let journal: Bool
    /// A line being built for `write(_:_:)` (the loop thread's only).
    private let line = ByteBuffer(capacity: 256)

    init(verbose: Bool, journal: Bool) {
        self.verbose = verbose
        self.journal = journal
    }

    func error(_ message: String) { write(.error, message) }
    func warning(_ message: String) { write(.warning, message) }
    func info(_ message: String) { write(.info, message) }
    func debug(_ message: @autoclosure () -> String) { if verbose { write(.debug, message()) } }

    func write(_ level: Level, _ message: String) {
        line.removeAll(shrinkingAbove: 1 << 16)
        appendPrefix(level, to: line)
        line.append(jsonFree: message)
        line.append(0x0A)
        Stderr.write(line.bytes)
    }

    /// Writes the prefix of a line built by the caller in its own buffer (no String per tap).
    func appendPrefix(_ level: Level, to line: ByteBuffer) {
        if journal {
            line.append(0x3C)
            line.append(0x30 + UInt8(level.rawValue))
            line.append(0x3E)
        }
        line.append("tapgridd: ")
        if level == .error { line.append("error: ") }
        if level == .warning { line.append("warning: ") }
    }

    /// Writes a line the caller finished (prefix from `appendPrefix`, `\n` at the end).
    func writeLine(_ finished: ByteBuffer) { Stderr.write(finished.bytes) }
}

extension ByteBuffer {
    /// Appends text as it is (no JSON quoting).
    fileprivate func append(jsonFree text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }
}
