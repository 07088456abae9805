import Foundation
import Testing

import TapgridTestSupport

/// The screen (docs/screen.md) against the built daemon, a fake backlight folder
/// (`brightness`, `max_brightness`) in the test's temp folder and the socket's touch ops: the
/// idle timers, the waking touch used up, plain taps routed without waking, the ops, commands.
extension EndToEnd {
    @Suite(.serialized) struct ScreenTests {
        /// A daemon whose config has `screen` (`block`'s members) with its backlight in `dir`.
        static func screenConfig(_ block: String) -> String {
            var text = standardConfig()
            let end = text.range(of: "}", options: .backwards)!
            text.replaceSubrange(end, with: #""screen": {\#(block)},}"#)  // the standard config ends with a comma
            return text
        }

        /// A backlight folder as sysfs has one: `max_brightness` 255, `brightness` 100.
        static func makeBacklight(in dir: String) throws -> String {
            let folder = dir + "/backlight"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "255\n".write(toFile: folder + "/max_brightness", atomically: true, encoding: .utf8)
            try "100\n".write(toFile: folder + "/brightness", atomically: true, encoding: .utf8)
            return folder
        }

        static func brightness(_ folder: String) -> String {
            ((try? String(contentsOfFile: folder + "/brightness", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }

        static func screenRecords(_ daemon: DaemonProcess) throws -> [String] {
            try daemon.eventRecords().filter { $0.string("event") == "screen" }.map { "\($0.string("state") ?? "?") \($0.string("reason") ?? "?")" }
        }

        @Test func dimOffAndTheWakingTouchThroughTheSocketsTouchOps() throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let backlight = try Self.makeBacklight(in: dir)
            let commands = dir + "/commands"
            let block = #""dimSeconds": 1.2, "offSeconds": 2.4, "backlight": {"path": "\#(backlight)"}, "commands": {"on": ["/bin/sh", "-c", "echo on >> \#(commands)"], "off": ["/bin/sh", "-c", "echo off >> \#(commands)"]}"#
            let daemon = try DaemonProcess(config: Self.screenConfig(block))
            let client = try daemon.connect()
            #expect(fleetWait(timeout: 5) { Self.brightness(backlight) == "255" }, "on at start: max_brightness")
            #expect(fleetWait(timeout: 5) { Self.brightness(backlight) == "51" }, "dim: 20 % of 255, got \(Self.brightness(backlight))")
            #expect(fleetWait(timeout: 5) { Self.brightness(backlight) == "0" }, "off")

            // A plain tap on the dark screen is routed as usual and does not wake it.
            #expect(try client.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            Thread.sleep(forTimeInterval: 0.2)
            #expect(Self.brightness(backlight) == "0")

            // The waking touch: used up whole, even held past the long press's time.
            let down = try client.request(#"{"op": "down", "x": 10, "y": 10}"#)
            #expect(down["ok"] as? Bool == true && (down["taps"] as? [Any])?.isEmpty == true)
            #expect(Self.brightness(backlight) == "255", "a touch wakes it")
            Thread.sleep(forTimeInterval: 0.7)
            _ = try client.request(#"{"op": "move", "x": 12, "y": 10}"#)
            let up = try client.request(#"{"op": "up"}"#)
            #expect((up["taps"] as? [Any])?.isEmpty == true, "no class for the waking touch: \(up)")

            // The next touch taps.
            _ = try client.request(#"{"op": "down", "x": 10, "y": 10}"#)
            let tap = try client.request(#"{"op": "up"}"#)
            #expect(((tap["taps"] as? [[String: Any]])?.first)?.string("class") == "tap", "\(tap)")

            let records = try daemon.eventRecords()
            let wakes = records.filter { $0.string("event") == "wake" }
            #expect(wakes.count == 1)
            #expect(wakes.first?.string("source") == "socket" && wakes.first?.int("x") == 10)
            let touches = records.filter { $0.string("event") == "touch" }
            #expect(touches.map { $0.string("phase") ?? "" } == ["down", "up"], "the waking contact has no touch records")
            #expect(!records.contains { $0.string("class") == "long" }, "no long press for the waking touch")
            #expect(try Self.screenRecords(daemon) == ["on start", "dim idle", "off idle", "on touch"])

            // The ops: off at once, then wake.
            let off = try client.request(#"{"op": "screen", "state": "off", "id": 5}"#)
            #expect(off.int("id") == 5 && off.object("screen")?.string("state") == "off", "\(off)")
            #expect(Self.brightness(backlight) == "0")
            #expect(try client.request(#"{"op": "wake"}"#).object("screen")?.string("state") == "on")
            #expect(Self.brightness(backlight) == "255")
            let status = try client.request(#"{"op": "status"}"#).object("screen")
            #expect(status?.string("state") == "on" && status?.object("backlight")?.int("value") == 255, "\(String(describing: status))")
            let printed = try runProgram(cliBinary, ["status", "--socket", daemon.socketPath])
            #expect(printed.out.contains("screen: on since ") && printed.out.contains(", backlight 255 (\(backlight))"), "\(printed.out)")
            #expect(try client.request(#"{"op": "screen", "state": "bright"}"#).errorMessage == #""state" must be "on", "dim" or "off", found "bright""#)
            #expect(fleetWait(timeout: 5) {
                ((try? String(contentsOfFile: commands, encoding: .utf8)) ?? "").split(separator: "\n") == ["on", "off", "on", "off", "on"]
            }, "commands run for on and off: \((try? String(contentsOfFile: commands, encoding: .utf8)) ?? "none")")
            #expect(try daemon.stop() == 0)
        }

        /// `wakeTouch: "pass"`: the waking touch wakes the screen and taps as usual.
        @Test func aPassingWakeTouchAlsoTaps() throws {
            let daemon = try DaemonProcess(config: Self.screenConfig(#""offSeconds": 0.3, "wakeTouch": "pass""#))
            let client = try daemon.connect()
            #expect(fleetWait(timeout: 5) { (try? Self.screenRecords(daemon))?.last == "off idle" })
            _ = try client.request(#"{"op": "down", "x": 10, "y": 10}"#)
            let up = try client.request(#"{"op": "up"}"#)
            #expect(((up["taps"] as? [[String: Any]])?.first)?.string("class") == "tap", "\(up)")
            #expect(try Self.screenRecords(daemon).last == "on touch")
            #expect(!(try daemon.eventRecords()).contains { $0.string("event") == "wake" })
            #expect(try daemon.stop() == 0)
        }

        /// A backlight that cannot be written and a command that does not exist: logged once,
        /// shown in the op's reply, taps and the screen's state unaffected.
        @Test func aBrokenBacklightAndAMissingCommandStopNothing() throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let backlight = dir + "/backlight"
            try FileManager.default.createDirectory(atPath: backlight + "/brightness", withIntermediateDirectories: true)  // a folder: EISDIR
            try "255\n".write(toFile: backlight + "/max_brightness", atomically: true, encoding: .utf8)
            let block = #""offSeconds": 30, "backlight": {"path": "\#(backlight)"}, "commands": {"off": ["/nonexistent/blank-it"]}"#
            let daemon = try DaemonProcess(config: Self.screenConfig(block))
            let client = try daemon.connect()
            let off = try client.request(#"{"op": "screen", "state": "off"}"#)
            #expect(off.object("screen")?.string("state") == "off")
            let error = off.object("screen")?.object("backlight")?.string("error") ?? ""
            #expect(error.contains(backlight + "/brightness"), "\(off)")
            _ = try client.request(#"{"op": "wake"}"#)
            #expect(try client.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            #expect(try Self.screenRecords(daemon) == ["on start", "off op", "on op"])
            let status = try client.request(#"{"op": "status"}"#).object("screen")
            #expect((status?.object("backlight")?.string("error") ?? "").contains(backlight + "/brightness"), "shown in status: \(String(describing: status))")
            let log = daemon.stderr
            #expect(log.components(separatedBy: "screen: backlight:").count - 1 == 1, "logged once: \(log)")
            #expect(log.contains("/nonexistent/blank-it"), "\(log)")
            #expect(try daemon.stop() == 0)
        }

        @Test func withoutAScreenBlockTheOpsSaySo() throws {
            let daemon = try DaemonProcess()
            let reply = try daemon.connect().request(#"{"op": "wake"}"#)
            #expect(reply.errorCode == "bad_request")
            #expect(reply.errorMessage == #"the config has no "screen" block: there is no screen to wake"#)
        }
    }
}
