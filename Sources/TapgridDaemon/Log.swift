@preconcurrency import Glibc

/// Line-oriented logging to stderr, one `write(2)` per line so lines from the loop never interleave.
///
/// Under systemd (`JOURNAL_STREAM` set) each line starts with a syslog priority prefix (`<3>`...`<7>`)
/// that the journal turns into the record's priority (`SyslogLevelPrefix=`, on by default).
struct Log {
    enum Level: Int { case error = 3, warning = 4, notice = 5, info = 6, debug = 7 }

    let verbose: Bool
    let journal: Bool

    func error(_ message: String) { write(.error, message) }
    func warning(_ message: String) { write(.warning, message) }
    func info(_ message: String) { write(.info, message) }
    func debug(_ message: @autoclosure () -> String) { if verbose { write(.debug, message()) } }

    func write(_ level: Level, _ message: String) {
        let line = ByteBuffer(capacity: message.utf8.count + 24)
        appendPrefix(level, to: line)
        var message = message
        message.withUTF8 { line.append($0) }
        line.append(0x0A)
        Log.writeStderr(line.bytes)
    }

    /// Writes the prefix of a line built by the caller in its own buffer (hot path: no String).
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

    /// Writes finished text (ending in `\n`) to fd 2.
    static func writeStderr(_ text: String) {
        var text = text
        text.withUTF8 { writeStderr(UnsafeRawBufferPointer($0)) }
    }

    /// Writes a finished line (with its `\n`) to fd 2, retrying short writes and `EINTR`.
    static func writeStderr(_ raw: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < raw.count {
            let n = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
