/// What the panel's HTTP server knows of a request before answering it: the parts its guards
/// and routes look at (docs/panel.md "Browser panel", guards). Filled by the daemon from libmicrohttpd.
public struct PanelRequestHead: Sendable, Equatable {
    public var method: String
    /// The path without the query (`/events`).
    public var path: String
    public var host: String?
    public var origin: String?
    public var contentType: String?
    /// The `tapgrid_panel` cookie's value.
    public var cookieToken: String?
    /// The `token` query argument.
    public var queryToken: String?
    /// The body was longer than `PanelGuard.maxBodyBytes` (the rest was not kept).
    public var bodyTooLarge = false

    public init(method: String, path: String, host: String? = nil, origin: String? = nil, contentType: String? = nil,
                cookieToken: String? = nil, queryToken: String? = nil, bodyTooLarge: Bool = false) {
        self.method = method
        self.path = path
        self.host = host
        self.origin = origin
        self.contentType = contentType
        self.cookieToken = cookieToken
        self.queryToken = queryToken
        self.bodyTooLarge = bodyTooLarge
    }
}

/// What a request that passed the guards asks for.
public enum PanelRoute: Sendable, Equatable {
    /// `GET /`; `setCookie`: it came with the right `?token=`, so the answer sets the cookie.
    case page(setCookie: Bool)
    case layout
    case events
    case contact
    case tap
}

/// An HTTP refusal: status, the error code of the JSON body, and a message naming what was wrong.
public struct PanelRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String

    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// `{"error": {"code": ..., "message": ...}}` and a newline, like the socket's errors.
    public var body: [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendStatic(#"{"error":{"code":"#, to: &out)
        JSONWriter.appendString(code, to: &out)
        JSONWriter.appendStatic(#","message":"#, to: &out)
        JSONWriter.appendString(message, to: &out)
        JSONWriter.appendStatic("}}\n", to: &out)
        return out
    }
}

/// The panel's guards, as a local web server needs them: the `Host` check against DNS
/// rebinding (421), the token (401), the routes (404, 405), and for a `POST` its content type
/// (415), its `Origin` (403) and its size (413). Pure: the daemon asks, then carries out.
public struct PanelGuard: Sendable {
    /// Bodies longer than this are refused (413).
    public static let maxBodyBytes = 65_536
    /// The cookie the `?token=` visit sets.
    public static let cookieName = "tapgrid_panel"

    /// Host names besides the loopback ones: the listen address's and `hosts`.
    private let names: Set<String>
    private let token: [UInt8]?

    /// - Parameter token: required on every request (cookie, or `?token=` on `GET /`); nil: none.
    public init(_ config: PanelConfig, token: String?) {
        var names = Set(config.hosts.map { $0.lowercased() })
        if case .tcp(let host, _) = config.listen { names.insert(host.lowercased()) }
        self.names = names
        self.token = token.map { Array($0.utf8) }
    }

    public func decide(_ head: PanelRequestHead) -> Result<PanelRoute, PanelRefusal> {
        guard let host = head.host, let name = Self.hostName(host) else {
            return .failure(PanelRefusal(400, "bad_request", "the request has no valid Host header"))
        }
        guard PanelConfig.isLoopback(name) || names.contains(name) else {
            return .failure(PanelRefusal(
                421, "misdirected", "Host \(jsonEscaped(host)) is not this panel's; add \(jsonEscaped(name)) to panel.hosts to open it by that name"))
        }
        var setCookie = false
        if let token {
            if head.method == "GET" && head.path == "/", let given = head.queryToken, Self.equalInConstantTime(Array(given.utf8), token) {
                setCookie = true
            } else if !(head.cookieToken.map { Self.equalInConstantTime(Array($0.utf8), token) } ?? false) {
                return .failure(PanelRefusal(401, "unauthorized", "open the panel once as /?token=... (panel.tokenFile's token); it then sets a cookie"))
            }
        }
        let route: PanelRoute
        let method: String
        switch head.path {
        case "/", "/index.html": (route, method) = (.page(setCookie: setCookie), "GET")
        case "/layout": (route, method) = (.layout, "GET")
        case "/events": (route, method) = (.events, "GET")
        case "/contact": (route, method) = (.contact, "POST")
        case "/tap": (route, method) = (.tap, "POST")
        default:
            return .failure(PanelRefusal(404, "not_found", "no such page \(jsonEscaped(head.path)); the panel serves /, /layout, /events, POST /contact and POST /tap"))
        }
        guard head.method == method || (method == "GET" && head.method == "HEAD") else {
            return .failure(PanelRefusal(405, "method_not_allowed", "\(head.path) takes \(method), not \(jsonEscaped(head.method))"))
        }
        if method == "POST" {
            let type = head.contentType.map { Self.mediaType($0) }
            guard type == "application/json" else {
                return .failure(PanelRefusal(
                    415, "unsupported_media_type", "a POST needs Content-Type: application/json, found " + (head.contentType.map(jsonEscaped) ?? "none")))
            }
            if let origin = head.origin, origin != "http://" + host && origin != "https://" + host {
                return .failure(PanelRefusal(403, "forbidden", "Origin \(jsonEscaped(origin)) is not the panel's own (http://\(host))"))
            }
            if head.bodyTooLarge {
                return .failure(PanelRefusal(413, "too_large", "the body is over \(Self.maxBodyBytes) bytes"))
            }
        }
        return .success(route)
    }

    /// The name of a `Host` header (`name`, `name:port`, `[v6]:port`), lowercased; nil when malformed.
    static func hostName(_ header: String) -> String? {
        var text = Substring(header)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if let colon = text.firstIndex(of: ":") {
            guard text[text.index(after: colon)...].allSatisfy(\.isNumber) else { return nil }
            text = text[..<colon]
        }
        let name = String(text).lowercased()
        return ConfigParser.isHostName(name) ? name : nil
    }

    /// `application/json; charset=utf-8` → `application/json`.
    static func mediaType(_ header: String) -> String {
        let type = header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingSpaces().lowercased()
    }

    /// Compares every byte whatever differs first, so the time taken says nothing of the token.
    public static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= (index < a.count ? a[index] : 0) ^ b[index] }
        return difference == 0
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
