import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// Cell state and pushed layouts through the real daemon (docs/cell-state.md "Cell state", "Pushed layouts"):
/// what a panel's server sends and what a user checks in replies, the event log and children.
extension EndToEnd {
    @Suite struct CellState {
        /// "panel" 300x100: "light" (toggle, tag 1 -> `sh`, which writes TAPGRID_ACTIVE/TEXT/VALUE
        /// to a file per seq), "remove" (tag 2 -> `sh`, touches a file), "temp" (tag 3 -> `audit`).
        static func config(_ dir: String) -> String {
            """
            {"socket": {"path": "d.sock"}, "eventLog": {"path": "events.jsonl"},
             "layouts": {"panel": {"width": 300, "height": 100, "grid": {"cols": [
                {"size": 100, "name": "light", "tag": 1, "toggle": true,
                 "action-data": "printf '%s|%s|%s' \\"$TAPGRID_ACTIVE\\" \\"$TAPGRID_TEXT\\" \\"$TAPGRID_VALUE\\" > \(dir)/light.$TAPGRID_SEQ"},
                {"size": 100, "name": "remove", "tag": 2, "action-data": "touch \(dir)/removed.$TAPGRID_SEQ"},
                {"size": 100, "name": "temp", "tag": 3}]}}},
             "handlers": {"sh": {"type": "script", "interpreter": ["/bin/sh", "-c"]}, "audit": {"type": "log"}},
             "routes": [{"tags": [1, 2], "handler": "sh"}, {"handler": "audit"}]}
            """
        }

        static func start() throws -> DaemonProcess {
            let dir = try makeTempDir()
            let daemon = try DaemonProcess(config: config(dir))
            daemon.alsoRemove.append(dir)
            return daemon
        }

        static func waitFor(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if condition() { return true }
                usleep(20_000)
            }
            return condition()
        }

        static func grids(_ reply: [String: Any]) -> [String: [String: Any]] {
            let layouts = reply["layouts"] as? [[String: Any]] ?? []
            var byName: [String: [String: Any]] = [:]
            for grid in layouts.first?["grids"] as? [[String: Any]] ?? [] {
                if let name = grid.string("name") { byName[name] = grid }
            }
            return byName
        }

