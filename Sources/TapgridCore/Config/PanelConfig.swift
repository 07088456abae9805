/// `panel` in the config: the browser panel the daemon serves (docs/panel.md "Browser panel").
public struct PanelConfig: Sendable, Equatable {
    /// `listen`: `host:port` or a Unix socket path; a socket systemd passes named `panel` wins.
    public var listen: NetworkAddress = .tcp(host: "127.0.0.1", port: PanelConfig.defaultPort)
    /// `hosts`: names besides the loopback ones and the listen address a `Host` header may carry
    /// (a kiosk that opens the page as `http://kiosk.local:8480/`).
    public var hosts: [String] = []
    /// `tokenFile`: its first line is the token the page is opened with once (`/?token=...`);
    /// required when `listen` is not a loopback address.
    public var tokenFile: String?
    /// `title`: the page's title.
    public var title = "tapgrid"
    /// `maxClients`: how many event streams may be open at once (the next one is a 503).
    public var maxClients = 64

    public init() {}

    public static let defaultPort = 8480

    /// Whether `host` (without port or brackets) names this machine's loopback interface only.
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered == "::1" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in
            !part.isEmpty && part.utf8.count <= 3 && part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && Int(part)! <= 255
        }
    }

    /// Whether requests must carry the token: a token file was given, or the panel listens on a
    /// TCP address other than loopback (then the config requires one).
    public var needsToken: Bool { tokenFile != nil }

    /// The files the block names, each with its JSON path, for `tapgrid check`.
    public var files: [(key: String, path: String)] { tokenFile.map { [("panel.tokenFile", $0)] } ?? [] }
}
