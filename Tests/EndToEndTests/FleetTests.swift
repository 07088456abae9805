import Foundation
import Testing

import TapgridTestSupport

/// A panel config on a broker: `lamp` (a toggle), `fan` (routed to an `mqtt` handler, and for
/// `long`), `plain`, and a grid without a name (its key is its path); `accept` and more `mqtt`
/// keys come from the caller.
func fleetConfig(broker: String, node: String = "kitchen", mqttExtra: String = #", "accept": ["tap", "hit", "use", "set", "load", "unload", "status", "layouts", "reload"]"#,
                 eventLog: String = #"{"path": "events.jsonl"}"#) -> String {
    """
    {
      "socket": { "path": "d.sock" },
      "eventLog": \(eventLog),
      "initialLayout": "home",
      "layouts": {
        "home": { "width": 400, "height": 100, "grid": { "cols": [
          { "name": "lamp", "tag": 1, "toggle": true },
          { "name": "fan", "tag": 2, "action-data": {"speed": 3} },
          { "name": "plain", "tag": 3 },
          { "tag": 4 } ] } },
        "other": { "width": 100, "height": 100, "grid": { "rows": [ { "name": "back", "tag": 5 } ] } }
      },
      "handlers": { "audit": { "type": "log" }, "fanout": { "type": "mqtt", "topic": "house/fan", "qos": 1 },
                    "menu": { "type": "log" } },
      "routes": [ { "tags": [2], "handler": "fanout" }, { "tags": [2], "handler": "menu", "on": "long" }, { "handler": "audit" } ],
      "mqtt": { "broker": "\(broker)", "node": "\(node)", "groups": ["plates", "upstairs"]\(mqttExtra) }
    }
    """
}

/// Starts a daemon on `config` and waits until it said `online` on the broker.
func startFleetDaemon(_ config: String, watcher: MQTTWatcher, node: String = "kitchen", environment: [String: String] = [:]) throws -> DaemonProcess {
    let daemon = try DaemonProcess(config: config, environment: environment)
    guard watcher.first("tapgrid/\(node)/availability", where: { $0.payload == "online" }) != nil else {
        throw TestFailure("\(node) never said online: \(daemon.stderr)")
    }
    return daemon
}

