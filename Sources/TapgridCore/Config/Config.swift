/// A loaded, validated config: layouts resolved, handlers checked, every hittable grid routed.
public struct Config: Sendable {
    /// The config file's path as given.
    public var file: String
    public var socket: SocketConfig
    public var eventLog: EventLogSetting
    /// Layouts sorted by name (JSON object order means nothing).
    public var layouts: [LoadedLayout]
    public var initialLayout: String
    public var handlers: [HandlerConfig]
    public var routes: [Route]
    /// `touch`: touchscreens read through libinput; nil when the config has none.
    public var touch: TouchConfig? = nil
    /// `mqtt`: the fleet connection; nil when the config has none.
    public var mqtt: MQTTConfig? = nil
    /// `panel`: the browser panel; nil when the config has none.
    public var panel: PanelConfig? = nil
    /// `screen`: dimming, the waking touch, the backlight; nil when the config has none (the
    /// screen is then never dimmed and no contact is consumed).
    public var screen: ScreenConfig? = nil
    /// `styles` by name (`default` under every hittable grid's; docs/panel.md "What a cell shows").
    public var styles: [String: CellStyle] = [:]
    /// `iconFont`: the SVG font icons come from, resolved against the config's folder; nil: Debian's
    /// Material Design Icons (`IconSet.debianFont`).
    public var iconFont: String? = nil

    public func layoutIndex(named name: String) -> Int? { layouts.firstIndex { $0.name == name } }
    public func handlerIndex(named name: String) -> Int? { handlers.firstIndex { $0.name == name } }

    /// The handler's name for a grid's routing slot, or nil when unrouted.
    public func handlerName(_ slot: Int32) -> String? { slot >= 0 ? handlers[Int(slot)].name : nil }
}

/// The grid a tap hit, with the indexes the tap path needs.
public struct TapTarget: Sendable, Equatable {
    public var grid: Int
    /// Index into the tree's `infos`.
    public var info: Int
    /// Index into `Config.handlers`, or -1 when unrouted.
    public var handler: Int32
}

/// One layout, parsed and resolved for its surface.
public struct LoadedLayout: Sendable {
    public var name: String
    public var debounceMs: Int
    /// Tap-class timing (`longPressMs`, `repeatMs`, `doubleTapMs`, `slop`).
    public var timing = TouchTiming()
    /// By info slot: the `long`/`hold`/`double` handlers of the grids that route one.
    public internal(set) var classHandlers: [Int: ClassHandlers] = [:]
    public internal(set) var resolved: ResolvedLayout
    public var frame: LayoutFrame { resolved.frame }
    public var tree: GridTree { resolved.tree }
}

/// `socket` in the config.
public struct SocketConfig: Sendable, Equatable {
    /// Absolute, or resolved against the config's folder.
    public var path: String?
    /// File mode for a socket the daemon creates itself.
    public var mode: UInt32 = 0o600
    /// Who may connect; nil: the socket's file permissions are the only gate.
    public var allow: PeerAllowList?
    /// Who may `reload` and `use`; nil: anyone who may connect.
    public var allowControl: PeerAllowList?
    public var maxClients: Int = 4096
}

/// uids and gids a peer is checked against (its uid, primary gid or a supplementary gid).
public struct PeerAllowList: Sendable, Equatable {
    public var uids: [UInt32]
    public var gids: [UInt32]

    public init(uids: [UInt32], gids: [UInt32]) {
        self.uids = uids
        self.gids = gids
    }

    /// Root and the daemon's own uid are always allowed.
    public func allows(uid: UInt32, gids peerGids: [UInt32], daemonUID: UInt32) -> Bool {
        if uid == 0 || uid == daemonUID || uids.contains(uid) { return true }
        return peerGids.contains { gids.contains($0) }
    }
}

/// `eventLog` in the config.
public enum EventLogSetting: Sendable, Equatable {
    /// Not given: `$STATE_DIRECTORY/events.jsonl`, else `$XDG_STATE_HOME/tapgrid/events.jsonl`.
    case standard
    /// `"eventLog": false`.
    case off
    case path(String)
}

/// One entry of `handlers`.
public struct HandlerConfig: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Opens actionData (a URL whose scheme is allowed) with `command + [url]`.
        case url(command: [String], schemes: [String])
        /// Runs `interpreter + [actionData]`, or the executable named by actionData in `directory`.
        case script(interpreter: [String]?, directory: String?)
        /// Makes the layout named by actionData current.
        case layout
        /// Writes one log record.
        case log
        /// Publishes actionData to `topic` on the config's broker (`qos` 0 or 1, `retain`).
        case mqtt(topic: String, qos: Int, retain: Bool)
    }
    public var name: String
    public var kind: Kind
    public var timeoutSeconds: Double = 30
    public var killGraceSeconds: Double = 2
    public var maxConcurrent: Int = 4
    public var queue: Int = 16

    public init(name: String, kind: Kind, timeoutSeconds: Double = 30, killGraceSeconds: Double = 2, maxConcurrent: Int = 4, queue: Int = 16) {
        self.name = name
        self.kind = kind
        self.timeoutSeconds = timeoutSeconds
        self.killGraceSeconds = killGraceSeconds
        self.maxConcurrent = maxConcurrent
        self.queue = queue
    }

    public var typeName: String {
        switch kind {
        case .url: return "url"
        case .script: return "script"
        case .layout: return "layout"
        case .log: return "log"
        case .mqtt: return "mqtt"
        }
    }

    /// Whether taps on this handler start a child process.
    public var spawnsChildren: Bool {
        switch kind {
        case .url, .script: return true
        case .layout, .log, .mqtt: return false
        }
    }
}

/// One entry of `routes`: taps of the classes in `on` on grids whose tag is in `tags` (or all,
/// when nil) go to `handler`.
public struct Route: Sendable, Equatable {
    public var tags: [Int64]?
    public var handler: Int
    /// The classes it routes (`"on"`); `[.tap]` when absent.
    public var on: [TapClass] = [.tap]
}
