import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// Tap classes through the real daemon and socket: the recognizer's timers run on the daemon's
/// loop, so the long press and the hold take real (short) time here.
extension EndToEnd {
    @Suite struct TouchTests {
        /// "pad" 500x100, five 100-wide columns: tag 1 plain (audit), tag 2 long (menu), tag 3 hold
        /// (volume), tag 4 double (zoom), tag 5 long: page to "other". Short timings keep it quick.
        static let config = #"""
        {"socket": {"path": "d.sock"}, "eventLog": {"path": "events.jsonl"},
         "layouts": {
           "pad": {"width": 500, "height": 100, "longPressMs": 300, "repeatMs": 100, "doubleTapMs": 200, "grid": {"cols": [
              {"size": 100, "tag": 1}, {"size": 100, "tag": 2}, {"size": 100, "tag": 3}, {"size": 100, "tag": 4},
              {"size": 100, "tag": 5, "action-data": "other"}]}},
           "other": {"width": 100, "height": 100, "grid": {"rows": [{"tag": 9}]}}},
         "initialLayout": "pad",
         "handlers": {"audit": {"type": "log"}, "menu": {"type": "log"}, "volume": {"type": "log"}, "zoom": {"type": "log"},
                      "pages": {"type": "layout"}},
         "routes": [{"tags": [2], "handler": "menu", "on": "long"}, {"tags": [3], "handler": "volume", "on": "hold"},
                    {"tags": [4], "handler": "zoom", "on": "double"}, {"tags": [5], "handler": "pages", "on": ["long"]},
                    {"handler": "audit"}]}
        """#

        /// `class grid handler outcome` of a tap reply.
        func describe(_ tap: [String: Any]) -> String {
            let hit = tap["hit"] as? [String: Any]
            return "\(tap.string("class") ?? "-") \(hit?.string("path") ?? "miss") \(tap.string("handler") ?? "none") \(tap.string("outcome") ?? "?")"
        }

        func taps(_ reply: [String: Any]) -> [String] { (reply["taps"] as? [[String: Any]] ?? []).map(describe) }

        /// The classed tap records in the event log, described as replies are.
        func recordedTaps(_ daemon: DaemonProcess) throws -> [String] {
            try daemon.eventRecords().filter { $0["class"] != nil }.map { record in
                "\(record.string("class")!) \(record.string("hit") ?? "miss") \(record.string("handler") ?? "none") \(record.string("outcome")!)"
            }
        }

        @Test func tapLongHoldDoubleSwipeCancelAndPageSwitch() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()

            // A tap: the up's reply carries it.
            var reply = try c.request(#"{"op": "down", "x": 50, "y": 50, "id": 1}"#)
            #expect(reply.int("id") == 1 && reply["ok"] as? Bool == true && taps(reply).isEmpty)
            #expect(taps(try c.request(#"{"op": "up"}"#)) == ["tap 0 audit dispatched"])

            // A long press fires while down (no client gets it); the release does nothing.
            _ = try c.request(#"{"op": "down", "x": 150, "y": 50}"#)
            usleep(450_000)
            #expect(taps(try c.request(#"{"op": "up"}"#)).isEmpty)
            // The log handler's line names the handler that took the long press, not the tap's.
            #expect(daemon.stderr.contains(#"tap seq=2 layout="pad" grid="1" name=null tag=2 handler="menu" actionData=null"#))

            // Hold: at 300 ms, then every 100 ms, until the release.
            _ = try c.request(#"{"op": "down", "x": 250, "y": 50, "slot": 1}"#)
            usleep(560_000)
            #expect(taps(try c.request(#"{"op": "up", "slot": 1}"#)).isEmpty)
            usleep(250_000)

            // A double on the double grid; a single tap there fires when its window ends.
            _ = try c.request(#"{"op": "down", "x": 350, "y": 50}"#)
            #expect(taps(try c.request(#"{"op": "up"}"#)).isEmpty)
            _ = try c.request(#"{"op": "down", "x": 352, "y": 50}"#)
            #expect(taps(try c.request(#"{"op": "up"}"#)) == ["double 3 zoom dispatched"])
            usleep(250_000)
            _ = try c.request(#"{"op": "down", "x": 350, "y": 50}"#)
            #expect(taps(try c.request(#"{"op": "up"}"#)).isEmpty)
            usleep(350_000)

            // A swipe and a cancel: nothing.
            _ = try c.request(#"{"op": "down", "x": 50, "y": 50}"#)
            _ = try c.request(#"{"op": "move", "x": 50, "y": 75}"#)
            #expect(taps(try c.request(#"{"op": "up"}"#)).isEmpty)
            _ = try c.request(#"{"op": "down", "x": 50, "y": 50}"#)
            #expect(taps(try c.request(#"{"op": "cancel"}"#)).isEmpty)

            // A page switch in flight: a hold pressed on "pad" never fires after "other" is current.
            _ = try c.request(#"{"op": "down", "x": 250, "y": 50, "slot": 2}"#)
            #expect(try c.request(#"{"op": "use", "layout": "other"}"#).string("layout") == "other")
            usleep(450_000)
            #expect(taps(try c.request(#"{"op": "up", "slot": 2}"#)).isEmpty)

            // A slot taken twice is refused; another connection's slot 0 is another finger.
            _ = try c.request(#"{"op": "down", "x": 50, "y": 50}"#)
            #expect(try c.request(#"{"op": "down", "x": 50, "y": 50, "id": "again"}"#).errorCode == "bad_request")
            let second = try daemon.connect()
            #expect(try second.request(#"{"op": "down", "x": 50, "y": 50}"#)["ok"] as? Bool == true)
            second.close()
            #expect(try daemon.stop() == 0)

            #expect(try recordedTaps(daemon) == [
                "tap 0 audit dispatched", "long 1 menu dispatched",
                "hold 2 volume dispatched", "hold 2 volume dispatched", "hold 2 volume dispatched",
                "double 3 zoom dispatched", "tap 3 audit dispatched",
            ])
            let touches = try daemon.eventRecords().filter { $0.string("event") == "touch" }
            // Every record names its phase, slot, source, conn and time; the cancels include the
            // contact the page switch ended, the closed connection's, and the one left at stop. (conn 1
            // was DaemonProcess's probe: `c` is 2, `second` 3.)
            #expect(touches.allSatisfy { $0.string("source") == "socket" && $0.int("conn") != nil && $0["ms"] is NSNumber })
            let cancels = touches.filter { $0.string("phase") == "cancel" }.map { "\($0.int("conn")!)/\($0.int("slot")!)" }
            #expect(cancels == ["2/0", "2/2", "3/0", "2/0"])
        }

        @Test func aLongPressThatSwitchesThePageEndsTheOtherFingers() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()
            _ = try c.request(#"{"op": "down", "x": 250, "y": 50, "slot": 1}"#)  // hold, due 300 ms later
            _ = try c.request(#"{"op": "down", "x": 450, "y": 50, "slot": 0}"#)  // long: page to "other", just after
            usleep(600_000)
            #expect(try c.request(#"{"op": "status"}"#).string("layout") == "other")
            _ = try c.request(#"{"op": "up", "slot": 0}"#)
            _ = try c.request(#"{"op": "up", "slot": 1}"#)
            #expect(try daemon.stop() == 0)
            // Slot 1 was pressed first: its hold fires, then slot 0's long press switches the page,
            // and slot 1's repeats never come.
            #expect(try recordedTaps(daemon) == ["hold 2 volume dispatched", "long 4 pages dispatched"])
        }
    
        // Wall-clock windows of 20 to 200 ms between separate CLI runs: sanitized binaries start
        // too slowly for them (the recognizer's classes are tested on given times in-process).
        @Test(.disabled(if: sanitizer != nil, "timing windows too short for sanitized binaries"))
        func touchCommandTriesClassesFromAShell() throws {
            let daemon = try DaemonProcess(config: Self.config)
            func touch(_ arguments: [String]) throws -> (Int32, String) {
                let result = try runProgram(cliBinary, ["touch"] + arguments + ["--socket", daemon.socketPath])
                return (result.code, result.out)
            }
            var (status, out) = try touch(["50", "50"])
            #expect(status == 0 && out == "seq 1 pad: 0 tag 1 -> audit: dispatched (tap)\n")
            (status, out) = try touch(["150", "50", "--hold", "450"])
            #expect(status == 0 && out == "1 tap fired while the finger was down or after its double-tap window (a long press, hold repeats, a single tap): they go to no client; the event log and the daemon's log have them\n")
            (status, out) = try touch(["350", "50", "--double"])
            #expect(status == 0 && out == "seq 3 pad: 3 tag 4 -> zoom: dispatched (double)\n")
            (status, out) = try touch(["50", "50", "--hold", "20"])
            #expect(status == 0 && out.hasPrefix("seq 4 pad: 0 tag 1 -> audit: "))
            #expect(try daemon.stop() == 0)
        }
    
        @Test func replayRunsTheRecognizerAgainOnTheRecordedTiming() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()
            for (x, hold) in [(50, 0), (150, 450), (350, 0), (352, 0)] as [(Int, UInt32)] {
                _ = try c.request(#"{"op": "down", "x": \#(x), "y": 50}"#)
                if hold > 0 { usleep(hold * 1000) }
                _ = try c.request(#"{"op": "up"}"#)
            }
            _ = try c.request(#"{"x": 50, "y": 50}"#)  // a plain tap among them
            #expect(try daemon.stop() == 0)
            let same = try runProgram(cliBinary, ["replay", daemon.eventLogPath, "--config", daemon.configPath])
            #expect(same.code == 0 && same.out == "4 taps, 0 differ\n")
            // With a longer long press, the 450 ms press on tag 2 was a tap.
            let changed = daemon.dir + "/changed.json"
            try Self.config.replacingOccurrences(of: #""longPressMs": 300"#, with: #""longPressMs": 2000"#)
                .write(toFile: changed, atomically: true, encoding: .utf8)
            let differs = try runProgram(cliBinary, ["replay", daemon.eventLogPath, "--config", changed])
            #expect(differs.code == 1)
            let lines = differs.out.split(separator: "\n")
            #expect(lines.count == 2 && lines[0].hasSuffix(": long 1 tag 2 -> tap 1 tag 2, handler menu -> audit"), "\(lines)")
            #expect(lines.last == "4 taps, 1 differ")
            // Through the daemon (no classes there), the same log compares clean.
            let live = try DaemonProcess(config: Self.config)
            let online = try runProgram(cliBinary, ["replay", daemon.eventLogPath, "--socket", live.socketPath])
            #expect(online.code == 0 && online.out == "4 taps, 0 differ\n")
            #expect(try live.stop() == 0)
        }
    }
}
