import Foundation
@preconcurrency import Glibc
import Synchronization
import Testing

import TapgridSystem
import TapgridTestSupport
@testable import TapgridSystemd

extension SystemdTests {
    @Suite struct JournalTests {
        @Test func entryFieldsInOrder() {
            var entry = JournalEntry(
                message: "tap 7 home 0/1 -> audit: dispatched", priority: .info, messageID: "5a2f0e3c9d8b4f41a6c7e1d2b3a49586",
                file: "TapgridDaemon/Daemon+Tap.swift", line: 42, function: "dispatch(_:)")
            entry.append("TAPGRID_SEQ", 7)
            entry.append("TAPGRID_LAYOUT", "home")
            entry.append("TAPGRID_EXIT_STATUS", -1)
            entry.append("TAPGRID_DURATION_MS", UInt64.max)
            entry.append("TAPGRID_TAG", 0)
            entry.append("TAPGRID_RAW", bytes: [0x61, 0x0A, 0x62])
            #expect(
                entry.fields == [
                    "MESSAGE=tap 7 home 0/1 -> audit: dispatched", "PRIORITY=6", "MESSAGE_ID=5a2f0e3c9d8b4f41a6c7e1d2b3a49586",
                    "CODE_FILE=TapgridDaemon/Daemon+Tap.swift", "CODE_LINE=42", "CODE_FUNC=dispatch(_:)",
                    "TAPGRID_SEQ=7", "TAPGRID_LAYOUT=home", "TAPGRID_EXIT_STATUS=-1", "TAPGRID_DURATION_MS=18446744073709551615",
                    "TAPGRID_TAG=0", "TAPGRID_RAW=a\nb",
                ])
            #expect(entry.count == 12)
            entry.removeAll()
            #expect(entry.fields == [] && entry.bytes.isEmpty)
            entry.append("MESSAGE", "again")
            #expect(entry.fields == ["MESSAGE=again"])
        }

        @Test func callerLocationByDefault() {
            let entry = JournalEntry(message: "m", priority: .warning)
            #expect(entry.fields == ["MESSAGE=m", "PRIORITY=4", "CODE_FILE=TapgridSystemdTests/JournalTests.swift", "CODE_LINE=\(#line - 1)", "CODE_FUNC=callerLocationByDefault()"])
        }

        @Test func fieldNames() {
            for good: StaticString in ["MESSAGE", "TAPGRID_SEQ", "A", "X_1", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ01"] {
                #expect(JournalEntry.isValidFieldName(good), "\(good)")
            }
            for bad: StaticString in ["", "_PID", "1ST", "message", "TAPGRID-SEQ", "TAP GRID", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ012"] {
                #expect(!JournalEntry.isValidFieldName(bad), "\(bad)")
            }
        }

        @Test func priorities() {
            #expect(JournalPriority.allCases.map(\.stderrPrefix) == ["<0>", "<1>", "<2>", "<3>", "<4>", "<5>", "<6>", "<7>"])
        }

        @Test func journalStreamDetection() throws {
            #expect(Journal.streamMatches("2049:131077", device: 2049, inode: 131077))
            #expect(!Journal.streamMatches("2049:131077", device: 2049, inode: 131078))
            #expect(!Journal.streamMatches("2050:131077", device: 2049, inode: 131077))
            #expect(!Journal.streamMatches(nil, device: 2049, inode: 131077))
            for malformed in ["", ":", "2049", "2049:", ":131077", "2049:131077:1", "x:131077", "2049:-1"] {
                #expect(!Journal.streamMatches(malformed, device: 2049, inode: 131077), "\(malformed)")
            }
            var st = stat()
            try #require(fstat(2, &st) == 0)
            try withEnvironment(["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino)"]) {
                #expect(Journal.standardErrorIsJournal())
            }
            try withEnvironment(["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino + 1)"]) {
                #expect(!Journal.standardErrorIsJournal())
            }
            try withEnvironment(["JOURNAL_STREAM": nil]) {
                #expect(!Journal.standardErrorIsJournal())
            }
        }

        @Test func anEmptyEntryIsNotSent() {
            let error = #expect(throws: SystemdError.self) { try Journal.send(JournalEntry()) }
            #expect(error?.description == "sd_journal_sendv: empty journal entry")
        }

        /// What libsystemd puts on the wire, read from a fake `/run/systemd/journal/socket`
        /// without journald: on a thread of its own that moves into a private mount namespace
        /// (so only that thread sees the tmpfs over `/run`) and ends with it.
        @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs over /run in a private mount namespace"))
        func sentEntryReachesTheJournalSocketExactly() throws {
            var entry = JournalEntry(message: "first line\nsecond line", priority: .notice, messageID: "5a2f0e3c9d8b4f41a6c7e1d2b3a49586",
                file: "F.swift", line: 9, function: "f()")
            entry.append("TAPGRID_SEQ", 12)
            entry.append("TAPGRID_LAYOUT", "home")
            let sendable = entry
            let outcome = Mutex<Result<[[UInt8]], TestFailure>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread {
                outcome.withLock { $0 = captureJournalDatagram(sendable) }
                done.signal()
            }.start()
            done.wait()
            let datagrams = try #require(try outcome.withLock { $0 }?.get())

            func field(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }
            var expected: [UInt8] = Array("MESSAGE\n".utf8)
            withUnsafeBytes(of: UInt64(22).littleEndian) { expected += $0 }  // a value with a line break is length-prefixed
            expected += Array("first line\nsecond line\n".utf8)
            expected += field("PRIORITY=5") + field("MESSAGE_ID=5a2f0e3c9d8b4f41a6c7e1d2b3a49586")
            expected += field("CODE_FILE=F.swift") + field("CODE_LINE=9") + field("CODE_FUNC=f()")
            expected += field("TAPGRID_SEQ=12") + field("TAPGRID_LAYOUT=home")
            expected += field("SYSLOG_IDENTIFIER=" + programShortName())  // added by libsystemd
            // libsystemd's sd_journal_sendv, then our own JournalSocket: the same bytes.
            #expect(datagrams.count == 2)
            for datagram in datagrams {
                #expect(datagram == expected, "got \(String(decoding: datagram, as: UTF8.self).debugDescription)")
            }
        }

