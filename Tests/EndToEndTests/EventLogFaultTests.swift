import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// The event log under faults: a full file system (a small tmpfs, so root) and a log renamed or
/// deleted under the daemon without SIGUSR1. In both, every tap answered without
/// `"logged": false` must be readable from the log files afterwards.
extension EndToEnd {
    @Suite struct EventLogFaultTests {
        /// Sends taps on column 0 (`audit`, a log handler) and returns (seq, logged) per reply.
        func taps(_ connection: LineClient, _ count: Int) throws -> [(seq: Int, logged: Bool)] {
            try (0..<count).map { _ in
                let reply = try connection.request(#"{"x": 10, "y": 10}"#)
                guard let seq = reply.int("seq") else { throw TestFailure("no seq in \(reply)") }
                return (seq, reply["logged"] as? Bool ?? true)
            }
        }

        /// The seqs of the tap records in `path`; every line must be a whole JSON object.
        func loggedSeqs(_ path: String) throws -> [Int] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            #expect(text.isEmpty || text.hasSuffix("\n"), "the log must end in a whole record")
            return try text.split(separator: "\n").compactMap { line in
                let record = try parseObject(String(line))
                return record["event"] == nil ? record.int("seq") : nil
            }
        }

        @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
        func fullFileSystemLeavesWholeRecordsAndResumes() throws {
            let mountPoint = try makeTempDir()
            defer { rmdir(mountPoint) }
            guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k,mode=0755") == 0 else {
                throw TestFailure("mount tmpfs: errno \(errno)")
            }
            defer { umount2(mountPoint, Int32(MNT_DETACH)) }
            // A filler that takes half the space, removed later to make room again.
            let filler = mountPoint + "/filler"
            try Data(count: 32 * 1024).write(to: URL(fileURLWithPath: filler))
            let logPath = mountPoint + "/events.jsonl"
            let notifyDir = try makeTempDir()
            let notify = try NotifyListener(dir: notifyDir)
            let daemon = try DaemonProcess(
                config: standardConfig(eventLog: #"{"path": "\#(logPath)"}"#), environment: ["NOTIFY_SOCKET": notify.path])
            daemon.alsoRemove.append(notifyDir)
            let c = try daemon.connect()
            // Fill the rest: ~250-byte records, 32 KiB free.
            var answers = try taps(c, 200)
            while answers.last?.logged != false && answers.count < 2000 { answers += try taps(c, 10) }
            #expect(answers.last?.logged == false, "the disk never filled")
            answers += try taps(c, 30)
            #expect(answers.suffix(30).allSatisfy { !$0.logged }, "while full, every tap says logged: false")
            let status = try c.request(#"{"op": "status"}"#)
            let eventLog = try #require(status.object("eventLog"))
            #expect(eventLog["ok"] as? Bool == false)
            #expect(eventLog.string("error") == "cannot write \(logPath): No space left on device (errno 28)")
            // STATUS= carries it (refreshed every 2 s).
            let systemdStatus = notify.next(matching: { $0.contains("event log:") }, seconds: 6)
            #expect(systemdStatus?.hasSuffix("; event log: cannot write \(logPath): No space left on device (errno 28)") == true)
            // Space returns: logging resumes by itself.
            unlink(filler)
            answers += try taps(c, 20)
            #expect(answers.suffix(20).allSatisfy { $0.logged }, "logging resumes once space returns")
            let after = try c.request(#"{"op": "status"}"#)
            #expect(after.object("eventLog")?["ok"] as? Bool == true)
            try daemon.stop()
            // Said once, not once per tap; and once that it works again.
            let stderr = daemon.stderr
            #expect(stderr.components(separatedBy: "No space left on device").count - 1 == 1, "\(stderr)")
            #expect(stderr.contains("event log writable again: \(logPath)"))
            // Every tap answered as logged is in the file, as a whole record.
            let logged = Set(answers.filter(\.logged).map(\.seq))
            let inFile = try loggedSeqs(logPath)
            #expect(Set(inFile) == logged, "missing: \(logged.subtracting(inFile).sorted()), extra: \(Set(inFile).subtracting(logged).sorted())")
        }

        /// A log that ends in half a record (the daemon died mid-write, the power went): the next
        /// run's first record must not be glued onto it. The torn line stays, alone, as the one
        /// unreadable line; every tap of the new run is readable, and replay says so.
        @Test func tornLastLineFromAnEarlierRunDoesNotSwallowTheNextRecord() throws {
            let logDir = try makeTempDir()
            defer { removeTempDir(logDir) }
            let logPath = logDir + "/events.jsonl"
            let whole = #"{"time":"2026-11-29T10:00:00.000Z","run":"r0","seq":1,"layout":"home","generation":1,"x":10,"y":10,"hit":"0","name":"log","tag":1,"actionData":{"k":[1,"two"]},"handler":"audit","outcome":"dispatched"}"#
            try (whole + "\n" + #"{"time":"2026-11-29T10:00:01.000Z","run":"r0","se"#).write(toFile: logPath, atomically: true, encoding: .utf8)
            let daemon = try DaemonProcess(config: standardConfig(eventLog: #"{"path": "\#(logPath)"}"#))
            let answered = try taps(try daemon.connect(), 3)
            try daemon.stop()
            let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 6 && lines.last == "")
            #expect(lines[1] == #"{"time":"2026-11-29T10:00:01.000Z","run":"r0","se"#)
            let seqs = try lines[2..<5].map { try #require(try parseObject(String($0)).int("seq")) }
            #expect(seqs == answered.map(\.seq))
            #expect(daemon.stderr.contains("the last line was torn"))
            let replay = try runProgram(cliBinary, ["replay", logPath, "--config", daemon.configPath])
            #expect(replay.code == 1)
            #expect(replay.out.hasSuffix("4 taps, 0 differ, 1 unreadable\n"), "\(replay.out)")
        }

        @Test func renamedLogIsReplacedWithinFiveSeconds() throws {
            let daemon = try DaemonProcess()
            let c = try daemon.connect()
            var answers = try taps(c, 5)
            let rotated = daemon.dir + "/events.jsonl.1"
            #expect(rename(daemon.eventLogPath, rotated) == 0)
            // Taps keep flowing while the daemon has not noticed yet; then a new file appears.
            let start = Date()
            while !FileManager.default.fileExists(atPath: daemon.eventLogPath) && Date().timeIntervalSince(start) < 6 {
                answers += try taps(c, 1)
                usleep(50_000)
            }
            #expect(Date().timeIntervalSince(start) < 5, "a new file at the path within 5 s")
            answers += try taps(c, 5)
            try daemon.stop()
            let old = try loggedSeqs(rotated), new = try loggedSeqs(daemon.eventLogPath)
            #expect(!new.isEmpty)
            #expect((old + new).sorted() == answers.filter(\.logged).map(\.seq).sorted())
            #expect(daemon.stderr.contains("event log \(daemon.eventLogPath) was moved or deleted; writing to a new file there"))
        }

        @Test func deletedLogIsReplacedWithinFiveSeconds() throws {
            let daemon = try DaemonProcess()
            let c = try daemon.connect()
            _ = try taps(c, 3)
            unlink(daemon.eventLogPath)
            let start = Date()
            var answers: [(seq: Int, logged: Bool)] = []
            while !FileManager.default.fileExists(atPath: daemon.eventLogPath) && Date().timeIntervalSince(start) < 6 {
                answers += try taps(c, 1)
                usleep(50_000)
            }
            #expect(Date().timeIntervalSince(start) < 5, "a new file at the path within 5 s")
            let later = try taps(c, 3)
            try daemon.stop()
            #expect(try loggedSeqs(daemon.eventLogPath).suffix(3) == later.map(\.seq))
        }
    }
}