        @Test func setThenLayoutsShowsTheState() throws {
            let daemon = try Self.start()
            let c = try daemon.connect()
            let ok = try c.request(#"{"op":"set","grid":"temp","text":"21.5 °C","value":{"c":21.5},"id":"s1"}"#)
            #expect(ok.string("id") == "s1" && ok["ok"] as? Bool == true && ok.string("layout") == "panel" && ok.string("grid") == "2")
            let byPath = try c.request(#"{"op":"set","layout":"panel","grid":"2","active":true}"#)
            #expect(byPath.string("grid") == "2")
            let plain = try c.request(#"{"op":"layouts"}"#)
            #expect(Self.grids(plain)["temp"]?["text"] == nil, "layouts without state is unchanged")
            let temp = try #require(Self.grids(try c.request(#"{"op":"layouts","state":true}"#))["temp"])
            #expect(temp.string("text") == "21.5 °C")
            #expect(temp["active"] as? Bool == true)
            #expect((temp["value"] as? [String: Any])?["c"] as? Double == 21.5)
            #expect(temp.isNull("enabled"))
            let states = try daemon.eventRecords().filter { $0.string("event") == "state" }
            #expect(states.count == 2)
            #expect(states.map { $0.int("seq") } == [1, 2])
            #expect(states.allSatisfy { $0.string("source") == "socket" && $0.string("grid") == "2" && $0.string("layout") == "panel" })
            #expect(states[1].string("text") == "21.5 °C" && states[1]["active"] as? Bool == true)
            // The next tap continues the one sequence.
            #expect(try c.request(#"{"x":250,"y":50}"#).int("seq") == 3)
        }

        @Test func aDisabledGridsTapsAreRecordedAndNothingRuns() throws {
            let daemon = try Self.start()
            let dir = daemon.alsoRemove[0]
            let c = try daemon.connect()
            _ = try c.request(#"{"op":"set","grid":"remove","enabled":false}"#)
            for _ in 0..<3 {
                let reply = try c.request(#"{"x":150,"y":50}"#)
                #expect(reply.string("outcome") == "disabled")
                #expect(reply.object("hit")?.string("name") == "remove")
            }
            _ = try c.request(#"{"op":"set","grid":"remove","enabled":true}"#)
            let again = try c.request(#"{"x":150,"y":50}"#)
            #expect(again.string("outcome") == "dispatched")
            let seq = try #require(again.int("seq"))
            #expect(Self.waitFor { FileManager.default.fileExists(atPath: "\(dir)/removed.\(seq)") })
            usleep(200_000)
            let ran = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("removed.") }
            #expect(ran == ["removed.\(seq)"], "only the tap after enabling ran a child")
            let status = try c.request(#"{"op":"status"}"#)
            #expect(status.object("outcomes")?.int("disabled") == 3)
            #expect(status.int("taps") == 4)
            let taps = try daemon.eventRecords().filter { $0["event"] == nil }
            #expect(taps.map { $0.string("outcome") } == ["disabled", "disabled", "disabled", "dispatched"])
        }

        @Test func aToggleGridTappedThreeTimes() throws {
            let daemon = try Self.start()
            let dir = daemon.alsoRemove[0]
            let c = try daemon.connect()
            _ = try c.request(#"{"op":"set","grid":"light","text":"Hall","value":[1,2]}"#)
            var seqs: [Int] = []
            var actives: [Bool] = []
            for _ in 0..<3 {
                let reply = try c.request(#"{"x":50,"y":50}"#)
                #expect(reply.string("outcome") == "dispatched")
                seqs.append(try #require(reply.int("seq")))
                actives.append(try #require(reply["active"] as? Bool))
            }
            #expect(actives == [true, false, true])
            // Each child saw the state after its own tap's flip.
            for (seq, active) in zip(seqs, actives) {
                let file = "\(dir)/light.\(seq)"
                #expect(Self.waitFor { ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").hasSuffix("]") })
                #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "\(active)|Hall|[1,2]")
            }
            let records = try daemon.eventRecords().filter { $0.string("event") == nil || $0.string("event") == "state" }
            let toggles = records.filter { $0.string("source") == "toggle" }
            #expect(toggles.map { $0["active"] as? Bool } == [true, false, true])
            #expect(toggles.map { $0.int("seq") } == seqs, "a toggle's state record has its tap's seq")
            let taps = records.filter { $0["event"] == nil }
            #expect(taps.map { $0["active"] as? Bool } == [true, false, true])
            // A tap on a grid without toggle carries no `active`.
            let other = try c.request(#"{"x":250,"y":50}"#)
            #expect(other["active"] == nil)
            let light = try #require(Self.grids(try c.request(#"{"op":"layouts","state":true}"#))["light"])
            #expect(light["active"] as? Bool == true && light["toggle"] as? Bool == true)
        }

        @Test func aPushedLayoutIsHitThenUnloaded() throws {
            let daemon = try Self.start()
            let c = try daemon.connect()
            let definition = #"{"width": 200, "height": 100, "grid": {"cols": [{"size": "50%", "name": "buy", "tag": 3}, {"size": "50%", "name": "skip", "tag": 9}]}}"#
            let loaded = try c.request(#"{"op":"load","layout":"promo","definition":\#(definition),"id":1}"#)
            #expect(loaded["ok"] as? Bool == true && loaded.int("generation") == 2 && loaded.int("id") == 1)
            let same = try c.request(#"{"op":"load","layout":"promo","definition":\#(definition)}"#)
            #expect(same.int("generation") == 2 && same["unchanged"] as? Bool == true)
            let hit = try c.request(#"{"op":"hit","layout":"promo","x":150,"y":50}"#)
            #expect(hit.object("hit")?.string("name") == "skip" && hit.string("handler") == "audit" && hit.string("outcome") == "checked")
            #expect(try c.request(#"{"op":"status"}"#)["pushed"] as? [String] == ["promo"])
            // A refused definition leaves everything as it was.
            let before = try c.request(#"{"op":"layouts"}"#)
            let refused = try c.request(#"{"op":"load","layout":"promo","definition":{"width": 200, "height": 100, "grid": {"cols": [{"size": "half"}]}}}"#)
            #expect(refused.errorCode == "config_error")
            #expect(refused.errorMessage?.hasPrefix(#"load.definition.grid 0: "size": "half" is not a size"#) == true, "\(refused)")
            #expect(try c.request(#"{"op":"status"}"#).int("generation") == 2)
            #expect(NSDictionary(dictionary: try c.request(#"{"op":"layouts"}"#)) == NSDictionary(dictionary: before))
            // The current layout is unloaded: the config's initial layout becomes current.
            #expect(try c.request(#"{"op":"use","layout":"promo"}"#)["ok"] as? Bool == true)
            #expect(try c.request(#"{"op":"status"}"#).string("layout") == "promo")
            // Unloaded: gone, and the generation moves on.
            let unloaded = try c.request(#"{"op":"unload","layout":"promo"}"#)
            #expect(unloaded["ok"] as? Bool == true && unloaded.int("generation") == 3)
            #expect(try c.request(#"{"op":"status"}"#).string("layout") == "panel")
            #expect(try c.request(#"{"op":"hit","layout":"promo","x":150,"y":50}"#).errorCode == "unknown_layout")
            #expect(try c.request(#"{"op":"status"}"#)["pushed"] == nil)
        }

        @Test func aLargeDefinitionArrivesAndTwoMebibytesAreRefused() throws {
            let daemon = try Self.start()
            let c = try daemon.connect()
            // 3,000 named columns: about 150 KB, past the 64 KiB line limit of other requests.
            let cols = (0..<3000).map { #"{"size": 1, "name": "cell-number-\#($0)", "tag": \#($0 + 1)}"# }.joined(separator: ",")
            let line = #"{"op":"load","layout":"big","definition":{"width": 3000, "height": 10, "grid": {"cols": [\#(cols)]}}}"#
            #expect(line.utf8.count > 65_536)
            let loaded = try c.request(line)
            #expect(loaded["ok"] as? Bool == true, "\(loaded)")
            #expect(try c.request(#"{"op":"hit","layout":"big","x":2999.5,"y":5}"#).object("hit")?.string("name") == "cell-number-2999")
            // The same size in any other request is too long.
            let other = #"{"op":"hit","x":1,"y":1,"pad":""# + String(repeating: "x", count: 70_000) + #""}"#
            #expect(try c.request(other).errorCode == "line_too_long")
            let c2 = try daemon.connect()
            let huge = #"{"op":"load","layout":"huge","definition":{"width":1,"height":1,"grid":{"name":""# + String(repeating: "x", count: 2 << 20) + #""}}}"#
            // The daemon answers line_too_long and closes once it has read past the limit; the
            // rest of the 2 MiB may reset the connection before the client reads that answer.
            _ = c2.send(huge + "\n")
            let answer = c2.readLine()
            #expect(answer == nil || answer!.contains("line_too_long"), "\(answer?.prefix(200) ?? "")")
            let c3 = try daemon.connect()
            #expect(try c3.request(#"{"op":"status"}"#)["pushed"] as? [String] == ["big"])
        }

        /// 20 hostile `set` and `load` requests: each gets its error, and nothing changes.
        @Test func hostileSetsAndLoadsChangeNothing() throws {
            let daemon = try Self.start()
            let c = try daemon.connect()
            let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
            let cases: [(String, String, String)] = [
                (#"{"op":"set"}"#, "bad_request", #""grid" is required"#),
                (#"{"op":"set","grid":7}"#, "bad_request", #""grid" must be a string"#),
                (#"{"op":"set","grid":"nope"}"#, "unknown_grid", #"unknown grid "nope" in layout "panel"; its grids are "light", "remove", "temp""#),
                (#"{"op":"set","grid":"0/9"}"#, "unknown_grid", #"unknown grid "0/9""#),
                (#"{"op":"set","layout":"none","grid":"light"}"#, "unknown_layout", #"unknown layout "none""#),
                (#"{"op":"set","grid":"light","text":1}"#, "bad_request", #""text" must be a string or null, not a number"#),
                (#"{"op":"set","grid":"light","active":"on"}"#, "bad_request", #""active" must be true, false or null"#),
                (#"{"op":"set","grid":"light","enabled":0}"#, "bad_request", #""enabled" must be true, false or null"#),
                (#"{"op":"set","grid":"light","text":"\#(String(repeating: "x", count: 300))"}"#, "bad_request", #""text" is 300 bytes; at most 256"#),
                (#"{"op":"set","grid":"light","value":"\#(String(repeating: "x", count: 5000))"}"#, "bad_request", #""value" is 5002 bytes as compact JSON; at most 4096"#),
                (#"{"op":"set","grid":"light","value":\#(deep)}"#, "parse_error", "nesting is deeper than 512 levels"),
                (#"{"op":"set","grid":"light","text":"a","text":"b"}"#, "bad_request", #"duplicate key "text""#),
                (#"{"op":"load"}"#, "bad_request", #""layout" is required"#),
                (#"{"op":"load","layout":"p"}"#, "bad_request", #""definition" is required"#),
                (#"{"op":"load","layout":"p","definition":[1]}"#, "bad_request", #""definition" must be an object, not an array"#),
                (#"{"op":"load","layout":"p","definition":{"width":1,"height":1,"grid":"/etc/passwd"}}"#, "config_error",
                 "load.definition.grid: expected a grid dictionary inline; a pushed layout cannot name a file"),
                (#"{"op":"load","layout":"p","definition":{"width":-1,"height":1,"grid":{}}}"#, "config_error", "load.definition.width: expected a finite number >= 0"),
                (#"{"op":"load","layout":"p","definition":{"width":1,"height":1,"grid":{"rows":\#(deep)}}}"#, "parse_error", "nesting is deeper than 512 levels"),
                (#"{"op":"load","layout":"p","definition":{"width":1,"height":1}}"#, "config_error", "load.definition.grid: missing"),
                (#"{"op":"unload","layout":"panel"}"#, "unknown_layout", #"layout "panel" was not pushed"#),
            ]
            #expect(cases.count == 20)
            let before = try c.request(#"{"op":"layouts","state":true}"#)
            for (line, code, message) in cases {
                let reply = try c.request(line)
                #expect(reply.errorCode == code, "\(line.prefix(80)): \(reply)")
                #expect(reply.errorMessage?.contains(message) == true, "\(line.prefix(80)): \(reply.errorMessage ?? "")")
            }
            #expect(NSDictionary(dictionary: try c.request(#"{"op":"layouts","state":true}"#)) == NSDictionary(dictionary: before))
            let status = try c.request(#"{"op":"status"}"#)
            #expect(status.int("generation") == 1 && status["pushed"] == nil)
            #expect(try daemon.eventRecords().isEmpty, "nothing was recorded")
        }
    }
}
