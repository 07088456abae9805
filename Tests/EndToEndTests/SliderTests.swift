import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// A slider through the real daemon and socket (docs/touch.md "Sliders"): a drag by the touch ops
/// gives `change` records at most one per `changeMs` and one `release` with the final value; the
/// value is the grid's state (`layouts` with state, `cells.json`); `set` rounds to `step` and
/// refuses a value off the scale; a plain tap is a `release` with its value.
extension EndToEnd {
    @Suite struct SliderTests {
        /// "panel" 400x100: "volume", a horizontal slider 0-100 step 1 over x 0-200 (value x / 2,
        /// tag 1, its change and release to the `log` handler "volume"), then a plain grid (tag 2).
        static let config = #"""
        {"socket": {"path": "d.sock"}, "eventLog": {"path": "events.jsonl"},
         "layouts": {"panel": {"width": 400, "height": 100, "grid": {"cols": [
            {"size": 200, "name": "volume", "tag": 1, "slider": {"min": 0, "max": 100, "step": 1}},
            {"size": 200, "name": "plain", "tag": 2}]}}},
         "handlers": {"volume": {"type": "log"}, "audit": {"type": "log"}},
         "routes": [{"tags": [1], "handler": "volume", "on": ["change", "release"]}, {"handler": "audit"}]}
        """#

        static func waitFor(_ seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if try condition() { return true }
                usleep(20_000)
            }
            return try condition()
        }

        /// `class value` of each tap in a touch op's reply.
        func taps(_ reply: [String: Any]) -> [String] {
            (reply["taps"] as? [[String: Any]] ?? []).map { "\($0.string("class") ?? "-") \($0["value"] as? NSNumber ?? -1)" }
        }

        /// The slider's tap records (`class` change or release).
        func sliderRecords(_ daemon: DaemonProcess) throws -> [[String: Any]] {
            try daemon.eventRecords().filter { ["change", "release"].contains($0.string("class") ?? "") }
        }

        /// A record's `time` as milliseconds of its day (`...T10:00:00.123Z`).
        func milliseconds(_ record: [String: Any]) -> Int {
            let time = record.string("time") ?? ""
            let clock = time.split(separator: "T").last?.dropLast() ?? ""
            let parts = clock.split(separator: ":")
            guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let s = Double(parts[2]) else { return -1 }
            return (h * 3600 + m * 60) * 1000 + Int((s * 1000).rounded())
        }

        func volume(_ c: LineClient) throws -> [String: Any]? {
            let reply = try c.request(#"{"op": "layouts", "state": true}"#)
            let grids = (reply["layouts"] as? [[String: Any]])?.first?["grids"] as? [[String: Any]] ?? []
            return grids.first { $0.string("name") == "volume" }
        }

        @Test func aDragSetsTheValueAndReleasesIt() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()

            #expect(taps(try c.request(#"{"op": "down", "x": 20, "y": 50}"#)).isEmpty, "the down sends nothing")
            #expect(taps(try c.request(#"{"op": "move", "x": 60, "y": 50}"#)) == ["change 30"])
            usleep(150_000)
            #expect(taps(try c.request(#"{"op": "move", "x": 100, "y": 50}"#)) == ["change 50"])
            // Three moves within changeMs (100) of that change: held, the last goes out when the
            // time is up (from the daemon's timer: no reply carries it).
            for x in [110, 120, 130] {
                #expect(taps(try c.request(#"{"op": "move", "x": \#(x), "y": 50}"#)).isEmpty)
                usleep(10_000)
            }
            usleep(250_000)  // past the held change's time (the last change's + 100 ms) and 100 ms more
            let last = try c.request(#"{"op": "move", "x": 180, "y": 50}"#)
            #expect(taps(last) == ["change 90"], "\(last)")
            usleep(150_000)
            #expect(taps(try c.request(#"{"op": "up", "x": 190, "y": 50}"#)) == ["release 95"])

            let records = try sliderRecords(daemon)
            #expect(records.map { "\($0.string("class")!) \($0["value"] as? NSNumber ?? -1) \($0.string("handler") ?? "-") \($0.string("outcome") ?? "-")" } == [
                "change 30 volume dispatched", "change 50 volume dispatched", "change 65 volume dispatched",
                "change 90 volume dispatched", "release 95 volume dispatched",
            ])
            #expect(records.map { $0["x"] as? NSNumber } == [60, 100, 130, 180, 190])
            let changes = records.filter { $0.string("class") == "change" }.map(milliseconds)
            for (earlier, later) in zip(changes, changes.dropFirst()) {
                #expect(later - earlier >= 99, "changes at most one per changeMs: \(changes)")
            }
            #expect(try daemon.eventRecords().allSatisfy { $0.string("event") != "state" }, "no state record: the taps carry the value")

            // The value is the grid's state, in layouts and cells.json.
            #expect(try volume(c)?["value"] as? NSNumber == 95)
            let cellsPath = daemon.dir + "/cells.json"
            let written = try Self.waitFor(5) {
                guard let text = try? String(contentsOfFile: cellsPath, encoding: .utf8) else { return false }
                return try parseObject(text).object("layouts")?.object("panel")?.object("0")?["value"] as? NSNumber == 95
            }
            #expect(written, "cells.json: \((try? String(contentsOfFile: cellsPath, encoding: .utf8)) ?? "missing")")
        }

        /// Replay re-derives each value from its point (docs/touch.md "Sliders"): a recorded drag
        /// (the finger leaving the slider on its way) and a plain tap replay clean against their
        /// config; against one where the slider is wider (300 of the 400 units: value x / 3),
        /// each value differs, offline and through a daemon alike.
        @Test func replayWorksEachValueOutAgain() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()
            _ = try c.request(#"{"op": "down", "x": 20, "y": 50}"#)
            _ = try c.request(#"{"op": "move", "x": 60, "y": 50}"#)
            usleep(150_000)
            _ = try c.request(#"{"op": "move", "x": 240, "y": 50}"#)   // over "plain": still the slider's, clamped to 100
            usleep(150_000)
            _ = try c.request(#"{"op": "up", "x": 150, "y": 50}"#)
            _ = try c.request(#"{"x": 50, "y": 50}"#)
            _ = try c.request(#"{"x": 350, "y": 50}"#)
            #expect(try sliderRecords(daemon).map { "\($0.string("class")!) \($0["value"] as? NSNumber ?? -1)" }
                == ["change 30", "change 100", "release 75", "release 25"])
            let log = daemon.dir + "/replayed.jsonl"
            #expect(try daemon.stop() == 0)
            try FileManager.default.copyItem(atPath: daemon.eventLogPath, toPath: log)

            let same = try tapgrid(["replay", log, "--config", daemon.configPath])
            #expect(same.out == "5 taps, 0 differ\n" && same.code == 0, "\(same.out)\(same.err)")

            let wider = Self.config.replacingOccurrences(of: #"{"size": 200, "name": "volume""#, with: #"{"size": 300, "name": "volume""#)
                .replacingOccurrences(of: #"{"size": 200, "name": "plain""#, with: #"{"size": 100, "name": "plain""#)
            let widerPath = daemon.dir + "/wider.json"
            try wider.write(toFile: widerPath, atomically: true, encoding: .utf8)
            let touchTaps = [
                "line 3 seq 1 (60, 50) panel: change 0 tag 1, value 30 -> 20",
                "line 5 seq 2 (240, 50) panel: change 0 tag 1, value 100 -> 80",
                "line 7 seq 3 (150, 50) panel: release 0 tag 1, value 75 -> 50",
            ]
            let plainTap = "line 8 seq 4 (50, 50) panel: release 0 tag 1, value 25 -> 17"
            // Offline, the contacts' taps are compared once the whole log is read; through a
            // daemon, each in its place.
            let offline = try tapgrid(["replay", log, "--config", widerPath])
            #expect(offline.out == ([plainTap] + touchTaps + ["5 taps, 4 differ", ""]).joined(separator: "\n") && offline.code == 1,
                    "\(offline.out)\(offline.err)")
            let json = try tapgrid(["replay", log, "--config", widerPath, "--json"])
            let first = try parseObject(String(json.out.split(separator: "\n").first ?? ""))
            #expect(first.object("recorded")?["value"] as? NSNumber == 25 && first.object("replayed")?["value"] as? NSNumber == 17, "\(json.out)")
            let expected = (touchTaps + [plainTap, "5 taps, 4 differ", ""]).joined(separator: "\n")
            let live = try DaemonProcess(config: wider)
            let online = try tapgrid(["replay", log, "--socket", live.socketPath])
            #expect(online.out == expected && online.code == 1, "\(online.out)\(online.err)")
            #expect(try live.stop() == 0)
        }

        @Test func setRoundsAndRefusesOffTheScale() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()
            let off = try c.request(#"{"op": "set", "grid": "volume", "value": 150, "id": 7}"#)
            #expect(off.int("id") == 7)
            #expect(off.object("error")?.string("code") == "bad_request")
            #expect(off.object("error")?.string("message")
                == #""value" 150 is off the scale of slider "volume" in layout "panel": expected a number from 0 to 100"#)
            let text = try c.request(#"{"op": "set", "grid": "volume", "value": "loud"}"#)
            #expect(text.object("error")?.string("message")
                == #""value" must be a number from 0 to 100 for slider "volume" in layout "panel", not a string"#)
            let unset = try volume(c)
            #expect(unset != nil && unset?["value"] == nil, "nothing refused was kept: \(String(describing: unset))")

            #expect(try c.request(#"{"op": "set", "grid": "volume", "value": 42.4}"#)["ok"] as? Bool == true)
            #expect(try volume(c)?["value"] as? NSNumber == 42)
            let state = try daemon.eventRecords().filter { $0.string("event") == "state" }
            #expect(state.count == 1 && state.first?["value"] as? NSNumber == 42)
        }

        @Test func aPlainTapOnTheSliderIsAReleaseWithItsValue() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let c = try daemon.connect()
            let reply = try c.request(#"{"x": 50, "y": 50}"#)
            #expect(reply.string("class") == "release" && reply["value"] as? NSNumber == 25)
            #expect(reply.string("handler") == "volume" && reply.string("outcome") == "dispatched")
            let plain = try c.request(#"{"x": 300, "y": 50}"#)
            #expect(plain["class"] == nil && plain["value"] == nil && plain.string("handler") == "audit")
            #expect(try volume(c)?["value"] as? NSNumber == 25)
            let records = try daemon.eventRecords().filter { $0["seq"] != nil && $0["event"] == nil }
            #expect(records.count == 2)
            #expect(records.first?.string("class") == "release" && records.first?["value"] as? NSNumber == 25)
            #expect(records.last?["class"] == nil && records.last?["value"] == nil)
            #expect(Self.waitFor { daemon.stderr.contains(#"handler="volume""#) }, "the log handler's line: \(daemon.stderr)")
        }
    }
}
