import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// url and script handlers through the real daemon: real children, their environment, output,
/// exit records, timeouts that kill the whole group, and no zombies or descriptor growth.
extension EndToEnd {
    @Suite struct ChildrenTests {
        /// Layout `kids` (500x100), one 100-wide column per case:
        /// tag 1 url -> recorder, tag 2 env dump, tag 3 timeout with a grandchild, tag 4 `exit 0`,
        /// tag 5 ftp URL (denied), tag 6 url with a missing command, tag 7 directory script `hello`.
        static func config(dir: String) -> String {
            """
            {
              "socket": { "path": "d.sock" },
              "eventLog": { "path": "events.jsonl" },
              "layouts": { "kids": { "width": 800, "height": 100, "grid": { "cols": [
                  { "size": 100, "tag": 1, "action-data": "https://example.org/a?b=c&d" },
                  { "size": 100, "tag": 2, "name": "envdump", "action-data": "env > \(dir)/env.txt; echo dumped; echo oops >&2" },
                  { "size": 100, "tag": 3, "action-data": "sleep 100 & echo $! > \(dir)/grandchild.pid; sleep 100" },
                  { "size": 100, "tag": 4, "action-data": "exit 0" },
                  { "size": 100, "tag": 5, "action-data": "ftp://example.org/" },
                  { "size": 100, "tag": 6, "action-data": "https://example.org/" },
                  { "size": 100, "tag": 7, "action-data": "hello" },
                  { "size": 100, "tag": 8, "action-data": "echo $$ > \(dir)/long.pid; exec sleep 100" },
              ] } } },
              "handlers": {
                "web": { "type": "url", "command": ["\(dir)/record-url"] },
                "gone": { "type": "url", "command": ["/nonexistent/opener"] },
                "sh": { "type": "script", "interpreter": ["/bin/sh", "-c"], "maxConcurrent": 8, "queue": 250 },
                "slow": { "type": "script", "interpreter": ["/bin/sh", "-c"], "timeoutSeconds": 0.5, "killGraceSeconds": 0.5 },
                "dir": { "type": "script", "directory": "\(dir)/scripts" },
              },
              "routes": [
                { "tags": [1, 5], "handler": "web" }, { "tags": [2, 4, 8], "handler": "sh" },
                { "tags": [3], "handler": "slow" }, { "tags": [6], "handler": "gone" }, { "tags": [7], "handler": "dir" },
              ],
            }
            """
        }

        /// Starts a daemon; `dir` holds the recorder, the scripts folder and what children write.
        func start(environment: [String: String] = [:]) throws -> (DaemonProcess, String) {
            let dir = try makeTempDir()
            try FileManager.default.createDirectory(atPath: dir + "/scripts", withIntermediateDirectories: true)
            try writeExecutable(dir + "/record-url", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \(dir)/url.txt\n")
            try writeExecutable(dir + "/scripts/hello", "#!/bin/sh\necho \"hello $TAPGRID_TAG\" > \(dir)/hello.txt\n")
            do {
                let daemon = try DaemonProcess(config: Self.config(dir: dir), environment: environment)
                daemon.alsoRemove.append(dir)
                return (daemon, dir)
            } catch {
                removeTempDir(dir)
                throw error
            }
        }

        func writeExecutable(_ path: String, _ text: String) throws {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }

        /// Waits until `condition` holds (polling), at most `seconds`.
        func waitFor(_ seconds: Double = 10, _ condition: () throws -> Bool) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try condition() { return }
                usleep(20_000)
            }
            throw TestFailure("condition not met within \(seconds) s")
        }

        func exitRecord(_ daemon: DaemonProcess, seq: Int) throws -> [String: Any]? {
            try daemon.eventRecords().first { $0.string("event") == "exit" && $0.int("seq") == seq }
        }

