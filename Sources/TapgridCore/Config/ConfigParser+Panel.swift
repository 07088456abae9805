extension ConfigParser {
    static let panelKeys = ["listen", "hosts", "tokenFile", "title", "maxClients"]

    /// `panel`: where the browser panel listens and who may use it. Nil when absent or wrong
    /// (an error then says why).
    mutating func parsePanel(_ value: JSONValue?) -> PanelConfig? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            error("panel", #"expected an object such as {"listen": "127.0.0.1:8480"}, found "# + shown(value))
            return nil
        }
        for member in members where !ConfigParser.panelKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.panelKeys)
            warning("panel.\(member.key)", "unknown key ignored" + hintOrList(hint, "use " + ConfigParser.panelKeys.joined(separator: ", ")))
        }
        let before = diagnostics.errors.count
        var panel = PanelConfig()
        if let listen = value["listen"],
           let address = parseAddress(listen, path: "panel.listen", port: PanelConfig.defaultPort,
                                      portHint: "8480 is the panel's usual port", relativePaths: true) {
            panel.listen = address
        }
        if let hosts = value["hosts"] {
            if case .array(let elements) = hosts {
                for (index, element) in elements.enumerated() {
                    guard case .string(let name) = element, Self.isHostName(name) else {
                        error("panel.hosts[\(index)]", "expected a host name such as \"kiosk.local\" (letters, digits, '-', '.', or an IP address; no port), found " + shown(element))
                        continue
                    }
                    panel.hosts.append(name.lowercased())
                }
            } else {
                error("panel.hosts", #"expected an array of host names such as ["kiosk.local"], found "# + shown(hosts))
            }
        }
        if let file = value["tokenFile"] { panel.tokenFile = filePath(file, path: "panel.tokenFile") }
        if let title = value["title"] {
            if case .string(let text) = title, !text.isEmpty, text.utf8.count <= 200, !text.utf8.contains(where: { $0 < 0x20 }) {
                panel.title = text
            } else {
                error("panel.title", "expected a non-empty string of at most 200 bytes without control characters, found " + shown(title))
            }
        }
        if let limit = value["maxClients"] {
            if case .number(let n) = limit, let int = n.int64, int >= 1, int <= 10_000 {
                panel.maxClients = Int(int)
            } else {
                error("panel.maxClients", "expected an integer from 1 to 10000 (event streams), found " + shown(limit))
            }
        }
        if case .tcp(let host, _) = panel.listen, !PanelConfig.isLoopback(host), panel.tokenFile == nil, value["tokenFile"] == nil {
            error("panel.listen", "\(jsonEscaped(panel.listen.text)) is not a loopback address, so the panel needs \"tokenFile\" "
                + "(a file whose first line is the token the page is opened with once, as /?token=...)")
        }
        return diagnostics.errors.count > before ? nil : panel
    }

    /// A `Host` header's name part as `hosts` lists it: a DNS name or an IPv4 or IPv6 address.
    static func isHostName(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty && bytes.count <= 253 && bytes.allSatisfy({ byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x3A
        }) else { return false }
        // A colon makes it an IPv6 address (hex digits, '.' and two colons at least), never `name:port`.
        let colons = bytes.reduce(0) { $0 + ($1 == 0x3A ? 1 : 0) }
        return colons == 0 || (colons >= 2 && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." })
    }
}
