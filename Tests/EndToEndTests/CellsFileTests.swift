import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// `cells.json` (docs/cell-state.md "Cell state across restarts"): the state kept across restarts beside the event log,
/// written within a second of a change, whole even when the daemon is killed at any moment; a
/// torn or unwritable file is a message, never a daemon that does not start.
extension EndToEnd {
    @Suite struct CellsFileTests {
        /// Waits up to `seconds` for `condition`; returns whether it came true.
        @discardableResult
        func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try condition() { return true }
                usleep(10_000)
            }
            return try condition()
        }

        /// The daemon has set up (read `cells.json`) once it says it listens: its socket accepts
        /// connections a little before that.
        func started(_ daemon: DaemonProcess) throws {
            guard waitFor(10, { daemon.stderr.contains("tapgridd: listening on") }) else {
                throw TestFailure("tapgridd did not finish starting: \(daemon.stderr)")
            }
        }

        /// The config whose event log (and so `cells.json`) is in `folder`, which outlives the daemons.
        func config(in folder: String) -> String { standardConfig(eventLog: #"{"path": "\#(folder)/events.jsonl"}"#) }

        /// `layouts` with `state`: the grids that have state, as "layout path".
        func gridsWithState(_ c: LineClient) throws -> [String: [String: Any]] {
            let reply = try c.request(#"{"op": "layouts", "state": true}"#)
            var found: [String: [String: Any]] = [:]
            for layout in reply["layouts"] as? [[String: Any]] ?? [] {
                for grid in layout["grids"] as? [[String: Any]] ?? [] where grid["text"] != nil {
                    found["\(layout.string("name") ?? "?") \(grid.string("path") ?? "?")"] = grid
                }
            }
            return found
        }

        /// `cells.json` as Foundation reads it; nil when it is missing.
        func cellsFile(_ folder: String) throws -> [String: Any]? {
            guard let text = try? String(contentsOfFile: folder + "/cells.json", encoding: .utf8) else { return nil }
            return try parseObject(text)
        }

        /// A grid's entry in `cells.json`.
        func cell(_ file: [String: Any]?, _ layout: String, _ path: String) -> [String: Any]? {
            file?.object("layouts")?.object(layout)?.object(path)
        }

        func set(_ c: LineClient, _ fields: String) throws {
            let reply = try c.request("{\"op\": \"set\", " + fields + "}")
            guard reply["ok"] as? Bool == true else { throw TestFailure("set \(fields): \(reply)") }
        }

        @Test func setThenRestartKeepsState() throws {
            let folder = try makeTempDir()
            defer { removeTempDir(folder) }
            do {
                let daemon = try DaemonProcess(config: config(in: folder))
                let c = try daemon.connect()
                try set(c, #""grid": "log", "text": "42 %", "active": true, "value": {"n": [1, 2]}"#)
                try set(c, #""layout": "other", "grid": "back", "enabled": false"#)
                try set(c, #""grid": "3", "text": "gone soon""#)
                try set(c, #""grid": "3", "text": null"#)  // all null again: not kept at all
                #expect(try daemon.stop() == 0)  // at once: the pending change is written at shutdown
            }
            let file = try #require(try cellsFile(folder))
            #expect(file.int("version") == 1)
            #expect(cell(file, "other", "0")?["enabled"] as? Bool == false && cell(file, "home", "3") == nil)

            do {
                let daemon = try DaemonProcess(config: config(in: folder))
                try started(daemon)
                #expect(daemon.stderr.contains("tapgridd: cell state restored from \(folder)/cells.json: 2 grids\n"))
                let c = try daemon.connect()
                let state = try gridsWithState(c)
                #expect(state.keys.sorted() == ["home 0", "other 0"])
                let home = try #require(state["home 0"])
                #expect(home.string("text") == "42 %" && home["active"] as? Bool == true && home.isNull("enabled"))
                #expect((home["value"] as? [String: Any])?["n"] as? [Int] == [1, 2])
                #expect(state["other 0"]?["enabled"] as? Bool == false)
                // The state restored acts: a tap on the disabled grid is refused.
                #expect(try c.request(#"{"x": 50, "y": 50, "layout": "other"}"#).string("outcome") == "disabled")
                #expect(try daemon.stop() == 0)
            }

            // A config without layout "other": its grid's state is dropped, with a line saying so.
            let changed = config(in: folder).replacingOccurrences(of: #""other": {"#, with: #""other2": {"#)
                .replacingOccurrences(of: #""action-data": "other" }"#, with: #""action-data": "other2" }"#)
            let daemon = try DaemonProcess(config: changed)
            try started(daemon)
            #expect(daemon.stderr.contains(
                "tapgridd: cell state restored from \(folder)/cells.json: 1 grid; 1 dropped (their layout or grid path is not in the config)\n"))
            #expect(try gridsWithState(try daemon.connect()).keys.sorted() == ["home 0"])
        }

        /// Every change reaches the file within a second of it; `kill -9` at any moment loses at
        /// most the changes of that last second and never leaves a file that does not parse.
        @Test func killNineLosesAtMostTheLastSecondAndNeverCorrupts() throws {
            let folder = try makeTempDir()
            defer { removeTempDir(folder) }
            var inFile = 0  // the value cells.json held when the last daemon was killed
            var next = 1
            for burst in [0.3, 0.9, 1.4, 2.1, 2.7] {
                let daemon = try DaemonProcess(config: config(in: folder))
                try started(daemon)
                #expect(!daemon.stderr.contains("not restored"), "\(daemon.stderr)")
                let c = try daemon.connect()
                let restored = try gridsWithState(c)["home 0"]?.int("value") ?? 0
                #expect(restored == inFile, "the daemon starts with what the file held")

                // One change, then quiet: on disk within a second.
                let base = next
                next += 1
                try set(c, #""grid": "log", "value": \#(base)"#)
                let changed = Date()
                #expect(try waitFor(3) { cell(try cellsFile(folder), "home", "0")?.int("value") == base })
                let took = Date().timeIntervalSince(changed)
                #expect(took > 0.8 && took < 1.6, "written \(took) s after the change, not within 1 s")

                // A burst of changes, then kill -9 mid-burst.
                var sent: [(value: Int, at: Date)] = []
                let start = Date()
                while Date().timeIntervalSince(start) < burst {
                    try set(c, #""grid": "log", "text": "burst \#(next)", "value": \#(next)"#)
                    sent.append((next, Date()))
                    next += 1
                    usleep(2_000)
                }
                kill(daemon.pid, SIGKILL)
                daemon.process.waitUntilExit()
                let killed = Date()

                let file = try #require(try cellsFile(folder), "cells.json must parse after kill -9")
                #expect(file.int("version") == 1)
                let value = try #require(cell(file, "home", "0")?.int("value"))
                #expect(value >= base && value <= sent.last!.value)
                // Changes older than a second (plus a margin for a busy machine) must be there.
                let old = sent.last { killed.timeIntervalSince($0.at) > 1.5 }
                if let old { #expect(value >= old.value, "lost \(old.value), sent more than 1.5 s before the kill") }
                if value != base { #expect(cell(file, "home", "0")?.string("text") == "burst \(value)") }
                inFile = value
            }
        }

        @Test func tornFileIsAWarningAndTheDaemonStartsEmpty() throws {
            let folder = try makeTempDir()
            defer { removeTempDir(folder) }
            let torn = #"{"version":1,"layouts":{"home":{"0":{"text":"4"#
            try torn.write(toFile: folder + "/cells.json", atomically: false, encoding: .utf8)
            // With the event log off, cells.json is in $STATE_DIRECTORY.
            let daemon = try DaemonProcess(config: standardConfig(eventLog: "false"), environment: ["STATE_DIRECTORY": folder])
            try started(daemon)
            #expect(daemon.stderr.contains(
                "tapgridd: warning: cell state not restored: \(folder)/cells.json: not valid JSON: 1:45: unterminated string (the file is cut short: torn by a crash, or a full disk?); starting with none (the file stays as it is until the state changes)\n"
            ), "\(daemon.stderr)")
            let c = try daemon.connect()
            #expect(try gridsWithState(c).isEmpty)
            usleep(1_300_000)
            #expect(try String(contentsOfFile: folder + "/cells.json", encoding: .utf8) == torn, "no change, no write")
            try set(c, #""grid": "page", "active": true"#)
            #expect(try waitFor(3) { cell(try? cellsFile(folder), "home", "1")?["active"] as? Bool == true })
            #expect(!FileManager.default.fileExists(atPath: folder + "/events.jsonl"))
            #expect(try daemon.stop() == 0)
        }

        @Test func failedWriteIsLoggedOnceAndTriedAgain() throws {
            let folder = try makeTempDir()
            defer { removeTempDir(folder) }
            let path = folder + "/cells.json"
            mkdir(path, 0o755)  // a folder where the file goes: every rename over it fails
            let daemon = try DaemonProcess(config: config(in: folder))
            try started(daemon)
            #expect(daemon.stderr.contains(
                "tapgridd: warning: cell state not restored: cannot read \(path): Is a directory (errno 21); starting with none"))
            let failure = "tapgridd: error: cell state not saved: cannot rename \(path).tmp to \(path): Is a directory (errno 21); tried again at the next change\n"
            func failures() -> Int { daemon.stderr.components(separatedBy: failure).count - 1 }
            let c = try daemon.connect()
            try set(c, #""grid": "log", "value": 1"#)
            #expect(waitFor(3) { failures() == 1 })
            try set(c, #""grid": "log", "value": 2"#)
            usleep(1_500_000)
            #expect(failures() == 1, "one failure, one line: \(daemon.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))

            // Room again: the next change is written, and the daemon says so.
            rmdir(path)
            try set(c, #""grid": "log", "value": 3"#)
            #expect(try waitFor(3) { cell(try? cellsFile(folder), "home", "0")?.int("value") == 3 })
            #expect(waitFor(1) { daemon.stderr.contains("tapgridd: cell state saved again: \(path)\n") })

            // Failing again is a new line; SIGUSR1 tries the failed change again at once.
            unlink(path)
            mkdir(path, 0o755)
            try set(c, #""grid": "log", "value": 4"#)
            #expect(waitFor(3) { failures() == 2 })
            rmdir(path)
            kill(daemon.pid, SIGUSR1)
            #expect(try waitFor(1) { cell(try? cellsFile(folder), "home", "0")?.int("value") == 4 })
            #expect(try daemon.stop() == 0)
        }

        @Test func reloadMovingTheEventLogMovesTheState() throws {
            let first = try makeTempDir()
            let second = try makeTempDir()
            defer { removeTempDir(first); removeTempDir(second) }
            let daemon = try DaemonProcess(config: config(in: first))
            let c = try daemon.connect()
            try set(c, #""grid": "log", "text": "here""#)
            #expect(try waitFor(3) { cell(try? cellsFile(first), "home", "0")?.string("text") == "here" })
            try config(in: second).write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            #expect(try c.request(#"{"op": "reload"}"#).int("generation") == 2)
            // Written in the new folder though it did not change; the old file stays.
            #expect(try waitFor(3) { cell(try? cellsFile(second), "home", "0")?.string("text") == "here" })
            #expect(cell(try cellsFile(first), "home", "0")?.string("text") == "here")
            #expect(try daemon.stop() == 0)
        }
    }
}