        /// `JournalSocket` never waits and hides no failure (sd_journal_sendv would block on a
        /// full queue and report a missing socket as success): a socket at a path of our own.
        @Test func journalSocketReportsEveryFailureAtOnce() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/socket"
                let journal = JournalSocket(path: path)
                let entry = JournalEntry(message: "m", priority: .info, file: "F.swift", line: 1, function: "f()")
                let missing = #expect(throws: SystemdError.self) { try journal.send(entry) }
                #expect(missing?.description == "sendmsg: \(path): No such file or directory (errno 2)")

                do {
                let receiver = try unixSocket(SOCK_DGRAM, boundTo: path)
                try journal.send(entry)
                let datagram = try #require(receiveDatagram(receiver.rawValue))
                #expect(String(decoding: datagram, as: UTF8.self)
                    == "MESSAGE=m\nPRIORITY=6\nCODE_FILE=F.swift\nCODE_LINE=1\nCODE_FUNC=f()\nSYSLOG_IDENTIFIER=\(programShortName())\n")

                // Nobody reads: once the receiver's queue is full, EAGAIN at once.
                var sent = 0
                var full: SystemdError?
                let started = Clock.monotonicNanos()
                while sent < 100_000 && full == nil {
                    do throws(SystemdError) { try journal.send(entry); sent += 1 } catch { full = error }
                }
                #expect(full?.description == "sendmsg: \(path): Resource temporarily unavailable (errno 11)", "after \(sent) records")
                #expect(Clock.monotonicNanos() - started < 5_000_000_000)
                }

                // journald died and left its socket file behind.
                let refused = #expect(throws: SystemdError.self) { try journal.send(entry) }
                #expect(refused?.description == "sendmsg: \(path): Connection refused (errno 111)")
            }
        }
    }
}

/// `basename(argv[0])`, which libsystemd sends as `SYSLOG_IDENTIFIER`.
func programShortName() -> String {
    guard let file = fopen("/proc/self/cmdline", "r") else { return "" }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    while case let c = fgetc(file), c != EOF, c != 0 { bytes.append(UInt8(c)) }
    return String(decoding: bytes.split(separator: UInt8(ascii: "/")).last ?? [], as: UTF8.self)
}

/// Runs on a thread of its own: unshares the mount namespace (this thread only), makes every
/// mount private so nothing propagates to the host, mounts a tmpfs over `/run`, binds a datagram
/// socket at `/run/systemd/journal/socket`, sends `entry` with `sd_journal_sendv` and with
/// `JournalSocket` and returns what arrived of each. The
/// namespace and its tmpfs go away when the thread ends.
func captureJournalDatagram(_ entry: JournalEntry) -> Result<[[UInt8]], TestFailure> {
    // unshare(2) needs _GNU_SOURCE, which Swift's Glibc is built without: look it up instead.
    typealias Unshare = @convention(c) (CInt) -> CInt
    guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "unshare") else {
        return .failure(TestFailure("dlsym(unshare) failed"))
    }
    let unshare = unsafeBitCast(symbol, to: Unshare.self)
    let cloneNewNS: CInt = 0x0002_0000
    guard unshare(cloneNewNS) == 0 else { return .failure(TestFailure("unshare(CLONE_NEWNS): \(Errno.current)")) }
    guard mount(nil, "/", nil, UInt(MS_REC | MS_PRIVATE), nil) == 0 else {
        return .failure(TestFailure("making / private: \(Errno.current)"))
    }
    guard mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == 0 else {
        return .failure(TestFailure("mount tmpfs /run: \(Errno.current)"))
    }
    guard mkdir("/run/systemd", 0o755) == 0, mkdir("/run/systemd/journal", 0o755) == 0 else {
        return .failure(TestFailure("mkdir /run/systemd/journal: \(Errno.current)"))
    }
    let receiver: OwnedFD
    do { receiver = try unixSocket(SOCK_DGRAM, boundTo: "/run/systemd/journal/socket") } catch {
        return .failure(TestFailure("binding the fake journal socket: \(error)"))
    }
    var datagrams: [[UInt8]] = []
    let ours = JournalSocket()
    for libsystemd in [true, false] {
        do throws(SystemdError) {
            if libsystemd { try Journal.send(entry) } else { try ours.send(entry) }
        } catch { return .failure(TestFailure("\(error)")) }
        guard let datagram = receiveDatagram(receiver.rawValue) else {
            return .failure(TestFailure("no datagram on the fake journal socket"))
        }
        datagrams.append(datagram)
    }
    return .success(datagrams)
}
