import Testing

@testable import TapgridCore

/// The panel's guards in the order they run: the `Host` check (400, 421), the token (401), the
/// routes (404, 405), then for a `POST` its content type (415), its `Origin` (403) and its size
/// (413). Each refusal with its exact status and code, and a message naming what was wrong.
@Suite struct PanelGuardTests {
    static let token = "s3cret-T0ken"

    /// The default panel (127.0.0.1:8480), no token.
    static let open = PanelGuard(PanelConfig(), token: nil)

    /// Listening on a LAN address, with a token and one extra host name.
    static let locked: PanelGuard = {
        var config = PanelConfig()
        config.listen = .tcp(host: "192.168.1.20", port: 8480)
        config.hosts = ["Kiosk.Local"]
        config.tokenFile = "/etc/tapgrid/panel-token"
        return PanelGuard(config, token: token)
    }()

    func head(_ method: String = "GET", _ path: String = "/", host: String? = "127.0.0.1:8480", origin: String? = nil,
              contentType: String? = nil, cookie: String? = nil, query: String? = nil, tooLarge: Bool = false) -> PanelRequestHead {
        PanelRequestHead(method: method, path: path, host: host, origin: origin, contentType: contentType,
                         cookieToken: cookie, queryToken: query, bodyTooLarge: tooLarge)
    }

    func refusal(_ result: Result<PanelRoute, PanelRefusal>) -> PanelRefusal? {
        guard case .failure(let refusal) = result else { return nil }
        return refusal
    }

    // MARK: Host

    @Test func aRequestWithoutAValidHostIsABadRequest() {
        let expected = PanelRefusal(400, "bad_request", "the request has no valid Host header")
        #expect(refusal(Self.open.decide(head(host: nil))) == expected)
        #expect(refusal(Self.open.decide(head(host: ""))) == expected)
        #expect(refusal(Self.open.decide(head(host: "localhost:80a"))) == expected)
        #expect(refusal(Self.open.decide(head(host: "[::1"))) == expected)
        #expect(refusal(Self.open.decide(head(host: "[::1]8480"))) == expected)
        #expect(refusal(Self.open.decide(head(host: "evil host"))) == expected)
        // Checked before the token: a locked panel says the same, not 401.
        #expect(refusal(Self.locked.decide(head(host: nil))) == expected)
    }

    @Test(arguments: [
        "127.0.0.1", "127.0.0.1:8480", "127.1.2.3:9", "localhost", "LOCALHOST:8480", "app.localhost:8480",
        "[::1]", "[::1]:8480",
    ])
    func loopbackNamesPass(host: String) {
        #expect(Self.open.decide(head(host: host)) == .success(.page(setCookie: false)))
    }

    @Test func aForeignHostIsMisdirected() {
        #expect(refusal(Self.open.decide(head(host: "evil.example:8480")))
            == PanelRefusal(421, "misdirected", #"Host "evil.example:8480" is not this panel's; add "evil.example" to panel.hosts to open it by that name"#))
        // A rebinding name that resolves to 127.0.0.1 is still refused by its name.
        #expect(refusal(Self.open.decide(head(host: "127.0.0.1.evil.example")))?.status == 421)
        // The listen host of another panel, or a hosts entry of another config, is not this one's.
        #expect(refusal(Self.open.decide(head(host: "192.168.1.20:8480")))?.status == 421)
        #expect(refusal(Self.open.decide(head(host: "kiosk.local")))?.status == 421)
        // Checked before the token.
        #expect(refusal(Self.locked.decide(head(host: "evil.example", cookie: Self.token)))?.status == 421)
    }

    @Test func theListenHostAndHostsEntriesPass() {
        for host in ["192.168.1.20", "192.168.1.20:8480", "kiosk.local", "KIOSK.LOCAL:8480", "localhost:8480"] {
            #expect(Self.locked.decide(head(host: host, cookie: Self.token)) == .success(.page(setCookie: false)), "\(host)")
        }
        var v6 = PanelConfig()
        v6.listen = .tcp(host: "fd00::20", port: 8480)
        v6.tokenFile = "/t"
        #expect(PanelGuard(v6, token: "t").decide(head(host: "[fd00::20]:8480", cookie: "t")) == .success(.page(setCookie: false)))
        #expect(refusal(PanelGuard(v6, token: "t").decide(head(host: "[fd00::21]:8480", cookie: "t")))?.status == 421)
    }

    // MARK: Token

    @Test func withoutTheCookieEveryPathIsUnauthorized() {
        let expected = PanelRefusal(401, "unauthorized", "open the panel once as /?token=... (panel.tokenFile's token); it then sets a cookie")
        for path in ["/", "/layout", "/events", "/nope"] {
            #expect(refusal(Self.locked.decide(head("GET", path, host: "kiosk.local"))) == expected, "\(path)")
        }
        #expect(refusal(Self.locked.decide(head("POST", "/tap", host: "kiosk.local", contentType: "application/json"))) == expected)
    }

    @Test func theRightQueryTokenOpensThePageAndSetsTheCookie() {
        #expect(Self.locked.decide(head(host: "kiosk.local", query: Self.token)) == .success(.page(setCookie: true)))
        // A right query token with a right cookie still sets it (a renewed visit).
        #expect(Self.locked.decide(head(host: "kiosk.local", cookie: Self.token, query: Self.token)) == .success(.page(setCookie: true)))
        // A cookie alone: the page, no new cookie.
        #expect(Self.locked.decide(head(host: "kiosk.local", cookie: Self.token)) == .success(.page(setCookie: false)))
        // Without a token the page never sets a cookie, whatever the query says.
        #expect(Self.open.decide(head(query: "anything")) == .success(.page(setCookie: false)))
    }

    @Test func aWrongTokenIsUnauthorized() {
        for wrong in ["s3cret-T0ke", "s3cret-T0ken!", "S3CRET-T0KEN", "", "s3cret-T0keN"] {
            #expect(refusal(Self.locked.decide(head(host: "kiosk.local", query: wrong)))?.status == 401, "query \(wrong)")
            #expect(refusal(Self.locked.decide(head(host: "kiosk.local", cookie: wrong)))?.status == 401, "cookie \(wrong)")
        }
        // The query token is taken on GET / only: elsewhere it does not authorize.
        #expect(refusal(Self.locked.decide(head("GET", "/layout", host: "kiosk.local", query: Self.token)))?.status == 401)
        #expect(refusal(Self.locked.decide(head("POST", "/tap", host: "kiosk.local", contentType: "application/json", query: Self.token)))?.status == 401)
    }

    @Test func theCookieIsAcceptedOnEveryRoute() {
        let host = "kiosk.local:8480"
        #expect(Self.locked.decide(head("GET", "/layout", host: host, cookie: Self.token)) == .success(.layout))
        #expect(Self.locked.decide(head("GET", "/events", host: host, cookie: Self.token)) == .success(.events))
        #expect(Self.locked.decide(head("POST", "/contact", host: host, contentType: "application/json", cookie: Self.token)) == .success(.contact))
        #expect(Self.locked.decide(head("POST", "/tap", host: host, origin: "http://kiosk.local:8480", contentType: "application/json", cookie: Self.token))
            == .success(.tap))
    }

