import Testing

@testable import TapgridCore

@Suite struct ConfigParserTests {
    @Test(arguments: [
        ("/a/b/../c", "/a/c"), ("/a/./b//c/", "/a/b/c"), ("/../x", "/x"), ("a/../../b", "../b"), ("./a", "a"),
        ("/", "/"), ("a/..", "."),
    ])
    func pathsAreNormalized(input: String, expected: String) {
        #expect(normalizedPath(input) == expected)
    }

    func parse(_ text: String, files: [String: String] = [:]) -> (Config?, [String]) {
        let document = try! JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            guard let content = files[path] else { return .failure(Diagnostic(.error, "cannot read \(path): No such file or directory (errno 2)")) }
            return .success(try! JSONParser.parse(content, lenient: true))
        }
        let (config, diagnostics) = parser.parse(document)
        return (config, diagnostics.all.map(\.description))
    }

    static let layout = #""layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "action-data": "x"}, {"tag": 2}, {"action": "audit"}]}}}"#

    static let plainLayout = #""layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1}]}}}"#

    @Test func relativePathsResolveAgainstTheConfigFolder() throws {
        let (config, messages) = parse(#"{"socket": {"path": "../run/t.sock", "mode": "0660"}, "eventLog": {"path": "events.jsonl"}, \#(Self.plainLayout)}"#)
        #expect(messages.isEmpty)
        let loaded = try #require(config)
        #expect(loaded.socket.path == "/etc/run/t.sock")
        #expect(loaded.socket.mode == 0o660)
        #expect(loaded.eventLog == .path("/etc/tapgrid/events.jsonl"))
        #expect(loaded.initialLayout == "a")
        // No handlers and no routes: the implicit log handler takes every hit.
        #expect(loaded.handlers.map(\.name) == ["log"])
    }

    @Test func routingIsResolvedAtLoad() throws {
        let (config, messages) = parse(#"{\#(Self.layout), "handlers": {"web": {"type": "url"}, "audit": {"type": "log"}}, "routes": [{"tags": [1], "handler": "web"}]}"#)
        let loaded = try #require(config)
        let tree = loaded.layouts[0].tree
        #expect(loaded.handlerName(tree.info(of: 1)!.handler) == "web")
        #expect(tree.info(of: 2)!.handler == -1)
        #expect(loaded.handlerName(tree.info(of: 3)!.handler) == "audit")  // its own action
        #expect(messages == [#"t.json: layout "a": tag 2 matches no route and there is no default route; taps there are "unrouted""#])
    }

    @Test(arguments: [
        (#"{"layouts": {}}"#, #"t.json: layouts: expected an object of named layouts with at least one, found {}"#),
        (#"{"layouts": {"a": {"width": 1, "height": 1, "grid": {}}, "b": {"width": 1, "height": 1, "grid": {}}}}"#,
         #"t.json: initialLayout: required when there is more than one layout; name one of "a", "b""#),
        (#"{\#(layout), "initialLayout": "z"}"#, #"t.json: initialLayout: "z" is not a layout; the layouts are "a""#),
        (#"{\#(layout), "handlers": {"h": {"type": "ftp"}}}"#, #"t.json: handlers.h.type: expected "url", "script", "layout", "log" or "mqtt", found "ftp""#),
        (#"{\#(layout), "handlers": {"h": {"type": "script"}}}"#, #"t.json: handlers.h: a script handler needs "interpreter" (e.g. ["/bin/sh", "-c"]) or "directory" (a folder of executables)"#),
        (#"{\#(layout), "handlers": {"h": {"type": "url", "timeoutSeconds": "x"}}}"#, #"t.json: handlers.h.timeoutSeconds: expected a number of seconds > 0 (at most 86400), found "x""#),
        (#"{\#(layout), "handlers": {"h": {"type": "url", "maxConcurrent": 0}}}"#, #"t.json: handlers.h.maxConcurrent: expected an integer from 1 to 1000000, found 0"#),
        (#"{\#(layout), "routes": [{"tags": [1], "handler": "nope"}]}"#, #"t.json: routes[0].handler: "nope" is not a handler; the handlers are none"#),
        (#"{\#(layout), "routes": [{"tags": ["1"], "handler": "nope"}]}"#, #"t.json: routes[0].tags: expected an array of integer tags, found ["1"]"#),
        (#"{\#(layout), "socket": {"mode": "999"}}"#, #"t.json: socket.mode: expected an octal mode string such as "0660", found "999""#),
        (#"{\#(layout), "eventLog": true}"#, #"t.json: eventLog: expected {"path": ...} or false, found true"#),
        (#"{"layouts": {"a": {"width": -1, "height": 1, "grid": {}}}}"#, #"t.json: layouts.a.width: expected a finite number >= 0, found -1"#),
        (#"{"layouts": {"a": {"width": 1, "height": 1, "direction": "up", "grid": {}}}}"#, #"t.json: layouts.a.direction: expected "ltr" or "rtl", found "up""#),
        (#"{"layouts": {"a": {"width": 1, "height": 1, "grid": "missing.json"}}}"#, #"t.json: layouts.a.grid: cannot read /etc/tapgrid/missing.json: No such file or directory (errno 2)"#),
        (#"{"layouts": {"a": {"width": 1, "height": 1, "grid": {"cols": [{"action": "nope"}]}}}}"#, #"t.json: layout "a", grid 0: "action": "nope" is not a handler; the handlers are "log""#),
    ])
    func errorsNameFilePathAndExpectation(config: String, message: String) {
        let (loaded, messages) = parse(config)
        #expect(loaded == nil)
        #expect(messages.contains(message), "\(messages)")
    }

    @Test func unknownKeysWarn() {
        let (config, messages) = parse(#"{\#(Self.plainLayout), "frobs": {}, "handlers": {"h": {"type": "log", "timeoutSeconds": 3}}, "routes": [{"handler": "h"}]}"#)
        #expect(config != nil)
        #expect(messages.contains(#"t.json: frobs: unknown key ignored; the config's keys are socket, eventLog, layouts, initialLayout, handlers, routes, touch, mqtt, panel, screen, styles and iconFont"#))
        #expect(messages.contains(#"t.json: handlers.h.timeoutSeconds: has no effect on a log handler (it starts no process)"#))
    }

    /// Misspelt keys get the "did you mean" grid keys get, at every level of the config.
    @Test func misspeltKeysGetAHint() {
        let config = #"""
            {"layouts": {"a": {"widht": 1, "width": 100, "height": 50, "direction": "ltr", "debounceMS": 5, "frobs": 1,
                               "grid": {"cols": [{"tag": 1}]}}},
             "sockett": {}, "intialLayout": "a", "socket": {"maxclients": 3, "allow": {"uid": [1]}},
             "eventLog": {"paht": "e.jsonl"},
             "handlers": {"h": {"type": "url", "comand": ["x"], "timeoutSecond": 1}},
             "routes": [{"tag": [1], "handler": "h"}]}
            """#
        let (loaded, messages) = parse(config)
        #expect(loaded != nil)
        #expect(messages == [
            #"t.json: sockett: unknown key ignored; did you mean "socket"?"#,
            #"t.json: intialLayout: unknown key ignored; did you mean "initialLayout"?"#,
            #"t.json: socket.maxclients: unknown key ignored; did you mean "maxClients"?"#,
            #"t.json: socket.allow.uid: unknown key ignored; did you mean "uids"?"#,
            #"t.json: eventLog.paht: unknown key ignored; did you mean "path"?"#,
            #"t.json: layouts.a.widht: unknown key ignored; did you mean "width"?"#,
            #"t.json: layouts.a.debounceMS: unknown key ignored; did you mean "debounceMs"?"#,
            #"t.json: layouts.a.frobs: unknown key ignored; a layout has width, height, direction, scale, grid, debounceMs, longPressMs, repeatMs, doubleTapMs and slop"#,
            #"t.json: handlers.h.comand: unknown key for a url handler ignored; did you mean "command"?"#,
            #"t.json: handlers.h.timeoutSecond: unknown key for a url handler ignored; did you mean "timeoutSeconds"?"#,
            #"t.json: routes[0].tag: unknown key ignored; did you mean "tags"?"#,
        ], "\(messages)")
    }
}
