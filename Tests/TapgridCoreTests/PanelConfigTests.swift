import Testing

@testable import TapgridCore

/// The `panel` block: its defaults, the listen forms, and each mistake refused with a message
/// naming the key; `isLoopback`, which decides whether a token is required.
@Suite struct PanelConfigTests {
    static let layout = #""layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1}]}}}"#

    /// The config with `"panel": <panel>`, parsed as `/etc/tapgrid/t.json`.
    func parse(_ panel: String) -> (Config?, [String]) {
        let text = #"{\#(Self.layout), "panel": \#(panel)}"#
        let document = try! JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            .failure(Diagnostic(.error, "no files: \(path)"))
        }
        let (config, diagnostics) = parser.parse(document)
        return (config, diagnostics.all.map(\.description))
    }

    @Test func noPanelBlockMeansNoPanel() throws {
        let document = try JSONParser.parse(#"{\#(Self.layout)}"#, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { _ in .failure(Diagnostic(.error, "none")) }
        let (config, diagnostics) = parser.parse(document)
        #expect(diagnostics.all.isEmpty)
        #expect(try #require(config).panel == nil)
    }

    @Test func defaults() throws {
        let (config, messages) = parse("{}")
        #expect(messages.isEmpty)
        let panel = try #require(config?.panel)
        #expect(panel == PanelConfig())
        #expect(panel.listen == .tcp(host: "127.0.0.1", port: 8480))
        #expect(panel.hosts == [])
        #expect(panel.tokenFile == nil)
        #expect(panel.title == "tapgrid")
        #expect(panel.maxClients == 64)
        #expect(!panel.needsToken)
        #expect(panel.files.isEmpty)
    }

    @Test func everyKeyIsRead() throws {
        let (config, messages) = parse(#"""
            {"listen": "0.0.0.0:9000", "hosts": ["Kiosk.Local", "192.168.1.20", "fd00::1"], "tokenFile": "secret/panel-token",
             "title": "Küche <1>", "maxClients": 10000}
            """#)
        #expect(messages.isEmpty)
        let panel = try #require(config?.panel)
        #expect(panel.listen == .tcp(host: "0.0.0.0", port: 9000))
        #expect(panel.hosts == ["kiosk.local", "192.168.1.20", "fd00::1"])
        #expect(panel.tokenFile == "/etc/tapgrid/secret/panel-token")
        #expect(panel.title == "Küche <1>")
        #expect(panel.maxClients == 10000)
        #expect(panel.needsToken)
        #expect(panel.files.map(\.key) == ["panel.tokenFile"])
        #expect(panel.files.map(\.path) == ["/etc/tapgrid/secret/panel-token"])
    }

    @Test(arguments: [
        ("127.0.0.1:8480", NetworkAddress.tcp(host: "127.0.0.1", port: 8480)),
        ("localhost:1", .tcp(host: "localhost", port: 1)),
        ("[::1]:8480", .tcp(host: "::1", port: 8480)),
        ("/run/x.sock", .unix(path: "/run/x.sock")),
        ("/run/tapgrid/../x.sock", .unix(path: "/run/x.sock")),
        ("./p.sock", .unix(path: "/etc/tapgrid/p.sock")),
        ("../run/p.sock", .unix(path: "/etc/run/p.sock")),
    ] as [(String, NetworkAddress)])
    func listenForms(text: String, expected: NetworkAddress) {
        let (config, messages) = parse(#"{"listen": "\#(text)"}"#)
        #expect(messages.isEmpty)
        #expect(config?.panel?.listen == expected)
    }

    @Test(arguments: [
        (#"{"listen": "127.0.0.1"}"#, #"t.json: panel.listen: "127.0.0.1" has no port; write "127.0.0.1:8480" (8480 is the panel's usual port)"#),
        (#"{"listen": "localhost"}"#, #"t.json: panel.listen: "localhost" has no port; write "localhost:8480" (8480 is the panel's usual port)"#),
        (#"{"listen": "127.0.0.1:0"}"#, #"t.json: panel.listen: "0" is not a port; expected an integer from 1 to 65535"#),
        (#"{"listen": "::1:8480"}"#, #"t.json: panel.listen: an IPv6 address is written in brackets with its port: "[::1]:8480""#),
        (#"{"listen": 8480}"#, #"t.json: panel.listen: expected "host:port" (a name, an IPv4 address or "[v6]:port") or a Unix socket path starting with /, found 8480"#),
        (#"{"listen": "p.sock"}"#, #"t.json: panel.listen: "p.sock" has no port; write "p.sock:8480" (8480 is the panel's usual port)"#),
        (#""127.0.0.1:8480""#, #"t.json: panel: expected an object such as {"listen": "127.0.0.1:8480"}, found "127.0.0.1:8480""#),
        (#"{"hosts": ["kiosk.local", "kiosk.local:8480"]}"#, #"t.json: panel.hosts[1]: expected a host name such as "kiosk.local" (letters, digits, '-', '.', or an IP address; no port), found "kiosk.local:8480""#),
        (#"{"hosts": ["a b"]}"#, #"t.json: panel.hosts[0]: expected a host name such as "kiosk.local" (letters, digits, '-', '.', or an IP address; no port), found "a b""#),
        (#"{"hosts": [""]}"#, #"t.json: panel.hosts[0]: expected a host name such as "kiosk.local" (letters, digits, '-', '.', or an IP address; no port), found """#),
        (#"{"hosts": [7]}"#, #"t.json: panel.hosts[0]: expected a host name such as "kiosk.local" (letters, digits, '-', '.', or an IP address; no port), found 7"#),
        (#"{"hosts": "kiosk.local"}"#, #"t.json: panel.hosts: expected an array of host names such as ["kiosk.local"], found "kiosk.local""#),
        (#"{"tokenFile": ""}"#, #"t.json: panel.tokenFile: expected a file path (a non-empty string), found """#),
        (#"{"title": ""}"#, #"t.json: panel.title: expected a non-empty string of at most 200 bytes without control characters, found """#),
        (#"{"title": "a\nb"}"#, #"t.json: panel.title: expected a non-empty string of at most 200 bytes without control characters, found "a\nb""#),
        (#"{"title": 5}"#, #"t.json: panel.title: expected a non-empty string of at most 200 bytes without control characters, found 5"#),
        (#"{"maxClients": 0}"#, #"t.json: panel.maxClients: expected an integer from 1 to 10000 (event streams), found 0"#),
        (#"{"maxClients": 10001}"#, #"t.json: panel.maxClients: expected an integer from 1 to 10000 (event streams), found 10001"#),
        (#"{"maxClients": 2.5}"#, #"t.json: panel.maxClients: expected an integer from 1 to 10000 (event streams), found 2.5"#),
        (#"{"maxClients": "64"}"#, #"t.json: panel.maxClients: expected an integer from 1 to 10000 (event streams), found "64""#),
    ])
    func errors(panel: String, expected: String) {
        let (config, messages) = parse(panel)
        #expect(config == nil)
        #expect(messages == [expected])
    }

    @Test func aTitleOfExactly200BytesIsTaken() throws {
        let title = String(repeating: "é", count: 100)
        #expect(try #require(parse(#"{"title": "\#(title)"}"#).0?.panel).title == title)
        let (config, messages) = parse(#"{"title": "\#(title)x"}"#)
        #expect(config == nil)
        #expect(messages.count == 1 && messages[0].hasPrefix("t.json: panel.title: "))
    }

    @Test func aNonLoopbackListenNeedsATokenFile() throws {
        let message = #"t.json: panel.listen: "0.0.0.0:8480" is not a loopback address, so the panel needs "tokenFile" (a file whose first line is the token the page is opened with once, as /?token=...)"#
        let (config, messages) = parse(#"{"listen": "0.0.0.0:8480"}"#)
        #expect(config == nil)
        #expect(messages == [message])
        for listen in ["192.168.1.20:8480", "kiosk.local:8480", "[fd00::1]:8480", "[::]:8480", "127.0.0.1.nip.io:8480"] {
            let (refused, said) = parse(#"{"listen": "\#(listen)"}"#)
            #expect(refused == nil, "\(listen)")
            #expect(said.count == 1, "\(listen): \(said)")
            #expect(said.first?.contains("panel.listen") == true && said.first?.contains("tokenFile") == true, "\(listen)")
            #expect(said.first?.contains("\"\(listen)\" is not a loopback address") == true, "\(listen)")
        }
        // With a token file it is taken; a loopback listen or a Unix socket needs none.
        #expect(try #require(parse(#"{"listen": "0.0.0.0:8480", "tokenFile": "/etc/tapgrid/token"}"#).0?.panel).needsToken)
        for listen in ["127.0.0.2:8480", "localhost:8480", "[::1]:8480", "/run/tapgrid/panel.sock"] {
            let (config, messages) = parse(#"{"listen": "\#(listen)"}"#)
            #expect(messages.isEmpty, "\(listen): \(messages)")
            #expect(config?.panel?.needsToken == false, "\(listen)")
        }
        // A token file that is itself wrong is the one error, not two.
        #expect(parse(#"{"listen": "0.0.0.0:8480", "tokenFile": 3}"#).1
            == [#"t.json: panel.tokenFile: expected a file path (a non-empty string), found 3"#])
    }

    @Test func anUnknownKeyIsAWarning() throws {
        let (config, messages) = parse(#"{"titel": "x", "port": 8480}"#)
        #expect(messages == [
            #"t.json: panel.titel: unknown key ignored; did you mean "title"?"#,
            "t.json: panel.port: unknown key ignored; use listen, hosts, tokenFile, title, maxClients",
        ])
        // Only warnings: the panel is still there, with its defaults.
        #expect(try #require(config?.panel) == PanelConfig())
    }

    @Test func everyErrorIsReportedAtOnce() {
        let (config, messages) = parse(#"{"listen": "h", "hosts": ["a:1"], "title": "", "maxClients": 0}"#)
        #expect(config == nil)
        #expect(messages.map { $0.split(separator: ":").dropFirst().first.map(String.init) } == [
            " panel.listen", " panel.hosts[0]", " panel.title", " panel.maxClients",
        ])
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.255.254", true), ("127.0.0.01", true), ("localhost", true), ("LocalHost", true),
        ("app.localhost", true), ("::1", true),
        ("128.0.0.1", false), ("127.0.0", false), ("127.0.0.1.2", false), ("127.0.0.256", false), ("127.0.0.", false),
        ("127.0.0.1000", false), ("0.0.0.0", false), ("::", false), ("0:0:0:0:0:0:0:1", false), ("localhost.evil", false),
        ("mylocalhost", false), ("", false), ("127.0.0.-1", false), ("127.0.0.+1", false),
        // Digits that are not ASCII are not an address.
        ("127.0.0.١", false), ("127.0.0.½", false), ("127.٠.٠.١", false),
    ])
    func isLoopback(host: String, expected: Bool) {
        #expect(PanelConfig.isLoopback(host) == expected)
    }
}