    // MARK: Routes and methods

    @Test func routes() {
        #expect(Self.open.decide(head("GET", "/")) == .success(.page(setCookie: false)))
        #expect(Self.open.decide(head("GET", "/index.html")) == .success(.page(setCookie: false)))
        #expect(Self.open.decide(head("GET", "/layout")) == .success(.layout))
        #expect(Self.open.decide(head("GET", "/events")) == .success(.events))
        #expect(Self.open.decide(head("POST", "/contact", contentType: "application/json")) == .success(.contact))
        #expect(Self.open.decide(head("POST", "/tap", contentType: "application/json")) == .success(.tap))
    }

    @Test func anUnknownPathIsNotFound() {
        #expect(refusal(Self.open.decide(head("GET", "/admin")))
            == PanelRefusal(404, "not_found", #"no such page "/admin"; the panel serves /, /layout, /events, POST /contact and POST /tap"#))
        #expect(refusal(Self.open.decide(head("GET", "/layout/")))?.status == 404)
        #expect(refusal(Self.open.decide(head("POST", "/Tap", contentType: "application/json")))?.status == 404)
        #expect(refusal(Self.locked.decide(head("GET", "/favicon.ico", host: "kiosk.local", cookie: Self.token)))?.status == 404)
    }

    @Test func aWrongMethodIsNotAllowed() {
        #expect(refusal(Self.open.decide(head("POST", "/layout", contentType: "application/json")))
            == PanelRefusal(405, "method_not_allowed", #"/layout takes GET, not "POST""#))
        #expect(refusal(Self.open.decide(head("GET", "/tap")))
            == PanelRefusal(405, "method_not_allowed", #"/tap takes POST, not "GET""#))
        #expect(refusal(Self.open.decide(head("PUT", "/contact", contentType: "application/json")))?.status == 405)
        #expect(refusal(Self.open.decide(head("DELETE", "/")))?.status == 405)
        #expect(refusal(Self.open.decide(head("get", "/")))?.status == 405)
        // HEAD is not a POST route's method either.
        #expect(refusal(Self.open.decide(head("HEAD", "/tap")))?.status == 405)
    }

    @Test func headIsAllowedOnGetRoutes() {
        #expect(Self.open.decide(head("HEAD", "/")) == .success(.page(setCookie: false)))
        #expect(Self.open.decide(head("HEAD", "/layout")) == .success(.layout))
        #expect(Self.open.decide(head("HEAD", "/events")) == .success(.events))
    }

    // MARK: POST: content type, Origin, size

    @Test func aPostWithoutJSONIsAnUnsupportedMediaType() {
        #expect(refusal(Self.open.decide(head("POST", "/tap")))
            == PanelRefusal(415, "unsupported_media_type", "a POST needs Content-Type: application/json, found none"))
        #expect(refusal(Self.open.decide(head("POST", "/contact", contentType: "text/plain")))
            == PanelRefusal(415, "unsupported_media_type", #"a POST needs Content-Type: application/json, found "text/plain""#))
        for type in ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", "application/json-seq", ""] {
            #expect(refusal(Self.open.decide(head("POST", "/tap", contentType: type)))?.status == 415, "\(type)")
        }
    }

    @Test(arguments: [
        "application/json", "application/json; charset=utf-8", "Application/JSON", "APPLICATION/JSON;CHARSET=UTF-8",
        " application/json ", "application/json;",
    ])
    func jsonContentTypesAreAccepted(type: String) {
        #expect(Self.open.decide(head("POST", "/tap", contentType: type)) == .success(.tap))
    }

    @Test func aForeignOriginIsForbidden() {
        #expect(refusal(Self.open.decide(head("POST", "/tap", origin: "http://evil.example", contentType: "application/json")))
            == PanelRefusal(403, "forbidden", #"Origin "http://evil.example" is not the panel's own (http://127.0.0.1:8480)"#))
        // Same name, other port; another name of this machine; "null" from a sandboxed frame.
        // Near misses: the own origin as a prefix or a suffix of another one.
        for origin in ["http://127.0.0.1:9999", "http://127.0.0.1", "http://localhost:8480", "null", "https://evil.example",
                       "http://127.0.0.1:8480.evil.example", "http://evil127.0.0.1:8480", "ftp://127.0.0.1:8480"] {
            #expect(refusal(Self.open.decide(head("POST", "/contact", origin: origin, contentType: "application/json")))?.status == 403, "\(origin)")
        }
        // Only POSTs are checked: a GET with a foreign Origin (a cross-origin fetch the browser keeps unread) passes.
        #expect(Self.open.decide(head("GET", "/layout", origin: "http://evil.example")) == .success(.layout))
    }

    @Test func theOwnOriginOrNoneIsAccepted() {
        #expect(Self.open.decide(head("POST", "/tap", origin: "http://127.0.0.1:8480", contentType: "application/json")) == .success(.tap))
        #expect(Self.open.decide(head("POST", "/tap", host: "[::1]:8480", origin: "http://[::1]:8480", contentType: "application/json")) == .success(.tap))
        #expect(Self.open.decide(head("POST", "/tap", contentType: "application/json")) == .success(.tap))
    }

    @Test func aBodyTooLargeIsRefused() {
        #expect(refusal(Self.open.decide(head("POST", "/contact", contentType: "application/json", tooLarge: true)))
            == PanelRefusal(413, "too_large", "the body is over 65536 bytes"))
        // The content type and the Origin are checked first.
        #expect(refusal(Self.open.decide(head("POST", "/contact", contentType: "text/plain", tooLarge: true)))?.status == 415)
        #expect(refusal(Self.open.decide(head("POST", "/contact", origin: "http://evil.example", contentType: "application/json", tooLarge: true)))?.status == 403)
    }

    // MARK: Helpers

    @Test func equalInConstantTime() {
        func equal(_ a: String, _ b: String) -> Bool { PanelGuard.equalInConstantTime(Array(a.utf8), Array(b.utf8)) }
        #expect(equal("token", "token"))
        #expect(equal("", ""))
        #expect(!equal("token", "tokeN"))
        #expect(!equal("Token", "token"))
        // Different lengths, either way, with one a prefix of the other.
        #expect(!equal("tok", "token"))
        #expect(!equal("token", "tok"))
        #expect(!equal("tokenx", "token"))
        #expect(!equal("", "token"))
        #expect(!equal("token", ""))
        // Lengths that differ by a multiple of 256 (the count's low byte alone is equal).
        #expect(!PanelGuard.equalInConstantTime([UInt8](repeating: 0, count: 256), []))
        #expect(!PanelGuard.equalInConstantTime([], [UInt8](repeating: 0, count: 256)))
        #expect(!PanelGuard.equalInConstantTime([UInt8](repeating: 7, count: 300), [UInt8](repeating: 7, count: 44)))
    }

    @Test func aRefusalsBodyIsJSONWithItsCodeAndMessage() throws {
        let refusal = PanelRefusal(403, "forbidden", #"Origin "http://x" is not "ours" \ at all"#)
        let body = refusal.body
        #expect(body.last == 0x0A)
        let value = try JSONParser.parse(Array(body.dropLast()), lenient: false, maxDepth: 8)
        #expect(value["error"]?["code"] == .string("forbidden"))
        #expect(value["error"]?["message"] == .string(#"Origin "http://x" is not "ours" \ at all"#))
        guard case .object(let members) = value, case .object(let inner)? = value["error"] else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(members.map(\.key) == ["error"])
        #expect(inner.map(\.key) == ["code", "message"])
        // Every refusal decide gives is such a body.
        let decided = try #require(self.refusal(Self.open.decide(head(host: "evil\"host"))))
        #expect(decided.status == 400)
        let parsed = try JSONParser.parse(Array(decided.body.dropLast()), lenient: false, maxDepth: 8)
        #expect(parsed["error"]?["message"] == .string(decided.message))
    }
}
