import Testing

@testable import TapgridCore

/// The screen on the wire (docs/screen.md): `status`'s `screen` block written and read back, the
/// `wake`/`screen` replies read back, and the `screen` request `tapgrid screen` sends.
@Suite struct ScreenStatusTests {
    static func status(screen: ScreenStatus?) -> StatusReply {
        var status = StatusReply(
            uptime: 12.5, generation: 3, layout: "home", taps: 42, outcomes: [.init(name: "dispatched", count: 42)],
            children: 0, queued: 0, clients: 1, eventLog: .init(path: nil, ok: true))
        status.panel = .init(address: "http://127.0.0.1:8480/", streams: 1, sessions: 1, requests: 9)
        status.screen = screen
        return status
    }

    static let head = #"{"uptime":12.5,"generation":3,"layout":"home","taps":42,"outcomes":{"dispatched":42},"children":0,"queued":0,"clients":1,"eventLog":{"path":null,"ok":true},"panel":{"address":"http://127.0.0.1:8480/","streams":1,"sessions":1,"requests":9}"#

    /// Byte for byte, after the other blocks; read back the same. `since` is wall-clock seconds.
    @Test(arguments: [
        (ScreenStatus(state: "off", since: 1_765_012_984.5, backlightPath: "/sys/class/backlight/x", backlightValue: 0),
         #","screen":{"state":"off","since":1765012984.5,"backlight":{"path":"/sys/class/backlight/x","value":0,"error":null}}}"#),
        (ScreenStatus(state: "dim", since: 1_765_012_984.125, backlightPath: "/sys/class/backlight/x", backlightValue: 255,
                      backlightError: "open /sys/class/backlight/x/brightness: Permission denied (errno 13)"),
         #","screen":{"state":"dim","since":1765012984.125,"backlight":{"path":"/sys/class/backlight/x","value":255,"error":"open /sys/class/backlight/x/brightness: Permission denied (errno 13)"}}}"#),
        (ScreenStatus(state: "on", since: 1_765_012_984, backlightPath: "/sys/class/backlight/x"),
         #","screen":{"state":"on","since":1765012984,"backlight":{"path":"/sys/class/backlight/x","value":null,"error":null}}}"#),
        (ScreenStatus(state: "on", since: 1_765_012_984), #","screen":{"state":"on","since":1765012984,"backlight":null}}"#),
    ])
    func statusCarriesTheScreen(screen: ScreenStatus, tail: String) throws {
        let status = Self.status(screen: screen)
        let out = ByteBuffer(capacity: 64)
        status.write(id: nil, into: out)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text == Self.head + tail + "\n")
        let read = StatusReply(try JSONParser.parse(String(text.dropLast()), lenient: false))
        #expect(read == status)
        #expect(read.screen == screen)
    }

    /// Without a `screen` block in the config there is none in `status`, and none is read back.
    @Test func noScreenNoBlock() throws {
        let out = ByteBuffer(capacity: 64)
        Self.status(screen: nil).write(id: nil, into: out)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text == Self.head + "}\n")
        #expect(StatusReply(try JSONParser.parse(String(text.dropLast()), lenient: false)).screen == nil)
    }

    /// The `wake` and `screen` replies carry the same block, read back by the same reader.
    @Test func theOpsRepliesAreReadBack() throws {
        let screen = ScreenStatus(state: "off", since: 1_765_012_984.5, backlightPath: "/sys/class/backlight/x", backlightValue: 0)
        let out = ByteBuffer(capacity: 64)
        let id: [UInt8] = Array("7".utf8)
        id.withUnsafeBufferPointer { ReplyWriter.screen(screen, id: $0, out) }
        let line = Array(out.bytes.dropLast())
        #expect(String(decoding: out.bytes, as: UTF8.self)
            == #"{"id":7,"ok":true,"screen":{"state":"off","since":1765012984.5,"backlight":{"path":"/sys/class/backlight/x","value":0,"error":null}}}"# + "\n")
        guard case .ok(let reply) = try DaemonReply.read(line) else {
            Issue.record("not an ok reply")
            return
        }
        #expect(ScreenStatus(reply["screen"]) == screen)
        #expect(ScreenStatus(reply["layout"]) == nil)
    }

    /// `tapgrid screen off`'s request, which the scanner reads as the `screen` op.
    @Test(arguments: ScreenState.allCases)
    func theScreenRequest(state: ScreenState) {
        let json = state.requestJSON
        #expect(String(decoding: json, as: UTF8.self) == #"{"op":"screen","state":"\#(state.name)"}"#)
        #expect(RequestScanner.scan(json).map(\.op) == .success(.screen))
        #expect(RequestScanner.scan(Request(op: .wake).json).map(\.op) == .success(.wake))
    }
}
