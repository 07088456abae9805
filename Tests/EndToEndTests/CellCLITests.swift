import Foundation
import Testing

import TapgridTestSupport

/// The built `tapgrid set`, `load`, `unload` and `show --socket` against a running `tapgridd`:
/// what a user types and reads, and what the daemon then does with its taps.
extension EndToEnd {
    @Suite struct CellCLITests {
        /// Layout `home` 300x100: col 0 "volume" tag 1, col 1 "mute" tag 2 (a toggle), col 2
        /// "off" tag 3; every tag goes to the `audit` log handler.
        static let config = """
            {
              "socket": { "path": "d.sock" }, "eventLog": false,
              "layouts": {
                "home": { "width": 300, "height": 100, "grid": { "cols": [
                  { "name": "volume", "tag": 1 },
                  { "name": "mute", "tag": 2, "toggle": true },
                  { "name": "off", "tag": 3 } ] } }
              },
              "handlers": { "audit": { "type": "log" } },
              "routes": [ { "tags": [1, 2, 3, 7], "handler": "audit" } ]
            }
            """

        /// A layout to push: comments allowed, as in a config file.
        static let promo = """
            // pushed at run time
            { "width": 200, "height": 100,
              "grid": { "cols": [ { "name": "buy", "tag": 7 }, { "name": "later", "tag": 8 } ] } }
            """

        static let badPromo = #"{"width": 200, "height": 100, "grid": {"cols": [{"size": "200", "tag": 7}]}}"#

        /// The daemon's own view of one grid's state, through a socket client of the test's own.
        func grid(_ daemon: DaemonProcess, layout: String = "home", _ path: String) throws -> [String: Any] {
            let client = try daemon.connect()
            let reply = try client.request(#"{"op":"layouts","state":true}"#)
            let layouts = try #require(reply["layouts"] as? [[String: Any]])
            let grids = try #require(layouts.first { $0.string("name") == layout }?["grids"] as? [[String: Any]])
            return try #require(grids.first { $0.string("path") == path })
        }

        @Test func setChangesWhatTheDaemonShowsAndDoes() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let socket = ["--socket", daemon.socketPath]
            let set = try tapgrid(["set", "home", "volume", "--text", "42 %", "--active", "true", "--value", #"{"level": 42}"#] + socket)
            #expect(set.code == 0 && set.err == "")
            #expect(set.out == #"home: 0 "volume": text "42 %", active true, value {"level":42}"# + "\n")
            let volume = try grid(daemon, "0")
            #expect(volume.string("text") == "42 %" && volume["active"] as? Bool == true)
            #expect((volume["value"] as? [String: Any])?.int("level") == 42)

            // Disabled: the tap is answered `disabled` and not routed; enabled again, it is. (Each
            // change of state takes a seq too: the taps' counter.)
            #expect(try tapgrid(["set", "home", "2", "--enabled", "false"] + socket).out == "home: 2: enabled false\n")
            #expect(try tapgrid(["tap", "250", "50"] + socket).out == #"seq 3 home: 2 "off" tag 3 -> audit: disabled"# + "\n")
            #expect(try tapgrid(["set", "home", "off", "--clear", "enabled", "--json"] + socket).out == #"{"ok":true,"layout":"home","grid":"2"}"# + "\n")
            #expect(try tapgrid(["tap", "250", "50"] + socket).out == #"seq 5 home: 2 "off" tag 3 -> audit: dispatched"# + "\n")

            // --clear sends null: the key is gone from the daemon's state.
            #expect(try tapgrid(["set", "home", "volume", "--clear", "text", "--clear", "value"] + socket).code == 0)
            let cleared = try grid(daemon, "0")
            #expect(cleared["text"] == nil || cleared.isNull("text"))
            #expect(cleared["active"] as? Bool == true)

            let unknown = try tapgrid(["set", "home", "nope", "--text", "x"] + socket)
            #expect(unknown.code == 1 && unknown.out == "")
            #expect(unknown.err == #"Error: unknown_grid: unknown grid "nope" in layout "home"; its grids are "volume", "mute", "off""# + "\n")
            let tooLong = try tapgrid(["set", "home", "volume", "--text", String(repeating: "x", count: 300)] + socket)
            #expect(tooLong.code == 1)
            #expect(tooLong.err == #"Error: bad_request: "text" is 300 bytes; at most 256"# + "\n")
        }

        /// A toggle grid's taps flip `active`, and `show --socket` draws it lit, with the state
        /// text as the cell's label.
        @Test func showWithASocketDrawsWhatThePanelShows() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let socket = ["--socket", daemon.socketPath]
            #expect(try tapgrid(["tap", "150", "50"] + socket).out == #"seq 1 home: 1 "mute" tag 2 -> audit: dispatched"# + "\n")
            #expect(try grid(daemon, "1")["active"] as? Bool == true)
            #expect(try tapgrid(["set", "home", "volume", "--text", "Vol 7"] + socket).code == 0)
            let svg = try tapgrid(["show", "--format", "svg"] + socket)
            #expect(svg.code == 0 && svg.err == "")
            #expect(svg.out.contains(##"<text x="50" y="50" font-size="16" text-anchor="middle" dy="0.35em" fill="#e8eaed">Vol 7</text>"##))
            #expect(!svg.out.contains(">volume</text>"))  // the text instead of the name
            // mute is on: the page's accent (CellLook)
            #expect(svg.out.contains(##"<rect x="102" y="2" width="96" height="96" fill="#1f6feb"><title>1 &quot;mute&quot;: active, toggle</title></rect>"##))
            // Tapped again, it is off: no longer lit.
            _ = try tapgrid(["tap", "150", "50"] + socket)
            let after = try tapgrid(["show", "--format", "svg"] + socket)
            #expect(after.out.contains(##"<rect x="102" y="2" width="96" height="96" fill="#2a2e37">"##))
            // Offline, the same command without --socket draws the config: names, no state.
            let offline = try tapgrid(["show", daemon.configPath, "--format", "svg"])
            #expect(offline.out.contains(">volume</text>") && !offline.out.contains("Vol 7"))
        }

        @Test func loadAndUnloadAPushedLayout() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let socket = ["--socket", daemon.socketPath]
            let file = daemon.dir + "/promo.json"
            try Self.promo.write(toFile: file, atomically: true, encoding: .utf8)

            let loaded = try tapgrid(["load", "promo", file] + socket)
            #expect(loaded.code == 0 && loaded.err == "")
            #expect(loaded.out == "layout \"promo\" loaded: generation 2\n")
            #expect(try tapgrid(["load", "promo", file] + socket).out
                == "layout \"promo\" unchanged: the daemon has this definition already (generation 2)\n")
            // Routed by the config's routes, and its cells take state like any layout's.
            #expect(try tapgrid(["tap", "50", "50", "--layout", "promo"] + socket).out == #"seq 1 promo: 0 "buy" tag 7 -> audit: dispatched"# + "\n")
            #expect(try tapgrid(["set", "promo", "buy", "--text", "Buy now"] + socket).out == #"promo: 0 "buy": text "Buy now""# + "\n")
            let status = try parseObject(try tapgrid(["status", "--json"] + socket).out)
            #expect(status["pushed"] as? [String] == ["promo"])
            let svg = try tapgrid(["show", "--format", "svg", "--layout", "promo"] + socket)
            #expect(svg.out.contains(">Buy now</text>") && svg.out.contains(">later</text>"))

