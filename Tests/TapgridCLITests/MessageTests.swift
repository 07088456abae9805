import Foundation
@preconcurrency import Glibc
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// The one-line texts for people: tap outcomes with their reasons, hits online and offline.
@Suite struct HumanTextTests {
    func reply(_ text: String) throws -> JSONValue { try JSONParser.parse(text, lenient: false) }

    @Test func tapPrintsTheReasonOfFailedAndDenied() throws {
        let failed = try reply(#"{"seq":1,"layout":"home","generation":1,"hit":{"path":"2/0","name":"docs","tag":1,"actionData":"https://example.org/"},"handler":"browser","outcome":"failed","reason":"cannot spawn xdg-open: No such file or directory (errno 2)"}"#)
        #expect(HumanReply.tap(failed) == #"seq 1 home: 2/0 "docs" tag 1 actionData "https://example.org/" -> browser: failed: cannot spawn xdg-open: No such file or directory (errno 2)"#)
        let denied = try reply(#"{"seq":2,"layout":"home","generation":1,"hit":{"path":"1","name":null,"tag":2,"actionData":"ftp://x"},"handler":"browser","outcome":"denied","reason":"URL scheme \"ftp\" is not allowed (allowed: http, https)"}"#)
        #expect(HumanReply.tap(denied) == #"seq 2 home: 1 tag 2 actionData "ftp://x" -> browser: denied: URL scheme "ftp" is not allowed (allowed: http, https)"#)
    }

    @Test func busyTapSaysWhyWithoutAReason() throws {
        let busy = try reply(#"{"seq":3,"layout":"home","generation":1,"hit":{"path":"2","name":null,"tag":3,"actionData":null},"handler":"slow","outcome":"busy","logged":false}"#)
        #expect(HumanReply.tap(busy) == "seq 3 home: 2 tag 3 -> slow: busy: handler slow already runs as many children as its maxConcurrent allows and its queue is full; the tap was not run (not logged: the event log could not be written)")
        // A reason the daemon gives is printed as it is.
        let reasoned = try reply(#"{"seq":4,"layout":"home","hit":{"path":"2","name":null,"tag":3,"actionData":null},"handler":"slow","outcome":"busy","reason":"4 running, 16 queued"}"#)
        #expect(HumanReply.tap(reasoned) == "seq 4 home: 2 tag 3 -> slow: busy: 4 running, 16 queued")
        let miss = try reply(#"{"seq":5,"layout":"home","generation":1,"hit":null,"handler":null,"outcome":"miss"}"#)
        #expect(HumanReply.tap(miss) == "seq 5 home: miss")
    }

    /// The daemon's `hit` reply prints what offline `hit --config` prints: no "checked".
    @Test func onlineHitPrintsWhatOfflineHitPrints() throws {
        let routed = try reply(#"{"layout":"home","generation":1,"hit":{"path":"0","name":"web","tag":1,"actionData":"https://example.org"},"handler":"browser","outcome":"checked"}"#)
        #expect(HumanReply.hit(routed) == #"home: 0 "web" tag 1 actionData "https://example.org" -> browser"#)
        let unrouted = try reply(#"{"layout":"home","generation":1,"hit":{"path":"2","name":null,"tag":9,"actionData":null},"handler":null,"outcome":"checked"}"#)
        #expect(HumanReply.hit(unrouted) == "home: 2 tag 9 (unrouted)")
        let root = try reply(#"{"layout":"home","generation":1,"hit":{"path":"","name":null,"tag":null,"actionData":{"a":[1]}},"handler":"log","outcome":"checked"}"#)
        #expect(HumanReply.hit(root) == #"home: (root) actionData {"a":[1]} -> log"#)
        let miss = try reply(#"{"layout":"home","generation":1,"hit":null,"handler":null,"outcome":"checked"}"#)
        #expect(HumanReply.hit(miss) == "home: miss")
    }

    @Test func offlineHitOfUnroutedAndNullActionData() throws {
        let config = #"{"layouts": {"a": {"width": 300, "height": 10, "grid": {"cols": [{"tag": 1, "action-data": null}, {"tag": 9}, {}]}}}, "handlers": {"h": {"type": "log"}}, "routes": [{"tags": [1], "handler": "h"}]}"#
        let dir = try folder(["c.json": config])
        defer { removeTempDir(dir) }
        #expect(run(["hit", "50", "5", "--config", dir + "/c.json"]).out == "a: 0 tag 1 -> h\n")
        #expect(run(["hit", "150", "5", "--config", dir + "/c.json"]).out == "a: 1 tag 9 (unrouted)\n")
        #expect(run(["hit", "250", "5", "--config", dir + "/c.json"]).out == "a: miss\n")
    }
}

/// `--socket` naming something that is no socket, or a socket this user may not open.
@Suite struct SocketProblemTests {
    static let alice = SocketProblem.User(name: "alice", named: true, groups: ["alice", "audio"])

    static func entry(owner: String = "root", group: String = "tapgrid-clients", mode: UInt32) -> SocketProblem.Entry {
        SocketProblem.Entry(path: "/run/tapgrid/tapgrid.sock", type: .socket, owner: owner, group: group, permissions: mode)
    }

    @Test func groupWritableSocketSaysWhichGroupToJoin() {
        #expect(SocketProblem.message(path: "/run/tapgrid/tapgrid.sock", socket: Self.entry(mode: 0o660), blockedFolder: nil, mayWrite: false, user: Self.alice)
            == "cannot connect to /run/tapgrid/tapgrid.sock: permission denied: the socket (owner root, group tapgrid-clients, mode 0660) lets its owner and group tapgrid-clients connect, and you (alice; groups alice, audio) are neither; join group tapgrid-clients (usermod -aG tapgrid-clients alice, then log in again) or run as root")
        let nameless = SocketProblem.User(name: "uid 4242", named: false, groups: ["gid 4242"])
        #expect(SocketProblem.message(path: "s", socket: Self.entry(owner: "bob", mode: 0o660), blockedFolder: nil, mayWrite: false, user: nameless)
            == "cannot connect to s: permission denied: the socket (owner bob, group tapgrid-clients, mode 0660) lets its owner and group tapgrid-clients connect, and you (uid 4242; groups gid 4242) are neither; join group tapgrid-clients (then log in again) or run as bob or root")
    }

    @Test func ownerOnlySocketSaysWhichModeWouldAllowIt() {
        #expect(SocketProblem.message(path: "/run/tapgrid/tapgrid.sock", socket: Self.entry(group: "root", mode: 0o600), blockedFolder: nil, mayWrite: false, user: Self.alice)
            == #"cannot connect to /run/tapgrid/tapgrid.sock: permission denied: the socket (owner root, group root, mode 0600) lets only its owner connect; run as root, or have tapgridd make it writable for a group you are in (socket.mode "0660"; under systemd SocketMode=0660 and SocketGroup=)"#)
    }

    @Test func aFolderOnTheWayThatMayNotBeEntered() {
        let closed = SocketProblem.Entry(path: "/srv/tg", type: .directory, owner: "root", group: "root", permissions: 0o700)
        #expect(SocketProblem.message(path: "/srv/tg/d.sock", socket: nil, blockedFolder: closed, mayWrite: false, user: Self.alice)
            == "cannot connect to /srv/tg/d.sock: permission denied: you (alice; groups alice, audio) may not enter the folder /srv/tg (owner root, group root, mode 0700), which lets only its owner in; run as root, or put the socket in a folder you may enter (socket.path)")
        let groupOnly = SocketProblem.Entry(path: "/srv/tg", type: .directory, owner: "tg", group: "staff", permissions: 0o750)
        #expect(SocketProblem.message(path: "/srv/tg/d.sock", socket: nil, blockedFolder: groupOnly, mayWrite: false, user: Self.alice)
            == "cannot connect to /srv/tg/d.sock: permission denied: you (alice; groups alice, audio) may not enter the folder /srv/tg (owner tg, group staff, mode 0750); join group staff (usermod -aG staff alice, then log in again) or run as tg or root")
    }

    @Test func nothingToSayWhenThePermissionsAllowIt() {
        #expect(SocketProblem.message(path: "s", socket: Self.entry(mode: 0o660), blockedFolder: nil, mayWrite: true, user: Self.alice) == nil)
        // World-writable and still denied: something else (an ACL, a security module) decides.
        #expect(SocketProblem.message(path: "s", socket: Self.entry(mode: 0o666), blockedFolder: nil, mayWrite: false, user: Self.alice) == nil)
        #expect(SocketProblem.message(path: "s", socket: nil, blockedFolder: nil, mayWrite: false, user: Self.alice) == nil)
    }

    @Test func aRegularFileOrAFolderIsNotASocket() throws {
        let dir = try folder(["notes.txt": "hello"])
        defer { removeTempDir(dir) }
        let file = run(["status", "--socket", dir + "/notes.txt"])
        #expect(file.code == 69)
        #expect(file.err == "Error: cannot connect to \(dir)/notes.txt: it is a regular file, not a socket; name the daemon's socket with --socket or $TAPGRID_SOCKET\n")
        let folderResult = run(["tap", "1", "2", "--socket", dir])
        #expect(folderResult.code == 69)
        #expect(folderResult.err == "Error: cannot connect to \(dir): it is a folder, not a socket; name the daemon's socket with --socket or $TAPGRID_SOCKET\n")
        // replay checks its --socket before it starts.
        try "".write(toFile: dir + "/e.jsonl", atomically: true, encoding: .utf8)
        let replay = run(["replay", dir + "/e.jsonl", "--socket", dir + "/notes.txt"])
        #expect(replay.code == 69)
        #expect(replay.err == "Error: cannot connect to \(dir)/notes.txt: it is a regular file, not a socket; name the daemon's socket with --socket or $TAPGRID_SOCKET\n")
    }

    /// A socket file nobody listens on (a daemon that died and left it) is not misread.
    @Test func aSocketNobodyListensOn() throws {
        // Under /tmp (makeTempDir), not $TMPDIR: a socket path must fit sun_path (108 bytes).
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let path = dir + "/stale.sock"
        close(try makeUnixSocket(SOCK_STREAM, boundTo: path))
        let result = run(["status", "--socket", path])
        #expect(result.code == 69)
        #expect(result.err == "Error: cannot connect to \(path): Connection refused (errno 111) (is tapgridd running? set --socket or $TAPGRID_SOCKET)\n")
    }
}

/// No config named and none at /etc/tapgrid/tapgrid.json: every command says how to name one.
@Suite(.enabled(if: !FileManager.default.fileExists(atPath: "/etc/tapgrid/tapgrid.json"), "a config is installed at the default path"))
struct MissingDefaultConfigTests {
    static let missing = "cannot read /etc/tapgrid/tapgrid.json: No such file or directory (errno 2); this is the default config: name another"

    @Test func check() {
        let result = run(["check"])
        #expect(result.code == 1)
        #expect(result.out == """
            error: \(Self.missing) as an argument (tapgrid check PATH) or with $TAPGRID_CONFIG
            /etc/tapgrid/tapgrid.json: 1 error, 0 warnings

            """)
    }

    @Test func show() {
        let result = run(["show"])
        #expect(result.code == 1)
        #expect(result.err == "Error: \(Self.missing) as an argument (tapgrid show PATH) or with $TAPGRID_CONFIG\n")
    }

    @Test func replay() throws {
        let dir = try folder(["e.jsonl": ""])
        defer { removeTempDir(dir) }
        let result = run(["replay", dir + "/e.jsonl"])
        #expect(result.code == 1)
        #expect(result.err == "Error: \(Self.missing) with --config PATH or $TAPGRID_CONFIG, or replay against the running daemon with --socket PATH\n")
    }

    /// A config named on purpose that is missing is just missing.
    @Test func aNamedConfigGetsNoHint() {
        let result = run(["show", "/nonexistent/c.json"])
        #expect(result.err == "Error: cannot read /nonexistent/c.json: No such file or directory (errno 2)\n")
    }
}

/// A missing config whose path came from `$TAPGRID_CONFIG` or `--config` (for a socket): the
/// message says where the path came from and how to name another.
@Suite struct MissingNamedConfigTests {
    static let environment = ["TAPGRID_CONFIG": "/nonexistent/env.json"]
    static let missing = "cannot read /nonexistent/env.json: No such file or directory (errno 2); the path comes from $TAPGRID_CONFIG: name another"

    @Test func checkSaysThePathIsFromTheEnvironment() {
        let result = run(["check"], environment: Self.environment)
        #expect(result.code == 1)
        #expect(result.out == """
            error: \(Self.missing) as an argument (tapgrid check PATH) or in $TAPGRID_CONFIG
            /nonexistent/env.json: 1 error, 0 warnings

            """)
    }

    @Test func replaySaysThePathIsFromTheEnvironment() throws {
        let dir = try folder(["e.jsonl": ""])
        defer { removeTempDir(dir) }
        let result = run(["replay", dir + "/e.jsonl"], environment: Self.environment)
        #expect(result.code == 1)
        #expect(result.err == "Error: \(Self.missing) with --config PATH or in $TAPGRID_CONFIG, or replay against the running daemon with --socket PATH\n")
        // Before the events file is read, as for the default config.
        let noEvents = run(["replay", dir + "/none.jsonl"], environment: Self.environment)
        #expect(noEvents.err == result.err)
    }

    @Test func aConfigOnTheCommandLineOverridesTheEnvironment() {
        let result = run(["show", "/nonexistent/c.json"], environment: Self.environment)
        #expect(result.err == "Error: cannot read /nonexistent/c.json: No such file or directory (errno 2)\n")
    }

    /// `--config` picks the socket from the config's `socket.path`: a missing one is an error, not
    /// the default socket (which could be another daemon's).
    @Test func statusWithAMissingConfigSaysSo() {
        for command in [["status"], ["reload"], ["use", "home"]] {
            let result = run(command + ["--config", "/nonexistent/missing.json"])
            #expect(result.code == 1)
            #expect(result.out == "")
            #expect(result.err == "Error: cannot read /nonexistent/missing.json: No such file or directory (errno 2); --config names the config whose socket.path to use: name another, or the socket itself with --socket PATH\n")
        }
    }
}

/// Numbers and counts as people read them; JSON stays exact.
@Suite struct PeopleFormatTests {
    static let config = #"""
        {"layouts": {"m": {"width": 100, "height": 50, "grid": {"matrix": {"cols": 3, "count": 3, "margin": 0, "tag": 1, "action-data": ["a", null]}}},
                     "one": {"width": 10.125, "height": 10, "grid": {}}}, "initialLayout": "m"}
        """#

    @Test func tableRoundsToTwoDecimalsAndJSONStaysExact() throws {
        let dir = try folder(["c.json": Self.config])
        defer { removeTempDir(dir) }
        let table = run(["show", dir + "/c.json"])
        #expect(table.out == """
            layout "m": 100x50 ltr, 4 grids
            PATH    NAME      X  Y  WIDTH  HEIGHT  TAG  HANDLER  ACTION DATA
            (root)  -         0  0    100      50    -  -        -
              0     -         0  0  33.33      50    1  log      "a"
              1     -     33.33  0  33.33      50    2  log      null
              2     -     66.67  0  33.33      50    3  log      -

            """)
        let json = run(["show", dir + "/c.json", "--format", "json"])
        #expect(json.out.contains(#"{"path": "1", "name": null, "rect": [33.333333333333336, 0, 33.333333333333336, 50]"#))
    }

    @Test func countsArePluralOnlyWhenNotOne() throws {
        let dir = try folder(["c.json": Self.config])
        defer { removeTempDir(dir) }
        #expect(run(["check", dir + "/c.json"]).out == """
            layout "m": 4 grids, 3 hittable (100x50 ltr), initial
            layout "one": 1 grid, 0 hittable (10.13x10 ltr)
            \(dir)/c.json: 0 errors, 0 warnings

            """)
        #expect(run(["show", dir + "/c.json", "--layout", "one"]).out.hasPrefix("layout \"one\": 10.13x10 ltr, 1 grid\n"))
    }

    @Test(arguments: [
        (33.333333333333336, "33.33"), (66.66666666666667, "66.67"), (-0.001, "0"), (120, "120"), (0.5, "0.5"),
        (-12.345, "-12.35"), (1e20, "1e+20"),
    ])
    func peopleNumbers(value: Double, shown: String) {
        #expect(formatForPeople(value) == shown)
    }
}
