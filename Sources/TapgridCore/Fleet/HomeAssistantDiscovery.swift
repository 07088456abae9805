/// Home Assistant's MQTT discovery for one node (docs/fleet.md "Home Assistant"): a device trigger per
/// cell and class (at QoS 1), a `number` per slider when `set` is in `mqtt.accept` (docs/touch.md
/// "Sliders"), and a `select` of the layouts when `use` is, all retained, published on
/// connect and whenever `<prefix>/status` says `online`. Pure: the daemon publishes what
/// `messages` returns, keeps the topics, and after a reload, `load` or `unload` publishes an
/// empty retained payload to each topic `emptied` returns (which deletes the entity). For
/// pushed layouts to be included, pass the config with them in (`PushedLayouts.combined(with:)`).
///
/// Choices made here (docs/fleet.md "Home Assistant" says what they come to for users):
/// - **hold**: `long` and `hold` both map to `button_long_press`, and (type, subtype) must be
///   unique per device. A grid routes at most one of them, but cells sharing a topic key may
///   route one each, and an automation should not change meaning when another cell is added.
///   So a `hold` trigger's subtype is always `"<layout> <cell> hold"` (`tap`, `long` and
///   `double` keep `"<layout> <cell>"`): layout names and cell keys hold no space, so no other
///   trigger's subtype can read the same.
/// - **Layout names that are not topic names** (`MQTTConfig.isTopicName`: a space, a `/`, ...):
///   their cells get no triggers, as such a name cannot be one level of the object id nor of
///   the action topic. `skipped` says which, for the daemon to log once. They stay options of
///   the `select`, which carries the name inside JSON, unless the name holds `"`, `\` or a
///   control character: the command template `{"layout": "{{ value }}"}` pastes it into JSON
///   unescaped, so such a name could never be chosen.
/// - **Object ids that collide** (`<layout>_<cell>_<class>`: layout `a_b` cell `c` and layout
///   `a` cell `b_c`): the first in order keeps the topic, the later is skipped (in `skipped`).
/// - Cells sharing a key (`ConfigParser` warns) share the action topic, so they are one
///   trigger set: the union of the classes their grids route.
/// - **Sliders** get no triggers (a plain tap on one is a `release`, never a `tap`): each is a
///   `number` whose command is a `set` of the grid by its path (`{"layout": "home", "grid":
///   "0/1", "value": {{ value }}}`), so a layout name that cannot sit in that template gets
///   none, and without `set` accepted no slider gets one (the log says so once).
public enum HomeAssistantDiscovery {
    /// The retained discovery messages, in a stable order: the layout `select` first, then each
    /// layout's triggers (layouts in config order, cells in grid order, the first grid of a
    /// shared key placing it, classes `tap`, `long`, `hold`, `double`).
    /// - Parameters:
    ///   - topics: the node's topics (the action, layout, availability and command topics).
    ///   - prefix: `mqtt.homeAssistant.prefix`.
    ///   - version: the daemon's version, the device's `sw_version`.
    public static func messages(config: Config, topics: FleetTopics, prefix: String, version: String) -> [(topic: String, payload: [UInt8])] {
        let plan = Plan(config: config)
        let device = deviceID(topics)
        var messages: [(topic: String, payload: [UInt8])] = []
        if !plan.options.isEmpty {
            messages.append((selectTopic(topics, prefix: prefix), selectPayload(options: plan.options, topics: topics, version: version)))
        }
        if config.screen != nil, config.mqtt?.accept.contains("screen") == true {
            messages.append((switchTopic(topics, prefix: prefix), screenSwitchPayload(topics: topics, version: version)))
        }
        for number in plan.numbers {
            messages.append((numberTopic(topics, prefix: prefix, objectID: number.objectID),
                             numberPayload(number, topics: topics, version: version)))
        }
        for trigger in plan.triggers {
            var out = JSONObjectWriter(.compact)
            out.string("automation_type", "trigger")
            out.string("topic", topics.action(layout: trigger.layout, cell: trigger.cell))
            out.string("payload", trigger.tapClass.name.description)
            // Home Assistant subscribes at this QoS: without it, at 0, and the QoS 1 actions
            // would be downgraded on their way to it.
            out.int("qos", 1)
            out.string("type", type(of: trigger.tapClass))
            out.string("subtype", trigger.subtype)
            out.object("device", self.device(topics, version: version))
            messages.append((prefix + "/device_automation/" + device + "/" + trigger.objectID + "/config", out.bytes))
        }
        return messages
    }

    /// Why some cells, layouts or options got no entity (see the type's decisions), one line
    /// each, for the daemon's log. Empty for a config whose names all fit.
    public static func skipped(config: Config) -> [String] { Plan(config: config).skipped }

    /// The topics of `previous` (published before) that `current` no longer holds, sorted: each
    /// gets an empty retained payload, which deletes its entity in Home Assistant.
    public static func emptied(previous: Set<String>, current: [String]) -> [String] {
        previous.subtracting(current).sorted()
    }