            let unloaded = try tapgrid(["unload", "promo"] + socket)
            #expect(unloaded.code == 0)
            #expect(unloaded.out == "layout \"promo\" unloaded: generation 3\n")
            let again = try tapgrid(["unload", "promo"] + socket)
            #expect(again.code == 1)
            #expect(again.err == #"Error: unknown_layout: layout "promo" was not pushed; no layout is"# + "\n")
            let gone = try tapgrid(["tap", "50", "50", "--layout", "promo"] + socket)
            #expect(gone.err == #"Error: unknown_layout: unknown layout "promo"; the layouts are "home""# + "\n")
        }

        /// A definition the daemon refuses: the same message from the daemon as from `load
        /// --check` offline against the same config, and nothing changes.
        @Test func aRefusedDefinitionHasTheSameMessageOnlineAndOffline() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let file = daemon.dir + "/bad.json"
            try Self.badPromo.write(toFile: file, atomically: true, encoding: .utf8)
            let message = #"load.definition.grid 0: "size": "200" is not a size; use a number (200), "fill", "wrap" or a percentage ("20%")"#

            let online = try tapgrid(["load", "promo", file, "--socket", daemon.socketPath])
            #expect(online.code == 1 && online.out == "")
            #expect(online.err == "Error: config_error: \(message)\n")
            let offline = try tapgrid(["load", "promo", file, "--check", "--config", daemon.configPath])
            #expect(offline.code == 1 && offline.err == "")
            #expect(offline.out == "error: \(message)\n\(file): 1 error, 0 warnings\n")

            let status = try parseObject(try tapgrid(["status", "--json", "--socket", daemon.socketPath]).out)
            #expect(status.int("generation") == 1)
            #expect(status["pushed"] == nil || (status["pushed"] as? [String])?.isEmpty == true)

            // A good one checks clean offline, listed as check lists a layout.
            let good = daemon.dir + "/promo.json"
            try Self.promo.write(toFile: good, atomically: true, encoding: .utf8)
            let clean = try tapgrid(["load", "promo", good, "--check", "--config", daemon.configPath])
            #expect(clean.code == 0)
            #expect(clean.out == """
                layout "promo": 3 grids, 2 hittable (200x100 ltr)
                warning: layout "promo": tag 8 matches no route and there is no default route; taps there are "unrouted"
                \(good): 0 errors, 1 warning

                """)
        }
    }
}
