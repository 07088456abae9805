import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// The daemon logging natively to a journal that goes away or stops reading: a fake
/// `/run/systemd/journal/socket` (a datagram socket of the test's, bind-mounted there in the
/// daemon's own mount namespace: `unshare --mount`, root only) and `JOURNAL_STREAM` naming its
/// stderr file, so it believes stderr is the journal.
extension EndToEnd {
    @Suite(.enabled(if: geteuid() == 0 && access("/usr/bin/unshare", X_OK) == 0, "needs root and unshare for a private mount namespace"))
    struct JournalFallbackTests {
        /// The daemon's `log` handler records (`tap seq=N ...`) among stderr lines.
        static func tapLines(_ stderr: String) -> [String] {
            stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("<6>tapgridd: tap seq=") }
        }

        /// The `MESSAGE=tap seq=...` records among the datagrams waiting on `fd`.
        static func journalTapRecords(_ fd: CInt) -> Int {
            var count = 0
            while let datagram = receiveDatagram(fd, timeoutMs: 0) {
                if String(decoding: datagram, as: UTF8.self).contains("MESSAGE=tap seq=") { count += 1 }
            }
            return count
        }

        /// journald's socket is deleted mid-run: every tap is still answered, the daemon says so
        /// once on stderr, and the `log` handler's records from then on are stderr lines.
        @Test func journalSocketDeletedMidRun() throws {
            let journal = try FakeJournal()
            let daemon = try journal.daemon()
            let connection = try daemon.connect()
            for _ in 1...5 {
                #expect(try connection.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            }
            #expect(Self.journalTapRecords(journal.receiver) == 5)
            #expect(Self.tapLines(daemon.stderr) == [])

            unlink(journal.socketPath)
            for _ in 6...205 {
                #expect(try connection.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            }
            let lines = daemon.stderr.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0.contains("journal") } == [
                "<4>tapgridd: warning: cannot log to the journal: sendmsg: /run/systemd/journal/socket: No such file or directory (errno 2); writing messages to stderr until it takes them again (tried every 30 s)",
            ])
            let taps = Self.tapLines(daemon.stderr)
            #expect(taps.count == 200)
            #expect(taps.first?.hasPrefix("<6>tapgridd: tap seq=6 ") == true, "\(taps.first ?? "none")")
            #expect(taps.last?.hasPrefix("<6>tapgridd: tap seq=205 ") == true, "\(taps.last ?? "none")")
            #expect(try daemon.stop() == 0)
        }

        /// journald does not keep up (its queue is full: the fake never reads): the daemon does
        /// not wait for it. Every tap is answered, the outage is said once, and each `log` record
        /// is either in the journal's queue or on stderr.
        @Test func journalThatStopsReadingNeverStallsTaps() throws {
            let journal = try FakeJournal()
            let daemon = try journal.daemon()
            let connection = try daemon.connect()
            let started = Date()
            for _ in 1...2000 {
                #expect(try connection.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            }
            #expect(Date().timeIntervalSince(started) < 60)
            let lines = daemon.stderr.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0.contains("journal") } == [
                "<4>tapgridd: warning: cannot log to the journal: sendmsg: /run/systemd/journal/socket: Resource temporarily unavailable (errno 11); writing messages to stderr until it takes them again (tried every 30 s)",
            ])
            let inJournal = Self.journalTapRecords(journal.receiver)
            let onStderr = Self.tapLines(daemon.stderr).count
            #expect(inJournal > 0 && onStderr > 1000)
            #expect(inJournal + onStderr == 2000, "\(inJournal) in the journal, \(onStderr) on stderr")
            #expect(try daemon.stop() == 0)
        }
    }
}

/// A datagram socket standing in for journald's, in a folder of its own.
final class FakeJournal {
    let dir: String
    let socketPath: String
    let receiver: CInt

    init() throws {
        dir = try makeTempDir()
        socketPath = dir + "/socket"
        receiver = try makeUnixSocket(SOCK_DGRAM, boundTo: socketPath)
    }

    deinit {
        close(receiver)
        removeTempDir(dir)
    }

    /// A daemon that takes this socket for journald's: in its own mount namespace, a tmpfs over
    /// `/run` with this folder bind-mounted at `/run/systemd/journal`, and `JOURNAL_STREAM`
    /// naming its stderr.
    func daemon() throws -> DaemonProcess {
        try DaemonProcess(
            environment: ["FAKE_JOURNAL_DIR": dir],
            shellPrefix: #"""
                export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2)
                exec /usr/bin/unshare --mount --propagation private /bin/sh -c 'mount -t tmpfs -o mode=0755 tmpfs /run && mkdir -p /run/systemd/journal && mount --bind "$FAKE_JOURNAL_DIR" /run/systemd/journal && exec "$0" "$@"' "$0" "$@"
                """#)
    }
}