/// The contract's topic table against a real mosquitto: what each topic carries, retained or
/// not, and commands as socket requests.
@Suite(.serialized) struct FleetTests {
    @Test func everyTopicOfTheTable() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let daemon = try startFleetDaemon(fleetConfig(broker: broker.address), watcher: watcher)
        let client = try daemon.connect()
        let lamp = try client.request(#"{"x": 10, "y": 10}"#)
        #expect(lamp.string("outcome") == "dispatched")
        let fan = try client.request(#"{"x": 110, "y": 10, "id": "f"}"#)
        #expect(fan.string("outcome") == "dispatched")
        #expect(try client.request(#"{"x": 390, "y": 10}"#).string("outcome") == "dispatched")
        #expect(try client.request(#"{"x": 900, "y": 10}"#).string("outcome") == "miss")
        _ = try client.request(#"{"op": "set", "grid": "plain", "text": "42 %"}"#)

        // Events: the same JSON text as the log's lines, in order (state records too).
        let logLines = { (try? String(contentsOfFile: daemon.eventLogPath, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? [] }
        let events = watcher.wait { $0.filter { $0.topic == "tapgrid/kitchen/events" }.count >= logLines().count && logLines().count == 6 }
            .filter { $0.topic == "tapgrid/kitchen/events" }
        #expect(events.map(\.payload) == logLines())
        #expect(events.allSatisfy { !$0.retained })

        // Actions: the class of each tap that is not a miss; the unnamed grid's key is its path.
        let actions = watcher.wait { $0.filter { $0.topic.hasPrefix("tapgrid/kitchen/action/") }.count >= 3 }
            .filter { $0.topic.hasPrefix("tapgrid/kitchen/action/") }
        #expect(actions.map(\.description) == [
            "tapgrid/kitchen/action/home/lamp tap", "tapgrid/kitchen/action/home/fan tap", "tapgrid/kitchen/action/home/3 tap"])
        // The mqtt handler's message.
        #expect(watcher.first("house/fan")?.payload == #"{"speed":3}"#)
        // State: retained, the four keys.
        let plain = try #require(watcher.first("tapgrid/kitchen/state/home/plain"))
        #expect(plain.payload == #"{"text":"42 %","active":null,"value":null,"enabled":null}"#)
        #expect(watcher.first("tapgrid/kitchen/state/home/lamp")?.payload == #"{"text":null,"active":true,"value":null,"enabled":null}"#)

        // Commands: a tap from the broker is recorded with source mqtt and answered on result.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/tap", payload: #"{"x": 210, "y": 5, "id": 77}"#)
        let result = try #require(watcher.first("tapgrid/kitchen/result") { $0.object?.int("id") == 77 }?.object)
        #expect(result.string("outcome") == "dispatched")
        #expect(result.string("topic") == "tapgrid/kitchen/command/tap")
        let mqttTap = try #require(try daemon.eventRecords().last { $0.int("seq") == result.int("seq") })
        #expect(mqttTap.string("source") == "mqtt")
        // `use` moves the retained layout topic.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/use", payload: #"{"layout": "other"}"#)
        #expect(watcher.first("tapgrid/kitchen/layout") { $0.payload == "other" } != nil)

        // Retained as the broker keeps them, seen by a subscriber that comes later.
        let late = try MQTTWatcher(port: broker.port, topics: ["tapgrid/kitchen/#"])
        let retained = late.wait { seen in ["availability", "layout", "status"].allSatisfy { name in seen.contains { $0.topic == "tapgrid/kitchen/" + name } } }
        #expect(retained.first { $0.topic == "tapgrid/kitchen/availability" }?.description == "R tapgrid/kitchen/availability online")
        #expect(retained.first { $0.topic == "tapgrid/kitchen/layout" }?.description == "R tapgrid/kitchen/layout other")
        let status = try #require(retained.first { $0.topic == "tapgrid/kitchen/status" })
        #expect(status.retained)
        #expect(status.object?.string("node") == "kitchen")
        #expect(status.object?.string("version") != nil)
        #expect((status.object?["mqtt"] as? [String: Any])?["connected"] as? Bool == true)
        #expect(retained.contains { $0.topic == "tapgrid/kitchen/state/home/plain" && $0.retained })

        // status over the socket: the mqtt block.
        let socketStatus = try client.request(#"{"op": "status"}"#)
        let block = try #require(socketStatus.object("mqtt"))
        #expect(block["connected"] as? Bool == true)
        #expect(block["broker"] as? String == broker.address)
        #expect(block["lastError"] is NSNull)

        // A clean stop says offline (the will is not used for it).
        #expect(try daemon.stop() == 0)
        #expect(watcher.first("tapgrid/kitchen/availability") { $0.payload == "offline" } != nil)
        daemon.checkNoDroppedDescriptors()
    }

    /// Commands outside `accept`, unknown ops, retained commands and hostile payloads are each
    /// refused on `result` with what was wrong; nothing of them is run or recorded, and the
    /// daemon keeps serving its socket.
    @Test func refusedCommands() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let daemon = try startFleetDaemon(fleetConfig(broker: broker.address, mqttExtra: #", "accept": ["tap", "status"]"#), watcher: watcher)
        let folder = try makeTempDir()
        defer { removeTempDir(folder) }
        var cases: [(topic: String, payload: String?, file: String?, code: String)] = [
            ("use", #"{"layout": "other"}"#, nil, "forbidden"),
            ("load", #"{"layout": "x", "definition": {}}"#, nil, "forbidden"),
            ("down", #"{"x": 1, "y": 1}"#, nil, "unknown_op"),
            ("explode", "{}", nil, "unknown_op"),
            ("tap", "not json", nil, "parse_error"),
            ("tap", "[1, 2]", nil, "bad_request"),
            ("tap", "42", nil, "bad_request"),
            ("tap", #"{"x": 1, "y": 1"#, nil, "parse_error"),
            ("tap", #"{"x": 1, "y": 1} trailing"#, nil, "parse_error"),
            ("tap", #"{"op": "tap", "x": 1, "y": 1}"#, nil, "bad_request"),
            ("tap", #"{"x": 1, "x": 2, "y": 1}"#, nil, "bad_request"),
            ("tap", #"{"x": "ten", "y": 1}"#, nil, "bad_request"),
            // The whole payload is read as strict JSON first (docs/fleet.md "Running a fleet"): a number
            // that overflows is a parse error here, where the socket's scanner says bad_request.
            ("tap", #"{"x": 1e999, "y": 1}"#, nil, "parse_error"),
            ("tap", #"{"y": 1}"#, nil, "bad_request"),
            ("tap", #"{"x": NaN, "y": 1}"#, nil, "parse_error"),
            ("tap", #"{"x": 1, "y": 1, "layout": "nowhere"}"#, nil, "unknown_layout"),
            ("tap", #"{'x': 1}"#, nil, "parse_error"),
            ("tap", "\u{FEFF}{}", nil, "parse_error"),
        ]
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        cases.append(("tap", nil, try write("deep", Array(repeating: UInt8(ascii: "["), count: 10_000)), "parse_error"))
        cases.append(("tap", nil, try write("deepobject", Array((String(repeating: #"{"a":"#, count: 5_000)).utf8)), "parse_error"))
        cases.append(("tap", nil, try write("big", Array(repeating: UInt8(ascii: " "), count: 2 << 20)), "bad_request"))
        cases.append(("tap", nil, try write("bigvalid", Array((#"{"x": 1, "y": 1, "pad": ""# + String(repeating: "a", count: 1 << 20) + #""}"#).utf8)), "bad_request"))
        cases.append(("tap", nil, try write("utf8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]), "parse_error"))
        cases.append(("tap", nil, try write("surrogate", Array(#"{"x": 1, "y": 1, "s": "\ud800"}"#.utf8)), "parse_error"))
        cases.append(("tap", nil, try write("nul", [0x7B, 0x00, 0x7D]), "parse_error"))
        cases.append(("tap", nil, try write("zeros", Array(repeating: 0, count: 4096)), "parse_error"))
        cases.append(("tap", nil, try write("random", (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }), "parse_error"))
        cases.append(("tap", nil, try write("control", Array("{\"x\": 1, \"y\": 1, \"s\": \"a\u{01}b\"}".utf8)), "parse_error"))
        cases.append(("tap", nil, try write("longkey", Array(("{\"" + String(repeating: "k", count: 100_000) + "\": 1}").utf8)), "bad_request"))
        cases.append(("tap", nil, try write("manykeys", Array(("{" + (0..<20_000).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + "}").utf8)), "bad_request"))
        #expect(cases.count >= 30)
        for (index, command) in cases.enumerated() {
            let topic = "tapgrid/kitchen/command/" + command.topic
            if let file = command.file { try mqttPublish(port: broker.port, topic: topic, file: file) } else {
                try mqttPublish(port: broker.port, topic: topic, payload: command.payload!)
            }
            let answers = watcher.wait(timeout: 10) { $0.filter { $0.topic == "tapgrid/kitchen/result" }.count > index }
                .filter { $0.topic == "tapgrid/kitchen/result" }
            let answer = try #require(answers.count > index ? answers[index].object : nil, "case \(index): no result")
            let error = try #require(answer["error"] as? [String: Any], "case \(index) \(command): \(answer)")
            #expect(error["code"] as? String == command.code, "case \(index) \(command.payload ?? command.file!): \(error)")
            #expect(!((error["message"] as? String) ?? "").isEmpty)
            #expect(answer.string("topic") == topic)
        }
        // A retained tap is never run, however it arrives (now, or on a later subscription).
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/tap", payload: #"{"x": 10, "y": 10, "id": "old"}"#, retain: true)
        let retained = try #require(watcher.first("tapgrid/kitchen/result") { $0.object?.string("id") == "old" }?.object)
        #expect((retained["error"] as? [String: Any])?["code"] as? String == "bad_request")
        #expect(try daemon.eventRecords().isEmpty, "nothing refused was recorded")
        // Still serving, over the socket and the broker.
        #expect(try daemon.connect().request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/tap", payload: #"{"x": 10, "y": 10, "id": "new"}"#)
        #expect(watcher.first("tapgrid/kitchen/result") { $0.object?.string("id") == "new" }?.object?.string("outcome") == "dispatched")
        // Clear the retained command so it cannot reach another test.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/tap", payload: "", retain: true)
        #expect(try daemon.stop() == 0)
    }

    /// Reloads asked for over MQTT: each gets its own result, with its own id and the topic
    /// it came on, even two that arrive together (the second waits for the first's load).
    /// Discovery without `use` accepted: no layout select (and the log says why), triggers at QoS 1.
    @Test func reloadsOverMQTTEachGetTheirOwnResult() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let extra = #", "accept": ["tap", "reload"], "homeAssistant": {"prefix": "homeassistant"}"#
        let daemon = try startFleetDaemon(fleetConfig(broker: broker.address, mqttExtra: extra), watcher: watcher)
        // Two messages in one connection's burst, on the node's topic.
        let burst = try runProgram("/bin/sh", ["-c", #"printf '{"id": 11}\n{"id": 12}\n' | /usr/bin/mosquitto_pub -h 127.0.0.1 -p \#(broker.port) -V mqttv5 -q 1 -t tapgrid/kitchen/command/reload -l"#])
        #expect(burst.code == 0, "\(burst.err)")
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/command/reload", payload: #"{"id": "b"}"#)
        let results = watcher.wait { $0.filter { $0.topic == "tapgrid/kitchen/result" }.count >= 3 }
            .filter { $0.topic == "tapgrid/kitchen/result" }.compactMap(\.object)
        #expect(results.count == 3, "\(results)")
        let eleven = try #require(results.first { $0.int("id") == 11 }, "\(results)")
        let twelve = try #require(results.first { $0.int("id") == 12 }, "\(results)")
        let broadcast = try #require(results.first { $0.string("id") == "b" }, "\(results)")
        #expect(eleven.string("topic") == "tapgrid/kitchen/command/reload")
        #expect(twelve.string("topic") == "tapgrid/kitchen/command/reload")
        #expect(broadcast.string("topic") == "tapgrid/broadcast/command/reload")
        for result in [eleven, twelve, broadcast] { #expect(result["generation"] != nil && result["error"] == nil, "\(result)") }
        #expect(!results.contains { $0["id"] == nil }, "every result names its id: \(results)")

        let ha = "homeassistant/device_automation/tapgrid_kitchen/"
        let triggers = watcher.wait { $0.contains { $0.topic == ha + "home_fan_long/config" } }.filter { $0.topic.hasPrefix(ha) }
        #expect(!triggers.isEmpty && triggers.allSatisfy { $0.object?.int("qos") == 1 }, "\(triggers.map(\.payload))")
        #expect(watcher.on("homeassistant/select/tapgrid_kitchen/layout/config").isEmpty)
        #expect(daemon.stderr.contains(#"mqtt: Home Assistant: no Home Assistant layout select: "use" is not in mqtt.accept"#), "\(daemon.stderr)")
        #expect(try daemon.stop() == 0)
    }

    /// A slider over MQTT (docs/touch.md "Sliders"): a drag's `change` at QoS 0 and its
    /// `release` at QoS 1 on the action topic, the value in the retained state, Home
    /// Assistant's `number` for it, and a value sent as that number's command moving it.
    @Test func aSliderOverMQTTAndHomeAssistantsNumber() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let config = fleetConfig(broker: broker.address, mqttExtra: #", "accept": ["tap", "set"], "homeAssistant": {"prefix": "homeassistant"}"#)
            .replacingOccurrences(of: #"{ "tag": 4 }"#, with: #"{ "name": "volume", "tag": 4, "slider": {"min": 0, "max": 100, "step": 1, "changeMs": 50} }"#)
        let daemon = try startFleetDaemon(config, watcher: watcher)
        let number = try #require(watcher.first("homeassistant/number/tapgrid_kitchen/home_volume/config")?.object)
        #expect(number.string("mode") == "slider")
        #expect(number["min"] as? Int == 0 && number["max"] as? Int == 100 && number["step"] as? Int == 1, "\(number)")
        #expect(number.string("state_topic") == "tapgrid/kitchen/state/home/volume")
        #expect(number.string("command_topic") == "tapgrid/kitchen/command/set")
        #expect(!watcher.messages.contains { $0.topic.hasPrefix("homeassistant/device_automation/tapgrid_kitchen/home_volume_") },
                "a slider gets no triggers")

        // A drag over volume (x 300-400: value x - 300) by the socket's touch ops.
        let c = try daemon.connect()
        _ = try c.request(#"{"op": "down", "x": 310, "y": 50}"#)
        _ = try c.request(#"{"op": "move", "x": 350, "y": 50}"#)
        usleep(120_000)
        _ = try c.request(#"{"op": "move", "x": 380, "y": 50}"#)
        usleep(120_000)
        _ = try c.request(#"{"op": "up", "x": 390, "y": 50}"#)
        let actions = watcher.wait { $0.contains { $0.topic == "tapgrid/kitchen/action/home/volume" && $0.payload.contains("release") } }
            .filter { $0.topic == "tapgrid/kitchen/action/home/volume" }
        #expect(actions.map(\.payload) == [#"{"class":"change","value":50}"#, #"{"class":"change","value":80}"#, #"{"class":"release","value":90}"#],
                "\(actions)")
        #expect(actions.map(\.qos) == [0, 0, 1], "change at QoS 0, release at QoS 1: \(actions)")
        #expect(watcher.first("tapgrid/kitchen/state/home/volume") { $0.retained == false && $0.object?["value"] as? Int == 90 } != nil)

        // Home Assistant's number sends its command template filled with a float.
        let template = try #require(number.string("command_template"))
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/set", payload: template.replacingOccurrences(of: "{{ value }}", with: "42.0"))
        #expect(watcher.first("tapgrid/kitchen/state/home/volume") { $0.object?["value"] as? Int == 42 } != nil,
                "\(watcher.on("tapgrid/kitchen/state/home/volume")) \(watcher.on("tapgrid/kitchen/result"))")
        let late = try MQTTWatcher(port: broker.port, topics: ["tapgrid/kitchen/state/home/volume"])
        #expect(late.first("tapgrid/kitchen/state/home/volume")?.object?["value"] as? Int == 42, "retained: Home Assistant reads it on start")
        #expect(try daemon.stop() == 0)
    }

    /// The screen over MQTT (docs/screen.md): `P/N/screen` retained, `wake` and `screen`
    /// commands (reason `mqtt`), and Home Assistant's switch turning it off and on.
    @Test func theScreenOverMQTTAndHomeAssistantsSwitch() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        var config = fleetConfig(broker: broker.address, mqttExtra: #", "accept": ["tap", "wake", "screen"], "homeAssistant": {"prefix": "homeassistant"}"#)
        let end = config.range(of: "}", options: .backwards)!
        config.replaceSubrange(end, with: #", "screen": {"offSeconds": 60}}"#)
        let daemon = try startFleetDaemon(config, watcher: watcher)
        #expect(watcher.first("tapgrid/kitchen/screen") { $0.payload == "on" } != nil, "on at connect")
        let switchConfig = try #require(watcher.first("homeassistant/switch/tapgrid_kitchen/screen/config")?.object)
        #expect(switchConfig.string("state_topic") == "tapgrid/kitchen/screen")
        #expect(switchConfig.string("command_topic") == "tapgrid/kitchen/command/screen")
        #expect(switchConfig.string("payload_off") == #"{"state": "off"}"#)
        #expect(switchConfig.string("availability_topic") == "tapgrid/kitchen/availability")

        // Home Assistant's switch sends its payload_off to the command topic.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/screen", payload: #"{"state": "off"}"#)
        #expect(watcher.first("tapgrid/kitchen/screen") { $0.payload == "off" } != nil)
        let late = try MQTTWatcher(port: broker.port, topics: ["tapgrid/kitchen/screen"])
        #expect(late.first("tapgrid/kitchen/screen")?.payload == "off", "retained: a later subscriber gets it")
        let result = try #require(watcher.first("tapgrid/kitchen/result") { $0.object?.string("topic") == "tapgrid/kitchen/command/screen" }?.object)
        #expect(result.object("screen")?.string("state") == "off")
        // A plain MQTT tap on the dark screen is routed and does not wake it.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/command/tap", payload: #"{"x": 210, "y": 5, "id": 8}"#)
        #expect(watcher.first("tapgrid/kitchen/result") { $0.object?.int("id") == 8 }?.object?.string("outcome") == "dispatched")
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/command/wake", payload: "{}")
        #expect(fleetWait(timeout: 5) { watcher.on("tapgrid/kitchen/screen").last?.payload == "on" })
        #expect(fleetWait(timeout: 5) {
            (try? daemon.eventRecords())?.filter { $0.string("event") == "screen" }.map { "\($0.string("state") ?? "") \($0.string("reason") ?? "")" } == ["on start", "off mqtt", "on mqtt"]
        })
        #expect(try daemon.stop() == 0)
    }

    /// Group and broadcast commands reach the node; pushed layouts follow node > group >
    /// broadcast, errors named with their topic; Home Assistant discovery follows them.
    @Test func groupsBroadcastPushedLayoutsAndDiscovery() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let extra = #", "accept": ["tap", "use", "load", "set"], "homeAssistant": {"prefix": "homeassistant"}"#
        let daemon = try startFleetDaemon(fleetConfig(broker: broker.address, mqttExtra: extra), watcher: watcher)
        // Discovery: a trigger per cell and class, and the layout select.
        let ha = "homeassistant/device_automation/tapgrid_kitchen/"
        let triggers = watcher.wait { $0.contains { $0.topic == ha + "home_fan_long/config" } }.filter { $0.topic.hasPrefix(ha) }
        let fanLong = try #require(triggers.first { $0.topic == ha + "home_fan_long/config" })
        #expect(fanLong.object?.string("topic") == "tapgrid/kitchen/action/home/fan")
        #expect(fanLong.object?.string("payload") == "long")
        #expect(fanLong.object?.string("type") == "button_long_press")
        #expect(triggers.contains { $0.topic == ha + "home_lamp_tap/config" })
        #expect(!triggers.contains { $0.topic == ha + "home_lamp_long/config" })
        let select = try #require(watcher.first("homeassistant/select/tapgrid_kitchen/layout/config")?.object)
        #expect(select["options"] as? [String] == ["home", "other"])
        #expect(select.string("command_topic") == "tapgrid/kitchen/command/use")

        // Group and broadcast commands.
        try mqttPublish(port: broker.port, topic: "tapgrid/upstairs/command/use", payload: #"{"layout": "other"}"#)
        #expect(watcher.first("tapgrid/kitchen/layout") { $0.payload == "other" } != nil)
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/command/use", payload: #"{"layout": "home", "id": 3}"#)
        #expect(watcher.first("tapgrid/kitchen/result") { $0.object?.int("id") == 3 }?.object?.string("topic") == "tapgrid/broadcast/command/use")
        #expect(watcher.first("tapgrid/kitchen/layout") { $0.payload == "home" } != nil)
        try mqttPublish(port: broker.port, topic: "tapgrid/cellar/command/use", payload: #"{"layout": "other", "id": 4}"#)

        // Pushed layouts: broadcast, then the node's own (wins), then the node's taken back.
        let promo = { (tag: Int, name: String) in #"{"width": 50, "height": 50, "grid": {"cols": [{"name": "\#(name)", "tag": \#(tag)}]}}"# }
        func results() -> [[String: Any]] { watcher.on("tapgrid/kitchen/result").compactMap(\.object) }
        func hitName() throws -> String? {
            let reply = try daemon.connect().request(#"{"op": "hit", "layout": "promo", "x": 10, "y": 10}"#)
            return reply.object("hit")?["name"] as? String
        }
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/layouts/promo", payload: promo(1, "everyone"), retain: true)
        watcher.wait { _ in results().contains { $0.string("topic") == "tapgrid/broadcast/layouts/promo" } }
        #expect(try hitName() == "everyone")
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/layouts/promo", payload: promo(2, "mine"), retain: true)
        watcher.wait { _ in results().contains { $0.string("topic") == "tapgrid/kitchen/layouts/promo" } }
        #expect(try hitName() == "mine")
        // A group's under the node's changes nothing.
        try mqttPublish(port: broker.port, topic: "tapgrid/plates/layouts/promo", payload: promo(3, "group"), retain: true)
        usleep(300_000)
        #expect(try hitName() == "mine")
        // The node's emptied: the group's takes over; then the group's: broadcast's.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/layouts/promo", payload: "", retain: true)
        watcher.wait { _ in (try? hitName()) == "group" }
        #expect(try hitName() == "group")
        try mqttPublish(port: broker.port, topic: "tapgrid/plates/layouts/promo", payload: "", retain: true)
        watcher.wait { _ in (try? hitName()) == "everyone" }
        #expect(try hitName() == "everyone")
        // The select now offers promo; its trigger exists.
        #expect(watcher.first("homeassistant/select/tapgrid_kitchen/layout/config") { ($0.object?["options"] as? [String]) == ["home", "other", "promo"] } != nil)
        #expect(watcher.first(ha + "promo_everyone_tap/config") != nil)
        // A definition with an error: refused, named with its topic; the layout in place stays.
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/layouts/promo", payload: #"{"width": 50, "height": 50, "grid": {"cols": [{"size": "lots"}]}}"#)
        watcher.wait { _ in results().contains { $0["error"] != nil && $0.string("topic") == "tapgrid/kitchen/layouts/promo" } }
        let refused = try #require(results().last { $0.string("topic") == "tapgrid/kitchen/layouts/promo" })
        #expect((refused["error"] as? [String: Any])?["code"] as? String == "config_error")
        let message = (refused["error"] as? [String: Any])?["message"] as? String
        #expect(message?.contains("load.definition") == true, "\(message ?? "no message")")
        #expect(try hitName() == "everyone")
        // Broadcast's taken back: unloaded, and its trigger's config emptied.
        let emptiedBefore = watcher.on(ha + "promo_everyone_tap/config").filter { $0.payload.isEmpty }.count
        try mqttPublish(port: broker.port, topic: "tapgrid/kitchen/layouts/promo", payload: "", retain: true)
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/layouts/promo", payload: "", retain: true)
        let emptied = watcher.wait { $0.filter { $0.topic == ha + "promo_everyone_tap/config" && $0.payload.isEmpty }.count > emptiedBefore }
        #expect(emptied.filter { $0.topic == ha + "promo_everyone_tap/config" && $0.payload.isEmpty }.count > emptiedBefore)
        #expect(try daemon.connect().request(#"{"op": "hit", "layout": "promo", "x": 10, "y": 10}"#).object("error")?["code"] as? String == "unknown_layout")
        // Home Assistant restarting: discovery is published again.
        let before = watcher.on("homeassistant/select/tapgrid_kitchen/layout/config").count
        try mqttPublish(port: broker.port, topic: "homeassistant/status", payload: "online")
        #expect(watcher.wait { $0.filter { $0.topic == "homeassistant/select/tapgrid_kitchen/layout/config" }.count > before }
            .filter { $0.topic == "homeassistant/select/tapgrid_kitchen/layout/config" }.count > before)
        // The cellar group's command never reached this node.
        #expect(!results().contains { $0.int("id") == 4 })
        #expect(try daemon.stop() == 0)
    }

    /// Actions are never sent late: one that waited longer than `maxAgeSeconds` for the broker
    /// is dropped and counted; the tap's event still arrives (the event log keeps it).
    @Test func actionsOlderThanMaxAgeAreDroppedNotSentLate() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let daemon = try startFleetDaemon(fleetConfig(broker: broker.address, mqttExtra: #", "maxAgeSeconds": 0.5"#), watcher: watcher)
        broker.kill()
        let client = try daemon.connect()
        let late = try client.request(#"{"x": 10, "y": 10}"#)
        #expect(late.string("outcome") == "dispatched")
        usleep(1_500_000)
        try broker.start()
        let after = try MQTTWatcher(port: broker.port)
        // Once connected again, a fresh tap's action goes out; the old one never does.
        let deadline = Date().addingTimeInterval(40)
        while Date() < deadline, (try? client.request(#"{"op": "status"}"#).object("mqtt")?["connected"] as? Bool) != true { usleep(50_000) }
        let fresh = try client.request(#"{"x": 110, "y": 10}"#)
        #expect(after.first("tapgrid/kitchen/action/home/fan") != nil)
        let seqs = after.wait { $0.filter { $0.topic == "tapgrid/kitchen/events" }.compactMap { $0.object?.int("seq") }.contains(fresh.int("seq")!) }
            .filter { $0.topic == "tapgrid/kitchen/events" }.compactMap { $0.object?.int("seq") }
        #expect(seqs.contains(late.int("seq")!), "the late tap's record still reaches the broker")
        #expect(after.on("tapgrid/kitchen/action/home/lamp").isEmpty, "the stale action was never sent")
        let status = try client.request(#"{"op": "status"}"#).object("mqtt")
        #expect(status?["dropped"] as? Int == 1)
        #expect(try daemon.stop() == 0)
    }

    /// With `"eventLog": false`, records wait in memory for the broker and still arrive.
    @Test func withoutAnEventLogRecordsWaitInMemory() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port)
        let daemon = try startFleetDaemon(fleetConfig(broker: broker.address, eventLog: "false"), watcher: watcher)
        let client = try daemon.connect()
        for x in [10, 110, 210] { #expect(try client.request("{\"x\": \(x), \"y\": 10}").string("outcome") == "dispatched") }
        let events = watcher.wait { $0.filter { $0.topic == "tapgrid/kitchen/events" }.count >= 4 }.filter { $0.topic == "tapgrid/kitchen/events" }
        // The toggle's state record, then three taps.
        #expect(events.compactMap { $0.object?.int("seq") } == [1, 1, 2, 3])
        #expect(events.first?.object?.string("event") == "state")
        broker.kill()
        #expect(try client.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
        try broker.start()
        let after = try MQTTWatcher(port: broker.port)
        let more = after.wait(timeout: 40) { $0.filter { $0.topic == "tapgrid/kitchen/events" }.count >= 2 }.filter { $0.topic == "tapgrid/kitchen/events" }
        #expect(more.compactMap { $0.object?.int("seq") } == [4, 4], "the state record and the tap made while the broker was away")
        #expect(try daemon.stop() == 0)
    }

    /// TLS with `caFile`: a broker whose certificate a test CA signed for `localhost`; the
    /// daemon names it by that name (resolved on the worker, checked against the certificate)
    /// and publishes over it. A daemon given another CA is refused, says why, and serves taps.
    @Test func tlsWithACertificateAuthority() throws {
        let folder = try makeTempDir()
        defer { removeTempDir(folder) }
        func openssl(_ arguments: [String]) throws {
            let result = try runProgram("/usr/bin/openssl", arguments, currentDirectory: folder)
            if result.code != 0 { throw TestFailure("openssl \(arguments.joined(separator: " ")): \(result.err)") }
        }
        for name in ["ca", "other"] {
            try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=tapgrid test \(name)",
                         "-keyout", "\(name).key", "-out", "\(name).pem"])
        }
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: folder + "/san.ext", atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                     "-extfile", "san.ext", "-out", "server.pem"])
        let tlsPort = try MosquittoBroker.freePort()
        let broker = try MosquittoBroker(extraConfig: """
            listener \(tlsPort) 127.0.0.1
            cafile \(folder)/ca.pem
            certfile \(folder)/server.pem
            keyfile \(folder)/server.key
            """)
        let watcher = try MQTTWatcher(port: broker.port)
        let tls = #", "accept": ["tap"], "tls": {"caFile": "\#(folder)/ca.pem"}"#
        let daemon = try startFleetDaemon(fleetConfig(broker: "localhost:\(tlsPort)", mqttExtra: tls), watcher: watcher)
        #expect(try daemon.connect().request(#"{"x": 210, "y": 10}"#).string("outcome") == "dispatched")
        #expect(watcher.first("tapgrid/kitchen/action/home/plain") != nil)
        #expect(try daemon.stop() == 0)

        let wrongCA = #", "tls": {"caFile": "\#(folder)/other.pem"}"#
        let refused = try DaemonProcess(config: fleetConfig(broker: "localhost:\(tlsPort)", node: "hall", mqttExtra: wrongCA))
        let client = try refused.connect()
        var lastError: String?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            lastError = try client.request(#"{"op": "status"}"#).object("mqtt")?["lastError"] as? String
            if let lastError, lastError != "not connected yet" { break }
            usleep(50_000)
        }
        #expect(lastError != nil && lastError != "not connected yet", "\(lastError ?? "nil")")
        #expect(try client.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
        #expect(watcher.on("tapgrid/hall/availability").isEmpty)
        #expect(try refused.stop() == 0)
    }
}
