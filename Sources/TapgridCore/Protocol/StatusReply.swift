/// The `status` reply, written and read by this one type:
/// `{"uptime":12.5,"generation":3,"layout":"home","taps":42,"outcomes":{"dispatched":40,"miss":2},
/// "children":0,"queued":0,"clients":1,"eventLog":{"path":"/var/log/tapgrid/events.jsonl","ok":true}}`
/// (`error` in `eventLog` while it fails), then the blocks of what the config has (`mqtt`, `panel`,
/// `screen`). Read back, a field the reply lacks is nil.
public struct StatusReply: Sendable, Equatable {
    /// One outcome's count, in the order written (`Outcome.allCases`' order, counts above zero).
    public struct OutcomeCount: Sendable, Equatable {
        public var name: String
        public var count: Int64

        public init(name: String, count: Int64) {
            self.name = name
            self.count = count
        }
    }

    /// The event log's state.
    public struct EventLog: Sendable, Equatable {
        /// nil when there is no event log.
        public var path: String?
        public var ok: Bool
        /// The last write's error, while it fails.
        public var error: String?

        public init(path: String?, ok: Bool, error: String? = nil) {
            self.path = path
            self.ok = ok
            self.error = error
        }
    }

    /// The fleet connection (docs/fleet.md "Running a fleet"), with `mqtt` in the config.
    public struct MQTT: Sendable, Equatable {
        public var connected: Bool
        /// `host:port` or the Unix socket's path.
        public var broker: String
        /// Records and messages not yet acknowledged by the broker.
        public var backlog: Int64
        /// Messages the broker acknowledged since start.
        public var published: Int64
        /// Messages dropped: actions too old to send, events over the memory queue's bound.
        public var dropped: Int64
        /// Why it is not connected (nil while connected).
        public var lastError: String?

        public init(connected: Bool, broker: String, backlog: Int64, published: Int64, dropped: Int64, lastError: String?) {
            self.connected = connected
            self.broker = broker
            self.backlog = backlog
            self.published = published
            self.dropped = dropped
            self.lastError = lastError
        }
    }

    /// The browser panel (docs/panel.md "Browser panel"), with `panel` in the config and serving.
    public struct Panel: Sendable, Equatable {
        /// `http://127.0.0.1:8480/`, the Unix socket's path, or the socket systemd passed.
        public var address: String
        /// Event streams open now (pages showing the panel, and other watchers).
        public var streams: Int64
        /// Page sessions known now (each owns its contacts).
        public var sessions: Int64
        /// HTTP requests answered since start.
        public var requests: Int64

        public init(address: String, streams: Int64, sessions: Int64, requests: Int64) {
            self.address = address
            self.streams = streams
            self.sessions = sessions
            self.requests = requests
        }
    }

    /// Seconds since the daemon started (milliseconds exact).
    public var uptime: Double?
    public var generation: Int64?
    public var layout: String?
    public var taps: Int64?
    public var outcomes: [OutcomeCount]
    public var children: Int64?
    public var queued: Int64?
    public var clients: Int64?
    public var eventLog: EventLog?
    /// The layouts pushed with `load` (docs/cell-state.md "Pushed layouts"); nil when none are.
    public var pushed: [String]? = nil
    /// The fleet connection; nil without `mqtt` in the config.
    public var mqtt: MQTT? = nil
    /// The browser panel; nil without `panel` in the config (or when it could not start).
    public var panel: Panel? = nil
    /// The screen (docs/screen.md), as the `wake` and `screen` replies show it too:
    /// `"screen":{"state":"off","since":1765012984.5,"backlight":{"path":"/sys/class/backlight/x",
    /// "value":0,"error":null}}`. `since` is wall-clock time, seconds since 1970 UTC (not uptime: the
    /// `wake` and `screen` replies carry no uptime to count from, and `tapgrid` prints it as a
    /// clock time); `backlight` is null without one. nil without `screen` in the config.
    public var screen: ScreenStatus? = nil
    /// The node's name and the daemon's version: only in the status the fleet publishes.
    public var node: String? = nil
    public var version: String? = nil

