import Testing

@testable import TapgridCore

/// The `mqtt` block and the `mqtt` handler: parsed values, and each message exactly.
@Suite struct MQTTConfigTests {
    static let layout = #""layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "name": "lamp"}, {"tag": 2, "name": "a/b"}, {"tag": 3, "name": "lamp"}]}}}"#

    func parse(_ mqtt: String, handlers: String = "") -> (Config?, [String]) {
        let text = #"{\#(Self.layout), "mqtt": \#(mqtt)\#(handlers.isEmpty ? "" : ", \"handlers\": " + handlers)}"#
        let document = try! JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            .failure(Diagnostic(.error, "no files: \(path)"))
        }
        let (config, diagnostics) = parser.parse(document)
        return (config, diagnostics.all.map(\.description).filter { !$0.contains("cannot be MQTT topic keys") && !$0.contains("share an MQTT topic key") && !$0.hasSuffix(#"taps there are "unrouted""#) })
    }

    @Test func theContractsExampleIsRead() throws {
        let (config, messages) = parse(#"""
            {"broker": "127.0.0.1:1883", "node": "kitchen", "groups": ["plates"], "prefix": "tapgrid",
             "username": "kitchen", "passwordFile": "secret/mqtt-password",
             "tls": {"caFile": "/etc/ssl/certs/ca.pem", "certFile": "c.pem", "keyFile": "k.pem"},
             "keepaliveSeconds": 20, "accept": ["tap", "use", "set", "load"], "maxAgeSeconds": 5,
             "homeAssistant": {"prefix": "homeassistant"}}
            """#, handlers: #"{"lights": {"type": "mqtt", "topic": "studio/lights", "qos": 0, "retain": true}}"#)
        #expect(messages.isEmpty)
        let mqtt = try #require(config?.mqtt)
        #expect(mqtt.broker == .tcp(host: "127.0.0.1", port: 1883))
        #expect(mqtt.node == "kitchen")
        #expect(mqtt.groups == ["plates"])
        #expect(mqtt.username == "kitchen")
        #expect(mqtt.passwordFile == "/etc/tapgrid/secret/mqtt-password")
        #expect(mqtt.tls == MQTTConfig.TLS(caFile: "/etc/ssl/certs/ca.pem", certFile: "/etc/tapgrid/c.pem", keyFile: "/etc/tapgrid/k.pem"))
        #expect(mqtt.keepaliveSeconds == 20)
        #expect(mqtt.accept == ["tap", "use", "set", "load"])
        #expect(mqtt.maxAgeSeconds == 5)
        #expect(mqtt.homeAssistantPrefix == "homeassistant")
        #expect(mqtt.files.map(\.key) == ["mqtt.passwordFile", "mqtt.tls.caFile", "mqtt.tls.certFile", "mqtt.tls.keyFile"])
        #expect(config?.handlers[0].kind == .mqtt(topic: "studio/lights", qos: 0, retain: true))
    }

    @Test func defaults() throws {
        let (config, messages) = parse(#"{"broker": "/run/mosquitto/../mosquitto.sock"}"#, handlers: #"{"m": {"type": "mqtt", "topic": "x"}}"#)
        #expect(messages.isEmpty)
        let mqtt = try #require(config?.mqtt)
        #expect(mqtt.broker == .unix(path: "/run/mosquitto.sock"))
        #expect(mqtt.node == nil)
        #expect(mqtt.prefix == "tapgrid")
        #expect(mqtt.accept == [])
        #expect(mqtt.keepaliveSeconds == 30)
        #expect(mqtt.maxAgeSeconds == 30)
        #expect(mqtt.homeAssistantPrefix == nil)
        #expect(config?.handlers[0].kind == .mqtt(topic: "x", qos: 1, retain: false))
    }

    @Test(arguments: [
        ("broker.example:8883", MQTTConfig.Broker.tcp(host: "broker.example", port: 8883)),
        ("[::1]:1884", .tcp(host: "::1", port: 1884)),
        ("[fe80::1%eth0]:1884", nil),
        ("localhost", nil), ("host:0", nil), ("host:65536", nil), (":1883", nil), ("a b:1883", nil), ("::1:1883", nil),
    ] as [(String, MQTTConfig.Broker?)])
    func brokerForms(text: String, expected: MQTTConfig.Broker?) {
        let (config, _) = parse(#"{"broker": "\#(text)"}"#)
        #expect(config?.mqtt?.broker == expected)
    }

    @Test(arguments: [
        (#""nope""#, #"t.json: mqtt: expected an object such as {"broker": "127.0.0.1:1883", "node": "kitchen"}, found "nope""#),
        ("{}", #"t.json: mqtt: needs "broker": "host:port" (e.g. "127.0.0.1:1883") or a Unix socket path starting with /"#),
        (#"{"broker": 1883}"#, #"t.json: mqtt.broker: expected "host:port" (a name, an IPv4 address or "[v6]:port") or a Unix socket path starting with /, found 1883"#),
        (#"{"broker": "localhost"}"#, #"t.json: mqtt.broker: "localhost" has no port; write "localhost:1883" (1883 is MQTT's port, 8883 with TLS)"#),
        (#"{"broker": "::1:1883"}"#, #"t.json: mqtt.broker: an IPv6 address is written in brackets with its port: "[::1]:1883""#),
        (#"{"broker": "a b:1883"}"#, #"t.json: mqtt.broker: "a b" is not a host name or an IPv4 address"#),
        (#"{"broker": "h:99999"}"#, #"t.json: mqtt.broker: "99999" is not a port; expected an integer from 1 to 65535"#),
        (#"{"broker": "[zz]:1"}"#, #"t.json: mqtt.broker: "zz" in brackets is not an IPv6 address"#),
        (#"{"broker": "h:1", "node": "kit/chen"}"#, #"t.json: mqtt.node: expected a node name of 1-64 characters of A-Z, a-z, 0-9, _ and -, found "kit/chen""#),
        (#"{"broker": "h:1", "node": "broadcast"}"#, #"t.json: mqtt.node: "broadcast" names the topics every node reads; it cannot be a node name"#),
        (##"{"broker": "h:1", "groups": ["a", "#"]}"##, ##"t.json: mqtt.groups[1]: expected a group name of 1-64 characters of A-Z, a-z, 0-9, _ and -, found "#""##),
        (#"{"broker": "h:1", "groups": ["broadcast"]}"#, #"t.json: mqtt.groups[0]: "broadcast" names the topics every node reads; it cannot be a group name"#),
        (#"{"broker": "h:1", "groups": ["a", "a"]}"#, #"t.json: mqtt.groups[1]: "a" is already listed (mqtt.groups[0])"#),
        (#"{"broker": "h:1", "node": "n", "groups": ["n"]}"#, #"t.json: mqtt.groups[0]: "n" is this node's name; a group must be named apart from it"#),
        (#"{"broker": "h:1", "groups": "a"}"#, #"t.json: mqtt.groups: expected an array of group names such as ["plates"], found "a""#),
        (#"{"broker": "h:1", "prefix": ""}"#, #"t.json: mqtt.prefix: expected a prefix name of 1-64 characters of A-Z, a-z, 0-9, _ and -, found """#),
        (#"{"broker": "h:1", "passwordFile": "p"}"#, #"t.json: mqtt.passwordFile: a password needs "username" too (MQTT sends no password without a user name)"#),
        (#"{"broker": "h:1", "username": ""}"#, #"t.json: mqtt.username: expected a non-empty string, found """#),
        (#"{"broker": "h:1", "tls": {"certFile": "c"}}"#, #"t.json: mqtt.tls: a client certificate ("certFile") needs its key ("keyFile")"#),
        (#"{"broker": "h:1", "tls": {"caFile": 1}}"#, #"t.json: mqtt.tls.caFile: expected a file path (a non-empty string), found 1"#),
        (#"{"broker": "h:1", "keepaliveSeconds": 1}"#, #"t.json: mqtt.keepaliveSeconds: expected an integer from 5 to 65535 (seconds), found 1"#),
        (#"{"broker": "h:1", "accept": ["tapp"]}"#, #"t.json: mqtt.accept[0]: expected one of "tap", "hit", "use", "reload", "status", "layouts", "set", "load", "unload", "wake", "screen", found "tapp"; did you mean "tap"?"#),
        (#"{"broker": "h:1", "maxAgeSeconds": 0}"#, #"t.json: mqtt.maxAgeSeconds: expected a number of seconds > 0 (at most 86400), found 0"#),
        (#"{"broker": "h:1", "homeAssistant": {"prefix": "home/assistant"}}"#, #"t.json: mqtt.homeAssistant.prefix: expected a prefix name of 1-64 characters of A-Z, a-z, 0-9, _ and -, found "home/assistant""#),
    ])
    func errors(mqtt: String, expected: String) {
        let (config, messages) = parse(mqtt)
        #expect(config == nil)
        #expect(messages == [expected])
    }

    @Test(arguments: [
        (#"{"broker": "h:1", "brokr": 1}"#, #"t.json: mqtt.brokr: unknown key ignored; did you mean "broker"?"#),
        (#"{"broker": "h:1", "zzzzzz": 1}"#, "t.json: mqtt.zzzzzz: unknown key ignored; use broker, node, groups, prefix, username, passwordFile, tls, keepaliveSeconds, accept, maxAgeSeconds, homeAssistant"),
        (#"{"broker": "h:1", "tls": {"cafile": "x"}}"#, #"t.json: mqtt.tls.cafile: unknown key ignored; did you mean "caFile"?"#),
        (#"{"broker": "h:1", "homeAssistant": {"prefx": "ha"}}"#, #"t.json: mqtt.homeAssistant.prefx: unknown key ignored; did you mean "prefix"?"#),
        (#"{"broker": "h:1", "accept": ["tap", "tap"]}"#, #"t.json: mqtt.accept[1]: "tap" is already listed (mqtt.accept[0])"#),
    ])
    func warnings(mqtt: String, expected: String) {
        let (config, messages) = parse(mqtt)
        #expect(config != nil)
        #expect(messages == [expected])
    }

    @Test(arguments: [
        (#"{"m": {"type": "mqtt"}}"#, #"t.json: handlers.m: an mqtt handler needs "topic" (e.g. "studio/lights")"#),
        (#"{"m": {"type": "mqtt", "topic": "a/+/b"}}"#, #"t.json: handlers.m.topic: expected a topic to publish to (a non-empty string without the wildcards + and #), found "a/+/b""#),
        (#"{"m": {"type": "mqtt", "topic": "a", "qos": 2}}"#, #"t.json: handlers.m.qos: expected 0 or 1, found 2"#),
        (#"{"m": {"type": "mqtt", "topic": "a", "retain": "yes"}}"#, #"t.json: handlers.m.retain: expected true or false, found "yes""#),
    ])
    func handlerErrors(handlers: String, expected: String) {
        let (config, messages) = parse(#"{"broker": "h:1"}"#, handlers: handlers)
        #expect(config == nil)
        #expect(messages == [expected])
    }

    @Test func handlerWarnings() {
        let (_, messages) = parse(#"{"broker": "h:1"}"#, handlers: #"{"m": {"type": "mqtt", "topic": "a", "qso": 1, "queue": 3}}"#)
        #expect(messages == [
            #"t.json: handlers.m.qso: unknown key for a mqtt handler ignored; did you mean "qos"?"#,
            "t.json: handlers.m.queue: has no effect on a mqtt handler (it starts no process)",
        ])
    }

    @Test func anMQTTHandlerNeedsTheBlock() {
        let text = #"{\#(Self.layout), "handlers": {"m": {"type": "mqtt", "topic": "a"}}}"#
        var parser = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "none")) }
        let (config, diagnostics) = parser.parse(try! JSONParser.parse(text, lenient: true))
        #expect(config == nil)
        #expect(diagnostics.all.map(\.description) == [#"t.json: handlers.m: an mqtt handler needs "mqtt" in the config (the broker it publishes to)"#])
    }

    @Test func cellsWhoseNamesCannotBeTopicKeysAreNamed() {
        let text = #"{\#(Self.layout), "mqtt": {"broker": "h:1"}}"#
        var parser = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "none")) }
        let (config, diagnostics) = parser.parse(try! JSONParser.parse(text, lenient: true))
        #expect(config != nil)
        #expect(diagnostics.all.map(\.description) == [
            #"t.json: layout "a": cell names that cannot be MQTT topic keys (1-64 characters of A-Z, a-z, 0-9, _ and -): their topics use the grid path instead: "a/b" (grid 1, key 1)"#,
            #"t.json: layout "a": cells share an MQTT topic key, so their action and state topics are one: "lamp" (grids 0 and 2)"#,
        ])
        // Without `mqtt`, names are not topic keys and nothing is said.
        var plain = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "none")) }
        #expect(plain.parse(try! JSONParser.parse(#"{\#(Self.layout)}"#, lenient: true)).diagnostics.all.isEmpty)
    }

    @Test(arguments: [
        ("lamp", "0", "lamp"), ("a b", "0/1", "0-1"), (nil, "", "root"), ("", "2", "2"), ("   ", "3", "3"),
        ("x+", "1/2/3", "1-2-3"), (String(repeating: "a", count: 65), "4", "4"),
    ] as [(String?, String, String)])
    func cellKeys(name: String?, path: String, key: String) {
        #expect(MQTTConfig.cellKey(name: name, path: path) == key)
    }

    /// An `mqtt` handler's tap is dispatched as a `publish` for the daemon's fleet connection to
    /// queue (a full queue makes it `busy` through `settle`).
    @Test func anMQTTHandlersTapAsksForAPublish() throws {
        let (config, _) = parse(#"{"broker": "h:1"}"#, handlers: #"{"m": {"type": "mqtt", "topic": "x"}}"#)
        var loaded = try #require(config)
        loaded.routes = [Route(tags: nil, handler: 0)]
        var parser = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "none")) }
        parser.route(&loaded.layouts[0], handlers: loaded.handlers, routes: loaded.routes)
        var engine = TapEngine(config: loaded, generation: 1)
        var decision = engine.tap(layout: engine.layoutIndex(for: nil)!, x: 10, y: 10, explicitLayout: false, now: 1_000_000)
        #expect(decision.outcome == .dispatched)
        #expect(decision.action == TapAction.publish)
        #expect(decision.reason == nil)
        engine.settle(&decision, outcome: .busy, reason: nil, now: 1_000_000)
        #expect(decision.outcome == .busy)
    }
}
