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
        var line: [UInt8] = []
        line.reserveCapacity(message.utf8.count + 24)
        appendPrefix(level, to: &line)
        line.append(contentsOf: message.utf8)
        line.append(0x0A)
        Log.writeStderr(line)
    }

    /// Writes the prefix of a line built by the caller in its own buffer (hot path: no String).
    func appendPrefix(_ level: Level, to line: inout [UInt8]) {
        if journal {
            line.append(0x3C)
            line.append(0x30 + UInt8(level.rawValue))
            line.append(0x3E)
        }
        line.append(contentsOf: "tapgridd: ".utf8)
        if level == .error { line.append(contentsOf: "error: ".utf8) }
        if level == .warning { line.append(contentsOf: "warning: ".utf8) }
    }

    /// Writes a finished line (with its `\n`) to fd 2, retrying short writes and `EINTR`.
    static func writeStderr(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
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
}
