import Testing

@testable import TapgridCore

/// Home Assistant discovery: the exact topics and payloads for a small config that routes every
/// class, the names that get no entity, and the topics emptied when a cell or class goes away.
@Suite struct HomeAssistantDiscoveryTests {
    static let topics = FleetTopics(prefix: "tapgrid", node: "kitchen", groups: ["plates"], homeAssistantPrefix: "homeassistant")

    /// A config of `layouts` (a JSON object's members) routed by `routes` to one log handler,
    /// taking the commands in `accept` (`use` by default: the layout select needs it).
    func config(_ layouts: String, routes: String, accept: String = #"["use"]"#) throws -> Config {
        let text = #"{"layouts": {\#(layouts)}, "initialLayout": "home", "handlers": {"log": {"type": "log"}}, "routes": [\#(routes)], "mqtt": {"broker": "h:1", "node": "kitchen", "accept": \#(accept), "homeAssistant": {}}}"#
        var parser = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "no files")) }
        let (config, diagnostics) = parser.parse(try JSONParser.parse(text, lenient: true))
        return try #require(config, "\(diagnostics.all.map(\.description))")
    }

    static let home = #""home": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "name": "lamp"}, {"tag": 2, "name": "blind"}, {"tag": 3, "name": "fan"}, {"tag": 4, "name": "a b"}]}}"#
    static let settings = #""settings": {"width": 10, "height": 10, "grid": {"cols": [{"tag": 5}]}}"#
    static let everyClass = #"{"handler": "log"}, {"tags": [1], "handler": "log", "on": "long"}, {"tags": [2], "handler": "log", "on": ["hold"]}, {"tags": [3], "handler": "log", "on": ["double"]}"#

    func messages(_ config: Config) -> [(topic: String, payload: JSONValue)] {
        HomeAssistantDiscovery.messages(config: config, topics: Self.topics, prefix: "homeassistant", version: "1.2.3").map { message in
            (message.topic, (try? JSONParser.parse(message.payload, lenient: false)) ?? .string("not JSON: " + String(decoding: message.payload, as: UTF8.self)))
        }
    }

    static let device: JSONValue = .object([
        JSONMember(key: "identifiers", value: .array([.string("tapgrid_kitchen")])),
        JSONMember(key: "name", value: .string("tapgrid kitchen")),
        JSONMember(key: "manufacturer", value: .string("tapgrid")),
        JSONMember(key: "model", value: .string("tapgridd")),
        JSONMember(key: "sw_version", value: .string("1.2.3")),
    ])

    func trigger(_ layout: String, _ cell: String, _ tapClass: String, type: String, subtype: String) -> (topic: String, payload: JSONValue) {
        ("homeassistant/device_automation/tapgrid_kitchen/\(layout)_\(cell)_\(tapClass)/config", .object([
            JSONMember(key: "automation_type", value: .string("trigger")),
            JSONMember(key: "topic", value: .string("tapgrid/kitchen/action/\(layout)/\(cell)")),
            JSONMember(key: "payload", value: .string(tapClass)),
            JSONMember(key: "qos", value: .number(JSONNumber(1))),
            JSONMember(key: "type", value: .string(type)),
            JSONMember(key: "subtype", value: .string(subtype)),
            JSONMember(key: "device", value: Self.device),
        ]))
    }

    func select(_ options: [String]) -> (topic: String, payload: JSONValue) {
        ("homeassistant/select/tapgrid_kitchen/layout/config", .object([
            JSONMember(key: "name", value: .string("Layout")),
            JSONMember(key: "unique_id", value: .string("tapgrid_kitchen_layout")),
            JSONMember(key: "options", value: .array(options.map { .string($0) })),
            JSONMember(key: "state_topic", value: .string("tapgrid/kitchen/layout")),
            JSONMember(key: "command_topic", value: .string("tapgrid/kitchen/command/use")),
            JSONMember(key: "command_template", value: .string(#"{"layout": "{{ value }}"}"#)),
            JSONMember(key: "availability_topic", value: .string("tapgrid/kitchen/availability")),
            JSONMember(key: "device", value: Self.device),
        ]))
    }

    /// Compares topic by topic, then payload member by member, so a failure names the field.
    func expectSame(_ got: [(topic: String, payload: JSONValue)], _ expected: [(topic: String, payload: JSONValue)]) {
        #expect(got.map(\.topic) == expected.map(\.topic))
        for (g, e) in zip(got, expected) where g.topic == e.topic {
            guard case .object(let gotMembers) = g.payload, case .object(let expectedMembers) = e.payload else {
                Issue.record("\(g.topic): \(g.payload)")
                continue
            }
            #expect(gotMembers.map(\.key) == expectedMembers.map(\.key), "\(g.topic)")
            for (gm, em) in zip(gotMembers, expectedMembers) { #expect(gm.value == em.value, "\(g.topic) \(em.key)") }
        }
    }

    @Test func everyCellAndRoutedClassGetsATriggerAndTheLayoutsASelect() throws {
        let config = try config(Self.home + ", " + Self.settings, routes: Self.everyClass)
        expectSame(messages(config), [
            select(["home", "settings"]),
            trigger("home", "lamp", "tap", type: "button_short_press", subtype: "home lamp"),
            trigger("home", "lamp", "long", type: "button_long_press", subtype: "home lamp"),
            trigger("home", "blind", "tap", type: "button_short_press", subtype: "home blind"),
            // hold, a long press too, gets its own subtype: (type, subtype) stays unique.
            trigger("home", "blind", "hold", type: "button_long_press", subtype: "home blind hold"),
            trigger("home", "fan", "tap", type: "button_short_press", subtype: "home fan"),
            trigger("home", "fan", "double", type: "button_double_press", subtype: "home fan"),
            // "a b" cannot be a topic key: the cell's key is its path.
            trigger("home", "3", "tap", type: "button_short_press", subtype: "home 3"),
            trigger("settings", "0", "tap", type: "button_short_press", subtype: "settings 0"),
        ])
        #expect(HomeAssistantDiscovery.skipped(config: config).isEmpty)
    }

    /// Without `use` in `accept`, a layout chosen in Home Assistant would be refused on `result`,
    /// which it never reads: no select then (an earlier one is emptied), and the log says why.
    @Test func noSelectUnlessUseIsAccepted() throws {
        let accepting = try config(Self.home + ", " + Self.settings, routes: Self.everyClass)
        let publishOnly = try config(Self.home + ", " + Self.settings, routes: Self.everyClass, accept: #"["tap", "set"]"#)
        let got = messages(publishOnly)
        #expect(!got.contains { $0.topic.hasPrefix("homeassistant/select/") })
        #expect(got.map(\.topic) == messages(accepting).dropFirst().map(\.topic))
        #expect(HomeAssistantDiscovery.skipped(config: publishOnly) == [
            #"no Home Assistant layout select: "use" is not in mqtt.accept, so choosing a layout there would be refused"#,
        ])
        let before = messages(accepting).map(\.topic)
        #expect(HomeAssistantDiscovery.emptied(previous: Set(before), current: got.map(\.topic)) == [
            "homeassistant/select/tapgrid_kitchen/layout/config",
        ])
    }

    /// A slider is a `number` (docs/touch.md "Sliders"): mode slider, its scale, its value from
    /// the cell's retained state, a value chosen sent as a `set` of the grid by path. It gets no
    /// triggers; without `set` accepted it gets no number, and the log says why once.
    @Test func eachSliderIsANumberWhenSetIsAccepted() throws {
        let sliders = #""home": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "name": "lamp"}, {"tag": 2, "name": "volume", "slider": {"min": 0, "max": 100, "step": 5}}, {"tag": 3, "slider": {"min": -1.5, "max": 1.5, "step": 0.5}}]}}"#
        let got = messages(try config(sliders, routes: #"{"handler": "log"}"#, accept: #"["set"]"#))
        expectSame(got, [
            ("homeassistant/number/tapgrid_kitchen/home_volume/config", .object([
                JSONMember(key: "name", value: .string("home volume")),
                JSONMember(key: "unique_id", value: .string("tapgrid_kitchen_home_volume")),
                JSONMember(key: "mode", value: .string("slider")),
                JSONMember(key: "min", value: .number(JSONNumber(0))),
                JSONMember(key: "max", value: .number(JSONNumber(100))),
                JSONMember(key: "step", value: .number(JSONNumber(5))),
                JSONMember(key: "state_topic", value: .string("tapgrid/kitchen/state/home/volume")),
                JSONMember(key: "value_template", value: .string("{{ value_json.value }}")),
                JSONMember(key: "command_topic", value: .string("tapgrid/kitchen/command/set")),
                JSONMember(key: "command_template", value: .string(#"{"layout": "home", "grid": "1", "value": {{ value }}}"#)),
                JSONMember(key: "qos", value: .number(JSONNumber(1))),
                JSONMember(key: "availability_topic", value: .string("tapgrid/kitchen/availability")),
                JSONMember(key: "device", value: Self.device),
            ])),
            ("homeassistant/number/tapgrid_kitchen/home_2/config", got.count > 1 ? got[1].payload : .null),
            trigger("home", "lamp", "tap", type: "button_short_press", subtype: "home lamp"),
        ])
        #expect(got.count > 1 && got[1].payload["min"] == .number(JSONNumber(-1.5)) && got[1].payload["step"] == .number(JSONNumber(0.5)))
        #expect(got.count > 1 && got[1].payload["command_template"] == .string(#"{"layout": "home", "grid": "2", "value": {{ value }}}"#))
        let refused = try config(sliders, routes: #"{"handler": "log"}"#, accept: #"["tap"]"#)
        #expect(!messages(refused).contains { $0.topic.contains("/number/") })
        #expect(HomeAssistantDiscovery.skipped(config: refused).dropFirst() == [
            #"no Home Assistant numbers for sliders: "set" is not in mqtt.accept, so a value chosen there would be refused"#,
        ])
    }

    /// With a `screen` block and `screen` accepted, the screen is a switch (docs/screen.md): on
    /// sends `{"state": "on"}`, off `{"state": "off"}`, and `dim` shows as on.
    @Test func theScreenIsASwitchWhenItsCommandIsAccepted() throws {
        func withScreen(_ accept: String) throws -> Config {
            var config = try self.config(Self.home, routes: #"{"handler": "log"}"#, accept: accept)
            config.screen = ScreenConfig()
            return config
        }
        let got = messages(try withScreen(#"["screen"]"#))
        let screen = try #require(got.first { $0.topic == "homeassistant/switch/tapgrid_kitchen/screen/config" })
        #expect(screen.payload["state_topic"] == .string("tapgrid/kitchen/screen"))
        #expect(screen.payload["command_topic"] == .string("tapgrid/kitchen/command/screen"))
        #expect(screen.payload["payload_on"] == .string(#"{"state": "on"}"#))
        #expect(screen.payload["payload_off"] == .string(#"{"state": "off"}"#))
        #expect(screen.payload["value_template"] == .string("{{ 'off' if value == 'off' else 'on' }}"))
        #expect(screen.payload["availability_topic"] == .string("tapgrid/kitchen/availability"))
        #expect(!messages(try withScreen(#"["tap"]"#)).contains { $0.topic.contains("/switch/") }, "not without screen accepted")
        #expect(!messages(try config(Self.home, routes: #"{"handler": "log"}"#, accept: #"["screen"]"#)).contains { $0.topic.contains("/switch/") },
                "not without a screen block")
    }

    @Test func typeAndSubtypeAreUniquePerDevice() throws {
        // Two cells named "lamp" share one action topic: one trigger set with both their classes.
        let layouts = #""home": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "name": "lamp"}, {"tag": 2, "name": "lamp"}, {"tag": 3, "name": "lamp"}]}}"#
        let routes = #"{"handler": "log"}, {"tags": [1], "handler": "log", "on": "long"}, {"tags": [2], "handler": "log", "on": "hold"}, {"tags": [3], "handler": "log", "on": "double"}"#
        let got = messages(try config(layouts, routes: routes))
        #expect(got.map(\.topic) == ["homeassistant/select/tapgrid_kitchen/layout/config"] + ["tap", "long", "hold", "double"].map {
            "homeassistant/device_automation/tapgrid_kitchen/home_lamp_\($0)/config"
        })
        let pairs = got.dropFirst().map { "\($0.payload["type"]!) \($0.payload["subtype"]!)" }
        #expect(Set(pairs).count == pairs.count, "\(pairs)")
    }

    @Test func namesThatCannotBeTopicLevelsOrTemplateValues() throws {
        let layouts = Self.home + #", "my page": {"width": 10, "height": 10, "grid": {"cols": [{"tag": 5}]}}, "say \"hi\"": {"width": 10, "height": 10, "grid": {"cols": [{"tag": 6}]}}"#
        let config = try config(layouts, routes: #"{"handler": "log"}"#)
        let got = messages(config)
        #expect(got.first?.payload["options"] == .array([.string("home"), .string("my page")]))
        #expect(!got.contains { $0.topic.contains("my page") || $0.topic.contains("say") })
        #expect(got.count == 1 + 4)
        #expect(HomeAssistantDiscovery.skipped(config: config) == [
            #"layout "my page" has no Home Assistant triggers: its name is not 1-64 characters of A-Z, a-z, 0-9, _ and -"#,
            #"layout "say \"hi\"" is not an option of the Home Assistant layout select: its name holds ", \ or a control character, which the command template cannot carry"#,
            #"layout "say \"hi\"" has no Home Assistant triggers: its name is not 1-64 characters of A-Z, a-z, 0-9, _ and -"#,
        ])
    }

    @Test func objectIDsThatCollideKeepTheFirst() throws {
        let layouts = #""home": {"width": 10, "height": 10, "grid": {"cols": [{"tag": 1, "name": "b_c"}]}}, "home_b": {"width": 10, "height": 10, "grid": {"cols": [{"tag": 2, "name": "c"}]}}"#
        let config = try config(layouts, routes: #"{"handler": "log"}"#)
        let got = messages(config)
        #expect(got.map(\.topic) == ["homeassistant/select/tapgrid_kitchen/layout/config", "homeassistant/device_automation/tapgrid_kitchen/home_b_c_tap/config"])
        #expect(got.last?.payload["topic"] == .string("tapgrid/kitchen/action/home/b_c"))
        #expect(HomeAssistantDiscovery.skipped(config: config) == [
            #"layout "home_b" cell "c" has no Home Assistant tap trigger: its object id home_b_c_tap is taken by layout "home" cell "b_c""#,
        ])
    }

    @Test func triggersWhoseCellOrClassWentAwayAreEmptied() throws {
        let before = HomeAssistantDiscovery.messages(config: try config(Self.home + ", " + Self.settings, routes: Self.everyClass),
                                                     topics: Self.topics, prefix: "homeassistant", version: "1.2.3").map(\.topic)
        // After a reload: "fan" is gone, the lamp's long route is gone, "settings" is gone.
        let home = #""home": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "name": "lamp"}, {"tag": 2, "name": "blind"}, {"tag": 4, "name": "a b"}]}}"#
        let after = HomeAssistantDiscovery.messages(config: try config(home, routes: #"{"handler": "log"}, {"tags": [2], "handler": "log", "on": "hold"}"#),
                                                    topics: Self.topics, prefix: "homeassistant", version: "1.2.3").map(\.topic)
        let base = "homeassistant/device_automation/tapgrid_kitchen/"
        #expect(HomeAssistantDiscovery.emptied(previous: Set(before), current: after) == [
            base + "home_3_tap/config", base + "home_fan_double/config", base + "home_fan_tap/config", base + "home_lamp_long/config", base + "settings_0_tap/config",
        ])
        // "a b" was the fourth cell and is now the third: its key (its path) moved from 3 to 2.
        #expect(after.contains(base + "home_2_tap/config"))
        #expect(HomeAssistantDiscovery.emptied(previous: Set(after), current: after).isEmpty)
    }

    @Test func typesByClass() {
        #expect(HomeAssistantDiscovery.type(of: .tap) == "button_short_press")
        #expect(HomeAssistantDiscovery.type(of: .long) == "button_long_press")
        #expect(HomeAssistantDiscovery.type(of: .hold) == "button_long_press")
        #expect(HomeAssistantDiscovery.type(of: .double) == "button_double_press")
    }
}
