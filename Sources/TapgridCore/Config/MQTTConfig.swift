/// `mqtt` in the config: the fleet connection to one broker (docs/fleet.md "The `mqtt` block").
public struct MQTTConfig: Sendable, Equatable {
    /// Where the broker listens.
    public typealias Broker = NetworkAddress

    /// `tls`: the files libmosquitto's `mosquitto_tls_set` takes, each absolute or resolved
    /// against the config's folder.
    public struct TLS: Sendable, Equatable {
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
    }

    public var broker: Broker
    /// `node`; nil: the host name, read by the daemon.
    public var node: String?
    public var groups: [String] = []
    public var prefix = "tapgrid"
    public var username: String?
    /// Absolute, or resolved against the config's folder; its first line is the password.
    public var passwordFile: String?
    public var tls: TLS?
    public var keepaliveSeconds = 30
    /// The command ops accepted from the broker (`[]`: publish only).
    public var accept: [String] = []
    /// Action messages older than this are dropped, never sent late.
    public var maxAgeSeconds: Double = 30
    /// `homeAssistant.prefix` when discovery is on, else nil.
    public var homeAssistantPrefix: String?

    /// The files the block names, each with its JSON path, for `tapgrid check`.
    public var files: [(key: String, path: String)] {
        var files: [(String, String)] = []
        if let passwordFile { files.append(("mqtt.passwordFile", passwordFile)) }
        if let caFile = tls?.caFile { files.append(("mqtt.tls.caFile", caFile)) }
        if let certFile = tls?.certFile { files.append(("mqtt.tls.certFile", certFile)) }
        if let keyFile = tls?.keyFile { files.append(("mqtt.tls.keyFile", keyFile)) }
        return files
    }

    /// The ops a command topic's last level may name.
    public static let commandOps = ["tap", "hit", "use", "reload", "status", "layouts", "set", "load", "unload", "wake", "screen"]

    /// Whether `text` is 1-64 characters of `[A-Za-z0-9_-]`: a node, group, prefix or cell key
    /// that puts nothing into a topic but one level.
    public static func isTopicName(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D
        }
    }

    /// A cell's topic key: its name when that is a topic name, else its path with `-` for `/`
    /// (`root` for the root, whose path is empty).
    public static func cellKey(name: String?, path: String) -> String {
        if let name, isTopicName(name) { return name }
        return path.isEmpty ? "root" : String(path.map { $0 == "/" ? "-" : $0 })
    }

    /// The topic key of grid `index` of `tree`: its name or path as `cellKey(name:path:)` says;
    /// nil for a grid no tap can hit (it has no topics). The one place the daemon, Home
    /// Assistant discovery and the config's warnings read a grid's key from.
    public static func cellKey(ofGrid index: Int, in tree: GridTree) -> String? {
        guard tree.nodes[index].hittable else { return nil }
        let slot = Int(tree.nodes[index].info)
        return cellKey(name: slot >= 0 ? tree.infos[slot].name : nil, path: tree.path(of: index))
    }
}

/// Where a server listens or a client connects: the broker's `mqtt.broker`, the panel's `panel.listen`.
public enum NetworkAddress: Sendable, Equatable {
    /// `host:port`: a name, an IPv4 address, or an IPv6 address (written `[v6]:port`, kept
    /// here without the brackets).
    case tcp(host: String, port: Int)
    /// A Unix socket's path (libmosquitto takes it as the host with port 0).
    case unix(path: String)

    /// As a config writes it: `host:port`, `[v6]:port`, or the socket's path.
    public var text: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): return path
        }
    }
}
