import TapgridArguments
import TapgridCore
import TapgridMQTT
import TapgridSystem

/// What the fleet keeps retained on the broker (docs/fleet.md "What a panel publishes and takes", "Home Assistant"): every cell's state, the
/// status, Home Assistant's discovery, and the cells' topics they are published on.
extension Fleet {
    /// Every cell's state (those that have one) and the current layout, on connect.
    /// `P/N/screen`, retained (while not connected, nothing: it is published on connect).
    func publishScreen(_ state: ScreenState) {
        guard link.isConnected else { return }
        publish(topics.screen, Array(state.name.description.utf8), retain: true)
    }

    func publishState() {
        let engine = output.engine
        for (layoutIndex, layout) in engine.active.layouts.enumerated() {
            for grid in layout.tree.nodes.indices {
                let state = engine.cellState(layout: layoutIndex, grid: grid)
                guard !state.isEmpty, let topic = cellTopic(state: true, layout: layoutIndex, grid: grid) else { continue }
                publish(topic, state.jsonObject, retain: true)
            }
        }
    }

    /// The status reply with `node` and `version`, when it changed (uptime aside) or `force`.
    func publishStatus(force: Bool) {
        guard link.isConnected else { return }
        var status = router.statusReply()
        status.node = topics.node
        status.version = tapgridVersion
        var comparable = status
        comparable.uptime = nil
        let buffer = ByteBuffer(capacity: 512)
        comparable.write(id: nil, into: buffer)
        let key = Array(buffer.bytes)
        guard force || key != lastStatus else { return }
        lastStatus = key
        buffer.removeAll()
        status.write(id: nil, into: buffer)
        publish(topics.status, Array(buffer.bytes.dropLast()), retain: true)
    }

    func publishDiscovery() {
        discoveryGeneration = output.engine.active.generation
        guard let prefix = settings.homeAssistantPrefix, link.isConnected else { return }
        if skippedLoggedGeneration != discoveryGeneration {
            skippedLoggedGeneration = discoveryGeneration
            for line in HomeAssistantDiscovery.skipped(config: output.engine.active.config) {
                log.warning("mqtt: Home Assistant: " + line)
            }
        }
        let messages = HomeAssistantDiscovery.messages(config: output.engine.active.config, topics: topics, prefix: prefix, version: tapgridVersion)
        for topic in HomeAssistantDiscovery.emptied(previous: discoveryTopics, current: messages.map(\.topic)) {
            publish(topic, [], retain: true)
        }
        for message in messages { publish(message.topic, message.payload, retain: true) }
        discoveryTopics = Set(messages.map(\.topic))
    }

    func rebuildCellKeys() {
        actionTopics = []
        stateTopics = []
        for layout in output.engine.active.layouts {
            let keys = layout.tree.nodes.indices.map { MQTTConfig.cellKey(ofGrid: $0, in: layout.tree) }
            actionTopics.append(keys.map { $0.map { topics.action(layout: layout.name, cell: $0) } })
            stateTopics.append(keys.map { $0.map { topics.state(layout: layout.name, cell: $0) } })
        }
        lastGeneration = output.engine.active.generation
    }

    /// A cell's action or state topic under `active`, the config its tap or change was decided
    /// under (from the table built per generation; computed when a later config replaced it).
    func cellTopic(state: Bool, layout: Int, grid: Int, active: ActiveConfig) -> String? {
        if active.generation != output.engine.active.generation {
            let loaded = active.layouts[layout]
            return MQTTConfig.cellKey(ofGrid: grid, in: loaded.tree).map {
                state ? topics.state(layout: loaded.name, cell: $0) : topics.action(layout: loaded.name, cell: $0)
            }
        }
        return cellTopic(state: state, layout: layout, grid: grid)
    }

    func cellTopic(state: Bool, layout: Int, grid: Int) -> String? {
        if output.engine.active.generation != lastGeneration { rebuildCellKeys() }
        let table = state ? stateTopics : actionTopics
        guard layout < table.count, grid < table[layout].count else { return nil }
        return table[layout][grid]
    }

    /// Each class's name as a payload (`tap`, `long`, ...), made once, by raw value.
    static let classPayloads: [[UInt8]] = TapClass.allCases.sorted { $0.rawValue < $1.rawValue }.map { Array($0.name.description.utf8) }
}