    public init(
        uptime: Double?, generation: Int64?, layout: String?, taps: Int64?, outcomes: [OutcomeCount],
        children: Int64?, queued: Int64?, clients: Int64?, eventLog: EventLog?
    ) {
        self.uptime = uptime
        self.generation = generation
        self.layout = layout
        self.taps = taps
        self.outcomes = outcomes
        self.children = children
        self.queued = queued
        self.clients = clients
        self.eventLog = eventLog
    }

    /// Reads a `status` reply.
    public init(_ value: JSONValue) {
        uptime = value["uptime"]?.doubleValue
        generation = value["generation"]?.int64Value
        layout = value["layout"]?.stringValue
        taps = value["taps"]?.int64Value
        outcomes = []
        if case .object(let members)? = value["outcomes"] {
            outcomes = members.compactMap { member in member.value.int64Value.map { OutcomeCount(name: member.key, count: $0) } }
        }
        children = value["children"]?.int64Value
        queued = value["queued"]?.int64Value
        clients = value["clients"]?.int64Value
        if let log = value["eventLog"], case .object = log {
            eventLog = EventLog(path: log["path"]?.stringValue, ok: log["ok"] == .bool(true), error: log["error"]?.stringValue)
        }
        if case .array(let names)? = value["pushed"] { pushed = names.compactMap(\.stringValue) }
        if let block = value["mqtt"], case .object = block {
            mqtt = MQTT(
                connected: block["connected"] == .bool(true), broker: block["broker"]?.stringValue ?? "",
                backlog: block["backlog"]?.int64Value ?? 0, published: block["published"]?.int64Value ?? 0,
                dropped: block["dropped"]?.int64Value ?? 0, lastError: block["lastError"]?.stringValue)
        }
        if let block = value["panel"], case .object = block {
            panel = Panel(
                address: block["address"]?.stringValue ?? "", streams: block["streams"]?.int64Value ?? 0,
                sessions: block["sessions"]?.int64Value ?? 0, requests: block["requests"]?.int64Value ?? 0)
        }
        screen = ScreenStatus(value["screen"])
        node = value["node"]?.stringValue
        version = value["version"]?.stringValue
    }

    /// The reply line (with its `\n`), `"id"` first when the request had one (its bytes verbatim).
    /// Fields that are nil are left out.
    public func write(id: UnsafeBufferPointer<UInt8>?, into out: ByteBuffer) {
        var object = JSONObjectWriter(.compact)
        if let id { object.json("id", bytes: id) }
        if let uptime { object.number("uptime", uptime) }
        if let generation { object.int("generation", generation) }
        if let layout { object.string("layout", layout) }
        if let taps { object.int("taps", taps) }
        object.object("outcomes") { counts in
            for outcome in outcomes { counts.int(outcome.name, outcome.count) }
        }
        if let children { object.int("children", children) }
        if let queued { object.int("queued", queued) }
        if let clients { object.int("clients", clients) }
        if let eventLog {
            object.object("eventLog") { log in
                log.string("path", eventLog.path)
                log.bool("ok", eventLog.ok)
                if let error = eventLog.error { log.string("error", error) }
            }
        }
        if let pushed, !pushed.isEmpty { object.value("pushed", .array(pushed.map(JSONValue.string))) }
        if let mqtt {
            object.object("mqtt") { block in
                block.bool("connected", mqtt.connected)
                block.string("broker", mqtt.broker)
                block.int("backlog", mqtt.backlog)
                block.int("published", mqtt.published)
                block.int("dropped", mqtt.dropped)
                block.string("lastError", mqtt.lastError)
            }
        }
        if let panel {
            object.object("panel") { block in
                block.string("address", panel.address)
                block.int("streams", panel.streams)
                block.int("sessions", panel.sessions)
                block.int("requests", panel.requests)
            }
        }
        if let screen { object.object("screen") { screen.write(into: &$0) } }
        if let node { object.string("node", node) }
        if let version { object.string("version", version) }
        out.append(object.bytes)
        out.append(0x0A)
    }
}
