/// A topic that reached this node, as the daemon acts on it (`FleetTopics.classify`).
public enum FleetInbound: Sendable, Hashable {
    /// `P/<scope>/command/<op>`: a socket request without its `op`, which is the last level
    /// (checked by `FleetCommand.decide`, so an unknown op is still answered on `result`).
    case command(op: String, scope: FleetScope)
    /// `P/<scope>/layouts/<name>`: a pushed layout's definition, or empty to take it back
    /// (sorted out across scopes by `FleetLayoutSources`).
    case layout(name: String, scope: FleetScope)
    /// `<homeAssistant prefix>/status`: Home Assistant (re)started when it says `online`, and
    /// forgets every entity whose discovery is not published again.
    case homeAssistantStatus
}

/// Every topic one node publishes to and reads (docs/fleet.md "What a panel publishes and takes
/// (P = prefix, N = node)"), built once from the config's names. The names are checked topic
/// names (`MQTTConfig.isTopicName`), so each is exactly one level: nothing a config holds can
/// reach another node's topics.
public struct FleetTopics: Sendable, Equatable {
    public let prefix: String
    public let node: String
    /// `mqtt.groups`, in config order (their order is their precedence).
    public let groups: [String]
    /// `mqtt.homeAssistant.prefix`, nil when discovery is off.
    public let homeAssistantPrefix: String?

    /// `P/N/availability`: `online` once subscribed, `offline` as the will (retained).
    public let availability: String
    /// `P/N/events`: the event log's records.
    public let events: String
    /// `P/N/layout`: the current layout's name (retained).
    public let layout: String
    /// `P/N/status`: the status reply with `node` and `version` (retained).
    public let status: String
    /// `P/N/result`: the answer to each command and pushed layout.
    public let result: String
    /// `P/N/screen`: the screen's state, `on`, `dim` or `off` (retained; with `screen` in the config).
    public let screen: String
    /// `<ha>/status`, nil when discovery is off.
    public let homeAssistantStatus: String?

    public init(prefix: String, node: String, groups: [String], homeAssistantPrefix: String? = nil) {
        self.prefix = prefix
        self.node = node
        self.groups = groups
        self.homeAssistantPrefix = homeAssistantPrefix
        let own = prefix + "/" + node + "/"
        availability = own + "availability"
        events = own + "events"
        layout = own + "layout"
        status = own + "status"
        result = own + "result"
        screen = own + "screen"
        homeAssistantStatus = homeAssistantPrefix.map { $0 + "/status" }
    }

    /// The topics of `config`'s `mqtt` block, with `node` for the node (the config's, or the host
    /// name the daemon read when the config names none). Nil when the config has no `mqtt`.
    public init?(config: Config, node: String) {
        guard let mqtt = config.mqtt else { return nil }
        self.init(prefix: mqtt.prefix, node: mqtt.node ?? node, groups: mqtt.groups, homeAssistantPrefix: mqtt.homeAssistantPrefix)
    }

    /// `P/N/action/<layout>/<cell>`: the class of each tap on the cell. `cell` is the cell's key
    /// (`MQTTConfig.cellKey`).
    public func action(layout: String, cell: String) -> String {
        prefix + "/" + node + "/action/" + layout + "/" + cell
    }

    /// `P/N/state/<layout>/<cell>`: the cell's state after each change (retained).
    public func state(layout: String, cell: String) -> String {
        prefix + "/" + node + "/state/" + layout + "/" + cell
    }

    /// `P/N/command/<op>`: where a command for this node alone is published (Home Assistant's
    /// layout `select` sends `use` here).
    public func command(_ op: String) -> String { prefix + "/" + node + "/command/" + op }

    /// What to subscribe to: the commands and the pushed layouts of the node, of each group in
    /// config order and of broadcast, then `<ha>/status` when discovery is on (so one list and
    /// one `classify` cover everything the node reads).
    public var subscriptions: [String] {
        let scopes = [node] + groups + ["broadcast"]
        var topics = scopes.map { prefix + "/" + $0 + "/command/+" } + scopes.map { prefix + "/" + $0 + "/layouts/+" }
        if let homeAssistantStatus { topics.append(homeAssistantStatus) }
        return topics
    }

    /// What an incoming topic asks for, or nil for a topic this node does not act on. Commands
    /// and layouts are exactly four levels (`P/<scope>/command|layouts/<last>`), so a layout
    /// name or op with a `/` in it never matches (the `+` subscriptions could not deliver one).
    /// A group named like the node is read as the node (the config refuses such a group).
    public func classify(_ topic: String) -> FleetInbound? {
        if let homeAssistantStatus, topic == homeAssistantStatus { return .homeAssistantStatus }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 4, levels[0] == prefix else { return nil }
        let scope: FleetScope
        if levels[1] == node {
            scope = .node
        } else if let index = groups.firstIndex(where: { $0[...] == levels[1] }) {
            scope = .group(index: index)
        } else if levels[1] == "broadcast" {
            scope = .broadcast
        } else {
            return nil
        }
        let last = String(levels[3])
        switch levels[2] {
        case "command": return .command(op: last, scope: scope)
        case "layouts": return .layout(name: last, scope: scope)
        default: return nil
        }
    }
}