    /// `tapgrid_N`: the device's identifier and the discovery topics' node id.
    public static func deviceID(_ topics: FleetTopics) -> String { "tapgrid_" + topics.node }

    /// `<prefix>/select/tapgrid_N/layout/config`.
    public static func selectTopic(_ topics: FleetTopics, prefix: String) -> String {
        prefix + "/select/" + deviceID(topics) + "/layout/config"
    }

    /// `<prefix>/switch/tapgrid_N/screen/config`.
    public static func switchTopic(_ topics: FleetTopics, prefix: String) -> String {
        prefix + "/switch/" + deviceID(topics) + "/screen/config"
    }

    /// `<prefix>/number/tapgrid_N/<layout>_<cell>/config`.
    public static func numberTopic(_ topics: FleetTopics, prefix: String, objectID: String) -> String {
        prefix + "/number/" + deviceID(topics) + "/" + objectID + "/config"
    }

    /// A slider as a `number` (docs/touch.md "Sliders"): shown as a slider with its scale, its
    /// value read from the cell's retained state, a value chosen sent as a `set` of the grid.
    static func numberPayload(_ number: Number, topics: FleetTopics, version: String) -> [UInt8] {
        var out = JSONObjectWriter(.compact)
        out.string("name", number.layout + " " + number.cell)
        out.string("unique_id", deviceID(topics) + "_" + number.objectID)
        out.string("mode", "slider")
        out.number("min", number.spec.min)
        out.number("max", number.spec.max)
        out.number("step", number.spec.step)
        out.string("state_topic", topics.state(layout: number.layout, cell: number.cell))
        out.string("value_template", "{{ value_json.value }}")
        out.string("command_topic", topics.command("set"))
        out.string("command_template", #"{"layout": "\#(number.layout)", "grid": "\#(number.path)", "value": {{ value }}}"#)
        out.int("qos", 1)
        out.string("availability_topic", topics.availability)
        out.object("device", device(topics, version: version))
        return out.bytes
    }

    /// The screen as a switch (docs/screen.md): on is `on`, off is `off`, and `dim` shows as on
    /// (the screen is lit); turning it on or off sends the `screen` command. With the device's
    /// availability, so a panel that is gone shows unavailable.
    static func screenSwitchPayload(topics: FleetTopics, version: String) -> [UInt8] {
        var out = JSONObjectWriter(.compact)
        out.string("name", "Screen")
        out.string("unique_id", deviceID(topics) + "_screen")
        out.string("state_topic", topics.screen)
        out.string("value_template", "{{ 'off' if value == 'off' else 'on' }}")
        out.string("state_on", "on")
        out.string("state_off", "off")
        out.string("command_topic", topics.command("screen"))
        out.string("payload_on", #"{"state": "on"}"#)
        out.string("payload_off", #"{"state": "off"}"#)
        out.int("qos", 1)
        out.string("availability_topic", topics.availability)
        out.object("device", device(topics, version: version))
        return out.bytes
    }

    /// The device trigger's `type` for a class (`hold`, like `long`, is a long press).
    public static func type(of tapClass: TapClass) -> String {
        switch tapClass {
        case .tap: return "button_short_press"
        case .long, .hold: return "button_long_press"
        case .double: return "button_double_press"
        // Not offered as triggers: a slider is a `number` entity (docs/touch.md "Sliders").
        case .change: return "slider_change"
        case .release: return "slider_release"
        }
    }

    static func device(_ topics: FleetTopics, version: String) -> JSONObjectWriter {
        var out = JSONObjectWriter(.compact)
        out.value("identifiers", .array([.string(deviceID(topics))]))
        out.string("name", "tapgrid " + topics.node)
        out.string("manufacturer", "tapgrid")
        out.string("model", "tapgridd")
        out.string("sw_version", version)
        return out
    }

    static func selectPayload(options: [String], topics: FleetTopics, version: String) -> [UInt8] {
        var out = JSONObjectWriter(.compact)
        out.string("name", "Layout")
        out.string("unique_id", deviceID(topics) + "_layout")
        out.value("options", .array(options.map { .string($0) }))
        out.string("state_topic", topics.layout)
        out.string("command_topic", topics.command("use"))
        out.string("command_template", #"{"layout": "{{ value }}"}"#)
        out.string("availability_topic", topics.availability)
        out.object("device", device(topics, version: version))
        return out.bytes
    }

    /// One device trigger: a class of a cell of a layout.
    struct Trigger {
        var layout: String
        var cell: String
        var tapClass: TapClass

        var objectID: String { layout + "_" + cell + "_" + tapClass.name.description }
        var subtype: String { layout + " " + cell + (tapClass == .hold ? " hold" : "") }
    }

    /// One slider as a number entity.
    struct Number {
        var layout: String
        var cell: String
        /// The grid's path, which the command's `set` names it by.
        var path: String
        var spec: SliderSpec

        var objectID: String { layout + "_" + cell }
    }

    /// What a config gets: the select's options, the numbers, the triggers, and what was left out.
    struct Plan {
        var options: [String] = []
        var numbers: [Number] = []
        var triggers: [Trigger] = []
        var skipped: [String] = []

        init(config: Config) {
            var owners: [String: (layout: String, cell: String)] = [:]
            // The select's choice is a `use` command: refused unless accepted, on `result`,
            // which Home Assistant never reads (the select would stay put, nobody told).
            let select = config.mqtt?.accept.contains("use") ?? false
            // A number's choice is a `set`: refused unless accepted, the same way.
            let settable = config.mqtt?.accept.contains("set") ?? false
            var numbersSkipped = false
            var numberOwners: [String: (layout: String, cell: String)] = [:]
            if !select && !config.layouts.isEmpty {
                skipped.append("no Home Assistant layout select: \"use\" is not in mqtt.accept, so choosing a layout there would be refused")
            }
            for layout in config.layouts {
                if !select {
                    // No select, no options.
                } else if Plan.fitsTemplate(layout.name) {
                    options.append(layout.name)
                } else {
                    skipped.append("layout \(jsonEscaped(layout.name)) is not an option of the Home Assistant layout select: its name holds \", \\ or a control character, which the command template cannot carry")
                }
                guard MQTTConfig.isTopicName(layout.name) else {
                    skipped.append("layout \(jsonEscaped(layout.name)) has no Home Assistant triggers: its name is not \(ConfigParser.topicNameRule)")
                    continue
                }
                for (index, spec) in layout.tree.sliders.sorted(by: { $0.key < $1.key }) {
                    guard let cell = MQTTConfig.cellKey(ofGrid: Int(index), in: layout.tree) else { continue }
                    guard settable else {
                        if !numbersSkipped {
                            numbersSkipped = true
                            skipped.append("no Home Assistant numbers for sliders: \"set\" is not in mqtt.accept, so a value chosen there would be refused")
                        }
                        break
                    }
                    guard Plan.fitsTemplate(layout.name) else {
                        skipped.append("layout \(jsonEscaped(layout.name)) slider \(jsonEscaped(cell)) has no Home Assistant number: the layout's name holds \", \\ or a control character, which the command template cannot carry")
                        continue
                    }
                    let number = Number(layout: layout.name, cell: cell, path: layout.tree.path(of: Int(index)), spec: spec)
                    if let owner = numberOwners[number.objectID] {
                        skipped.append("layout \(jsonEscaped(layout.name)) slider \(jsonEscaped(cell)) has no Home Assistant number: its object id \(number.objectID) is taken by layout \(jsonEscaped(owner.layout)) cell \(jsonEscaped(owner.cell))")
                        continue
                    }
                    numberOwners[number.objectID] = (layout.name, cell)
                    numbers.append(number)
                }
                for (cell, classes) in Plan.cells(of: layout) {
                    for tapClass in TapClass.allCases where classes.contains(tapClass) {
                        let trigger = Trigger(layout: layout.name, cell: cell, tapClass: tapClass)
                        if let owner = owners[trigger.objectID] {
                            skipped.append("layout \(jsonEscaped(layout.name)) cell \(jsonEscaped(cell)) has no Home Assistant \(tapClass.name) trigger: its object id \(trigger.objectID) is taken by layout \(jsonEscaped(owner.layout)) cell \(jsonEscaped(owner.cell))")
                            continue
                        }
                        owners[trigger.objectID] = (layout.name, cell)
                        triggers.append(trigger)
                    }
                }
            }
        }

        /// Each cell key of the layout's hittable grids but its sliders, in grid order, with the
        /// classes its grids can fire: `tap` always, `long`, `hold` and `double` when routed.
        static func cells(of layout: LoadedLayout) -> [(key: String, classes: Set<TapClass>)] {
            let tree = layout.tree
            var cells: [(key: String, classes: Set<TapClass>)] = []
            var place: [String: Int] = [:]
            for index in tree.nodes.indices where tree.sliders.isEmpty || tree.sliders[Int32(index)] == nil {
                guard let key = MQTTConfig.cellKey(ofGrid: index, in: tree) else { continue }
                let slot = Int(tree.nodes[index].info)
                var classes: Set<TapClass> = [.tap]
                if slot >= 0, let routed = layout.classHandlers[slot] {
                    for tapClass in [TapClass.long, .hold, .double] where routed[tapClass] >= 0 { classes.insert(tapClass) }
                }
                if let at = place[key] {
                    cells[at].classes.formUnion(classes)
                } else {
                    place[key] = cells.count
                    cells.append((key, classes))
                }
            }
            return cells
        }

        /// Whether `name` survives being pasted into `{"layout": "{{ value }}"}`.
        static func fitsTemplate(_ name: String) -> Bool {
            !name.utf8.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }
        }
    }
}
