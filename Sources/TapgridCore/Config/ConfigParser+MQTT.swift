extension ConfigParser {
    static let mqttKeys = ["broker", "node", "groups", "prefix", "username", "passwordFile", "tls", "keepaliveSeconds",
                           "accept", "maxAgeSeconds", "homeAssistant"]
    static let mqttTLSKeys = ["caFile", "certFile", "keyFile"]
    static let topicNameRule = "1-64 characters of A-Z, a-z, 0-9, _ and -"

    /// `mqtt`: the broker and this node's names, checked so that no topic can be injected. Nil
    /// when absent or wrong (an error then says why).
    mutating func parseMQTT(_ value: JSONValue?) -> MQTTConfig? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            error("mqtt", #"expected an object such as {"broker": "127.0.0.1:1883", "node": "kitchen"}, found "# + shown(value))
            return nil
        }
        for member in members where !ConfigParser.mqttKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.mqttKeys)
            warning("mqtt.\(member.key)", "unknown key ignored" + hintOrList(hint, "use " + ConfigParser.mqttKeys.joined(separator: ", ")))
        }
        let before = diagnostics.errors.count
        var broker = MQTTConfig.Broker.unix(path: "/")
        if let brokerValue = value["broker"] {
            if let parsed = parseAddress(brokerValue, path: "mqtt.broker", port: 1883, portHint: "1883 is MQTT's port, 8883 with TLS") {
                broker = parsed
            }
        } else {
            error("mqtt", #"needs "broker": "host:port" (e.g. "127.0.0.1:1883") or a Unix socket path starting with /"#)
        }
        var mqtt = MQTTConfig(broker: broker)
        if let node = value["node"] {
            mqtt.node = topicName(node, path: "mqtt.node", what: "node")
        }
        if let groups = value["groups"] {
            if case .array(let elements) = groups {
                for (index, element) in elements.enumerated() {
                    let path = "mqtt.groups[\(index)]"
                    guard let name = topicName(element, path: path, what: "group") else { continue }
                    if let first = mqtt.groups.firstIndex(of: name) {
                        error(path, "\(jsonEscaped(name)) is already listed (mqtt.groups[\(first)])")
                    } else if name == mqtt.node {
                        error(path, "\(jsonEscaped(name)) is this node's name; a group must be named apart from it")
                    } else {
                        mqtt.groups.append(name)
                    }
                }
            } else {
                error("mqtt.groups", #"expected an array of group names such as ["plates"], found "# + shown(groups))
            }
        }
        if let prefix = value["prefix"], let name = topicName(prefix, path: "mqtt.prefix", what: "prefix") { mqtt.prefix = name }
        if let username = value["username"] {
            if case .string(let text) = username, !text.isEmpty, !text.utf8.contains(0) {
                mqtt.username = text
            } else {
                error("mqtt.username", "expected a non-empty string, found " + shown(username))
            }
        }
        if let file = value["passwordFile"] { mqtt.passwordFile = filePath(file, path: "mqtt.passwordFile") }
        if mqtt.passwordFile != nil && mqtt.username == nil {
            error("mqtt.passwordFile", #"a password needs "username" too (MQTT sends no password without a user name)"#)
        }
        if let tls = value["tls"] { mqtt.tls = parseMQTTTLS(tls) }
        if let keepalive = value["keepaliveSeconds"] {
            if case .number(let n) = keepalive, let seconds = n.int64, seconds >= 5, seconds <= 65_535 {
                mqtt.keepaliveSeconds = Int(seconds)
            } else {
                error("mqtt.keepaliveSeconds", "expected an integer from 5 to 65535 (seconds), found " + shown(keepalive))
            }
        }
        if let accept = value["accept"] { mqtt.accept = parseAccept(accept) }
        if let age = positive(value["maxAgeSeconds"], path: "mqtt.maxAgeSeconds", allowZero: false) { mqtt.maxAgeSeconds = age }
        if let ha = value["homeAssistant"] { mqtt.homeAssistantPrefix = parseHomeAssistant(ha) }
        return diagnostics.errors.count > before ? nil : mqtt
    }

    /// `host:port`, `[v6]:port` or `/path` (with `relativePaths`, also `./path` and `../path`,
    /// resolved against the config's folder). `portHint` says which port to write when it is missing.
    mutating func parseAddress(_ value: JSONValue, path: String, port defaultPort: Int, portHint: String, relativePaths: Bool = false) -> NetworkAddress? {
        let expected = #"expected "host:port" (a name, an IPv4 address or "[v6]:port") or a Unix socket path starting with /, found "#
        guard case .string(let text) = value, !text.isEmpty, !text.utf8.contains(0) else {
            error(path, expected + shown(value))
            return nil
        }
        if text.hasPrefix("/") { return .unix(path: normalizedPath(text)) }
        if relativePaths && (text.hasPrefix("./") || text.hasPrefix("../")) { return .unix(path: resolvePath(text)) }
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                error(path, expected + shown(value))
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.contains(":") else {
                error(path, "\(jsonEscaped(String(host))) in brackets is not an IPv6 address")
                return nil
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                error(path, "\(shown(value)) has no port; write \"\(text):\(defaultPort)\" (\(portHint))")
                return nil
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") {
                error(path, "an IPv6 address is written in brackets with its port: \"[\(host)]:\(portText)\"")
                return nil
            }
            let hostBytes = host.utf8
            let allowed = hostBytes.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            }
            guard !host.isEmpty, allowed, hostBytes.count <= 253 else {
                error(path, "\(jsonEscaped(String(host))) is not a host name or an IPv4 address")
                return nil
            }
        }
        guard portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = Int(portText), port >= 1, port <= 65_535 else {
            error(path, "\(jsonEscaped(String(portText))) is not a port; expected an integer from 1 to 65535")
            return nil
        }
        return .tcp(host: String(host), port: port)
    }

    /// A node, group or prefix name, or nil (with an error) when it could inject a topic.
    mutating func topicName(_ value: JSONValue, path: String, what: String) -> String? {
        guard case .string(let text) = value, MQTTConfig.isTopicName(text) else {
            error(path, "expected a \(what) name of \(ConfigParser.topicNameRule), found " + shown(value))
            return nil
        }
        if text == "broadcast" && what != "prefix" {
            error(path, #""broadcast" names the topics every node reads; it cannot be a \#(what) name"#)
            return nil
        }
        return text
    }

    /// A file named by the block, resolved against the config's folder.
    mutating func filePath(_ value: JSONValue, path: String) -> String? {
        guard case .string(let text) = value, !text.isEmpty, !text.utf8.contains(0) else {
            error(path, "expected a file path (a non-empty string), found " + shown(value))
            return nil
        }
        return resolvePath(text)
    }

    mutating func parseMQTTTLS(_ value: JSONValue) -> MQTTConfig.TLS? {
        guard case .object(let members) = value else {
            error("mqtt.tls", #"expected an object such as {"caFile": "/etc/ssl/certs/ca.pem"}, found "# + shown(value))
            return nil
        }
        for member in members where !ConfigParser.mqttTLSKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.mqttTLSKeys)
            warning("mqtt.tls.\(member.key)", "unknown key ignored" + hintOrList(hint, "use caFile, certFile or keyFile"))
        }
        var tls = MQTTConfig.TLS()
        if let file = value["caFile"] { tls.caFile = filePath(file, path: "mqtt.tls.caFile") }
        if let file = value["certFile"] { tls.certFile = filePath(file, path: "mqtt.tls.certFile") }
        if let file = value["keyFile"] { tls.keyFile = filePath(file, path: "mqtt.tls.keyFile") }
        switch (value["certFile"], value["keyFile"]) {
        case (.some, nil): error("mqtt.tls", #"a client certificate ("certFile") needs its key ("keyFile")"#)
        case (nil, .some): error("mqtt.tls", #"a key ("keyFile") needs its client certificate ("certFile")"#)
        default: break
        }
        return tls
    }

    mutating func parseAccept(_ value: JSONValue) -> [String] {
        let ops = MQTTConfig.commandOps
        guard case .array(let elements) = value else {
            error("mqtt.accept", #"expected an array of command ops such as ["tap", "use"], found "# + shown(value))
            return []
        }
        var accepted: [String] = []
        for (index, element) in elements.enumerated() {
            let path = "mqtt.accept[\(index)]"
            guard case .string(let op) = element, ops.contains(op) else {
                var hint = ""
                if case .string(let op) = element { hint = didYouMean(op, among: ops) }
                error(path, "expected one of " + ops.map { jsonEscaped($0) }.joined(separator: ", ") + ", found " + shown(element) + hint)
                continue
            }
            if let first = accepted.firstIndex(of: op) {
                warning(path, "\(jsonEscaped(op)) is already listed (mqtt.accept[\(first)])")
            } else {
                accepted.append(op)
            }
        }
        return accepted
    }

    /// `homeAssistant`: `{}` or `{"prefix": "homeassistant"}`; the discovery prefix.
    mutating func parseHomeAssistant(_ value: JSONValue) -> String? {
        guard case .object(let members) = value else {
            error("mqtt.homeAssistant", #"expected an object such as {"prefix": "homeassistant"}, found "# + shown(value))
            return nil
        }
        for member in members where member.key != "prefix" {
            warning("mqtt.homeAssistant.\(member.key)", "unknown key ignored" + hintOrList(didYouMean(member.key, among: ["prefix"]), "use prefix"))
        }
        guard let prefix = value["prefix"] else { return "homeassistant" }
        return topicName(prefix, path: "mqtt.homeAssistant.prefix", what: "prefix")
    }

    /// A warning per layout naming the cells whose names cannot be topic keys (their topics use
    /// their paths instead), and the keys two cells of a layout would share.
    mutating func warnAboutCellKeys(_ layout: LoadedLayout) {
        let tree = layout.tree
        var unusable: [String] = []
        var keys: [String: String] = [:]
        var shared: [String] = []
        for index in tree.nodes.indices {
            guard let key = MQTTConfig.cellKey(ofGrid: index, in: tree) else { continue }
            let slot = Int(tree.nodes[index].info)
            let name = slot >= 0 ? tree.infos[slot].name : nil
            let path = tree.path(of: index)
            if let name, key != name, unusable.count < 5 { unusable.append("\(jsonEscaped(name)) (grid \(path.isEmpty ? "root" : path), key \(key))") }
            if let other = keys[key] {
                if shared.count < 5 { shared.append("\(jsonEscaped(key)) (grids \(other.isEmpty ? "root" : other) and \(path.isEmpty ? "root" : path))") }
            } else {
                keys[key] = path
            }
        }
        if !unusable.isEmpty {
            diagnostics.append(Diagnostic(.warning, file: file, layout: layout.name,
                "cell names that cannot be MQTT topic keys (\(ConfigParser.topicNameRule)): their topics use the grid path instead: " + unusable.joined(separator: ", ")))
        }
        if !shared.isEmpty {
            diagnostics.append(Diagnostic(.warning, file: file, layout: layout.name,
                "cells share an MQTT topic key, so their action and state topics are one: " + shared.joined(separator: ", ")))
        }
    }
}
