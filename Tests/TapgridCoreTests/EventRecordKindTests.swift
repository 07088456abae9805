import Testing

@testable import TapgridCore

/// `EventRecord.kind` tells records apart as `EventRecord.read` does, from their top-level
/// `"event"` member, without a parse (the fleet's feed skips contact records with it).
@Suite struct EventRecordKindTests {
    func kind(_ text: String) -> EventRecord.Kind? {
        Array(text.utf8).withUnsafeBufferPointer { EventRecord.kind(of: $0) }
    }

    func written(_ body: (ByteBuffer) -> Void) -> String {
        let record = ByteBuffer(capacity: 256)
        EventRecordHead(runID: "abc").write(seconds: 0, nanoseconds: 0, into: record)
        body(record)
        return String(decoding: record.bytes.dropLast(), as: UTF8.self)  // without its `\n`
    }

    @Test func recordsAsTheDaemonWritesThem() {
        #expect(kind(written { TouchRecord.write(.down, slot: 0, x: 1, y: 2, source: Array(#""socket""#.utf8), conn: 3, nanos: 0,
                                                 layout: "home", current: nil, into: $0) }) == .touch)
        #expect(kind(written { StateRecord.write(seq: 5, layout: "panel", path: "0/2", state: CellState(text: "on"), source: .socket, into: $0) })
            == .state)
        #expect(kind(written { ChildExitRecord.write(seq: 4, status: 0, signal: nil, timedOut: false, durationMs: 12, into: $0) }) == .other)
        #expect(kind(#"{"time":"1970-01-01T00:00:00.000Z","run":"abc","seq":1,"layout":"home","generation":1,"x":60.5,"y":50,"hit":"2","name":null,"tag":3,"actionData":null,"handler":"audit","outcome":"dispatched"}"#)
            == .tap)
    }

    /// Only a top-level member counts: a tap whose action data holds `"event":"touch"` is a tap
    /// (a search of the line for that text took it for a contact record).
    @Test func onlyTheTopLevelEventCounts() {
        #expect(kind(#"{"seq":1,"layout":"p","x":1,"y":2,"actionData":{"event":"touch"},"handler":"h","outcome":"dispatched"}"#) == .tap)
        #expect(kind(#"{"seq":1,"actionData":["event","touch"],"name":"\"event\":\"touch\""}"#) == .tap)
        #expect(kind(#"{"seq":1,"event":"state","text":"\"event\":\"touch\""}"#) == .state)
    }

    @Test func escapesAndSpacesAreRead() {
        #expect(kind(#" { "ev\u0065nt" : "t\u006fuch" } "#) == .touch)
        #expect(kind(#"{"event":"Touch"}"#) == .other)
        #expect(kind(#"{"event":null}"#) == .other)
        #expect(kind("{}") == .tap)
    }

    @Test func linesThatAreNoObject() {
        #expect(kind("") == nil)
        #expect(kind("[1]") == nil)
        #expect(kind(#"{"seq":1,"#) == nil)
        #expect(kind(#"{"seq":1 "event":"touch"}"#) == nil)
        #expect(kind(#"{"seq":tru,"event":"touch"}"#) == nil)
        #expect(kind(#"{"seq":1,"event":"tou"#) == nil)
    }

    /// The daemon's own records say whether they are contact records in their third member; any
    /// other start is left to `kind` (nil).
    @Test func theThirdMemberOfTheDaemonsOwnRecords() {
        func quick(_ line: String) -> Bool? { Array(line.utf8).withUnsafeBufferPointer { EventRecord.isTouchAsWritten($0) } }
        let head = #"{"time":"2026-12-06T10:00:00.123Z","run":"5f0c2a","#
        #expect(quick(head + #""event":"touch","phase":"down","slot":0}"#) == true)
        #expect(quick(head + #""seq":4,"layout":"home","actionData":{"event":"touch"}}"#) == false)
        #expect(quick(head + #""event":"state","seq":5}"#) == false)
        #expect(quick(head + #""seq":6,"event":"screen"}"#) == false)
        #expect(quick(#"{"time":"2026-12-06T10:00:00.123Z","run":"a\"b","event":"touch"}"#) == nil)
        #expect(quick(#"{"event":"touch","time":"2026-12-06T10:00:00.123Z"}"#) == nil)
        #expect(quick(#"{"time": "2026-12-06T10:00:00.123Z", "run": "r", "event": "touch"}"#) == nil)
        #expect(quick(head + #""phase":"down"}"#) == nil)
        // A run id as the daemon makes them (32 hex digits): its end is where it should be.
        let daemons = #"{"time":"2026-12-06T10:00:00.123Z","run":"0123456789abcdef0123456789abcdef","#
        #expect(quick(daemons + #""event":"touch","phase":"up","slot":1}"#) == true)
        #expect(quick(daemons + #""seq":9,"layout":"home"}"#) == false)
    }
}