        @Test func urlHandlerRunsTheCommandWithTheURLAsOneArgument() throws {
            let (daemon, dir) = try start()
            let reply = try daemon.connect().request(#"{"x": 50, "y": 50}"#)
            #expect(reply.string("outcome") == "dispatched")
            #expect(reply.string("handler") == "web")
            try waitFor { FileManager.default.fileExists(atPath: dir + "/url.txt") }
            try waitFor { try exitRecord(daemon, seq: 1) != nil }
            #expect(try String(contentsOfFile: dir + "/url.txt", encoding: .utf8) == "https://example.org/a?b=c&d\n")
            let exit = try #require(try exitRecord(daemon, seq: 1))
            #expect(exit.int("status") == 0)
            #expect(exit["durationMs"] is NSNumber)
            #expect(exit.string("run") == (try daemon.eventRecords().first?.string("run")))
        }

        @Test func deniedAndFailedURLs() throws {
            let (daemon, _) = try start()
            let connection = try daemon.connect()
            let denied = try connection.request(#"{"x": 450, "y": 50}"#)
            #expect(denied.string("outcome") == "denied")
            let failed = try connection.request(#"{"x": 550, "y": 50}"#)
            #expect(failed.string("outcome") == "failed")
            let records = try daemon.eventRecords()
            #expect(records.map { $0.string("outcome") } == ["denied", "failed"])
        }

        @Test func scriptGetsTheTapEnvironmentAndItsOutputIsLogged() throws {
            let (daemon, dir) = try start(environment: [
                "NOTIFY_SOCKET": "/run/nothing", "WATCHDOG_USEC": "1000000", "LISTEN_FDNAMES": "other", "SECRET_TOKEN": "x",
            ])
            let reply = try daemon.connect().request(#"{"x": 150.5, "y": 20}"#)
            #expect(reply.string("outcome") == "dispatched")
            try waitFor { try exitRecord(daemon, seq: 1) != nil }
            let env = try String(contentsOfFile: dir + "/env.txt", encoding: .utf8)
            let lines = Set(env.split(separator: "\n").map(String.init))
            for expected in [
                "TAPGRID_LAYOUT=kids", "TAPGRID_GRID=1", "TAPGRID_NAME=envdump", "TAPGRID_TAG=2", "TAPGRID_X=150.5",
                "TAPGRID_Y=20", "TAPGRID_SEQ=1",
            ] {
                #expect(lines.contains(expected), "\(expected) missing from \(lines)")
            }
            #expect(lines.contains { $0.hasPrefix("TAPGRID_ACTION_DATA=env > ") })
            #expect(!lines.contains { $0.hasPrefix("NOTIFY_SOCKET=") || $0.hasPrefix("WATCHDOG_") || $0.hasPrefix("LISTEN_") || $0.hasPrefix("SECRET_TOKEN=") })
            try waitFor { daemon.stderr.contains("oops") }
            let stderr = daemon.stderr
            #expect(stderr.contains("seq 1 sh stdout: dumped"))
            #expect(stderr.contains("seq 1 sh stderr: oops"))
        }

        @Test func directoryScriptRunsByName() throws {
            let (daemon, dir) = try start()
            let reply = try daemon.connect().request(#"{"x": 650, "y": 50}"#)
            #expect(reply.string("outcome") == "dispatched")
            // The shell creates the file before it writes: wait for the content, not the file.
            try waitFor { (try? String(contentsOfFile: dir + "/hello.txt", encoding: .utf8)) == "hello 7\n" }
            #expect(try String(contentsOfFile: dir + "/hello.txt", encoding: .utf8) == "hello 7\n")
        }

        @Test func timeoutKillsTheWholeGroup() throws {
            let (daemon, dir) = try start()
            let reply = try daemon.connect().request(#"{"x": 250, "y": 50}"#)
            #expect(reply.string("outcome") == "dispatched")
            try waitFor { try exitRecord(daemon, seq: 1) != nil }
            let exit = try #require(try exitRecord(daemon, seq: 1))
            #expect(exit["timedOut"] as? Bool == true)
            #expect(exit.string("signal") == "SIGTERM" || exit.string("signal") == "SIGKILL")
            #expect(exit["status"] == nil)
            let grandchild = try #require(Int32(try String(contentsOfFile: dir + "/grandchild.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            try waitFor(5) { kill(grandchild, 0) != 0 || processState(grandchild) == "Z" }
        }

        @Test func shutdownStopsRunningChildrenAndLogsTheirExit() throws {
            let (daemon, dir) = try start()
            #expect(try daemon.connect().request(#"{"x": 750, "y": 50}"#).string("outcome") == "dispatched")
            // The shell creates the file before it writes: wait for the number, not the file.
            let readPID = { Int32(((try? String(contentsOfFile: dir + "/long.pid", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) }
            try waitFor { readPID() != nil }
            let child = try #require(readPID())
            let started = Date()
            #expect(try daemon.stop(SIGTERM) == 0)
            #expect(Date().timeIntervalSince(started) < 6)
            #expect(kill(child, 0) != 0 || processState(child) == "Z")
            let exit = try #require(try exitRecord(daemon, seq: 1))
            #expect(exit.string("signal") == "SIGTERM")
        }

        @Test func twoHundredScriptsLeaveNoZombiesAndNoDescriptors() throws {
            let (daemon, _) = try start()
            let connection = try daemon.connect()
            _ = try connection.request(#"{"op": "status"}"#)
            let fdsBefore = daemon.openFDCount()
            for _ in 0..<200 {
                let reply = try connection.request(#"{"x": 350, "y": 50}"#)
                #expect(reply.string("outcome") == "dispatched")
            }
            try waitFor(60) { try daemon.eventRecords().filter { $0.string("event") == "exit" }.count == 200 }
            let exits = try daemon.eventRecords().filter { $0.string("event") == "exit" }
            #expect(exits.allSatisfy { $0.int("status") == 0 })
            #expect(Set(exits.compactMap { $0.int("seq") }) == Set(1...200))
            let status = try connection.request(#"{"op": "status"}"#)
            #expect(status.int("children") == 0)
            try waitFor(5) { daemon.openFDCount() == fdsBefore }
            #expect(childrenOf(daemon.pid).isEmpty, "left children: \(childrenOf(daemon.pid))")
        }
    }
}

/// The state letter of a process (`R`, `S`, `Z`...), nil when it is gone.
func processState(_ pid: Int32) -> String? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
}

/// Processes whose parent is `pid`, zombies included: `pid state` strings.
func childrenOf(_ pid: Int32) -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> String? in
        guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 1, Int32(fields[1]) == pid else { return nil }
        return "\(child) \(fields[0])"
    }
}
