import Testing

@testable import TapgridCore

/// A slider's taps in the event log and in replies (docs/touch.md "Sliders"): `"class"` and
/// `"value"` on each `change` and `release`, a plain tap on a slider a `release` with its value;
/// read back by `replay`. Taps on other grids are written as before.
@Suite struct SliderRecordTests {
    static func texts(_ decision: TapDecision, _ engine: TapEngine, x: Double, y: Double, source: [UInt8]? = nil) -> (record: String, reply: String) {
        let active = engine.active
        let hit = decision.target.map { active.hit(layout: decision.layout, slot: $0.info) }
        let tail = active.tail(handler: decision.handler, outcome: decision.outcome)
        let record = ByteBuffer(capacity: 256)
        TapRecord.write(decision, x: x, y: y, active: active, hit: hit, tail: tail, source: source, into: record)
        let reply = ByteBuffer(capacity: 256)
        ReplyWriter.tap(decision, id: nil, active: active, hit: hit, tail: tail, logged: true, into: reply)
        return (String(decoding: record.bytes, as: UTF8.self), String(decoding: reply.bytes, as: UTF8.self))
    }

    @Test func aPlainTapOnASliderIsAReleaseWithItsValue() throws {
        var engine = try TouchRecognizerTests.engine(SliderStateTests.config)
        let decision = engine.tap(layout: 0, x: 42.4, y: 10, explicitLayout: false, now: 0)
        let (record, reply) = Self.texts(decision, engine, x: 42.4, y: 10)
        #expect(record == #""seq":1,"layout":"pad","generation":1,"x":42.4,"y":10,"hit":"0/0","name":"volume","tag":1,"actionData":null,"handler":"audit","outcome":"dispatched","class":"release","value":42}"# + "\n")
        #expect(reply == #"{"seq":1,"layout":"pad","generation":1,"hit":{"path":"0/0","name":"volume","tag":1,"actionData":null},"handler":"audit","outcome":"dispatched","class":"release","value":42}"# + "\n")
        var expected = TapRecord(seq: "1", layout: "pad", x: 42.4, y: 10, hit: "0/0", tag: 1, handler: "audit", outcome: "dispatched")
        expected.tapClass = "release"
        expected.value = 42
        #expect(EventRecord.read(Array(("{" + record).utf8).dropLast()) == .success(.tap(expected)))

        let plain = engine.tap(layout: 0, x: 50, y: 150, explicitLayout: false, now: 0)
        let (plainRecord, plainReply) = Self.texts(plain, engine, x: 50, y: 150)
        #expect(!plainRecord.contains("class") && !plainRecord.contains("value"), "a plain grid's tap is written as before")
        #expect(!plainReply.contains("class") && !plainReply.contains("value"))
    }

    @Test func thePanelsTapEventOfAPlainTapOnASliderHasOneClass() throws {
        var engine = try TouchRecognizerTests.engine(SliderStateTests.config)
        let decision = engine.tap(layout: 0, x: 42.4, y: 10, explicitLayout: false, now: 0)
        let out = ByteBuffer(capacity: 256)
        PanelDocuments.tap(decision, active: engine.active, source: nil, into: out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"seq":1,"layout":"pad","generation":1,"hit":{"path":"0/0","name":"volume","tag":1,"actionData":null},"handler":"audit","outcome":"dispatched","class":"release","value":42,"source":"socket"}"#)
    }

    @Test func aChangeFromAContactCarriesClassSourceAndValue() throws {
        var engine = try TouchRecognizerTests.engine(SliderStateTests.config)
        var taps: [ClassedTap] = []
        let key = ContactKey(stream: 3, slot: 0)
        try engine.touch(.down, key: key, x: 110, y: 50, layout: nil, now: 0, into: &taps)
        try engine.touch(.move, key: key, x: 175, y: 50, layout: nil, now: 10_000_000, into: &taps)
        let tap = try #require(taps.first)
        let (record, reply) = Self.texts(tap.decision, engine, x: tap.x, y: tap.y, source: Array(#""socket""#.utf8))
        // "level" routes no change: unrouted, and recorded with its class and value all the same.
        #expect(record.hasSuffix(#""hit":"0/1","name":"level","tag":2,"actionData":null,"handler":null,"outcome":"unrouted","class":"change","source":"socket","value":0.75}"# + "\n"), "\(record)")
        #expect(reply.hasSuffix(#""handler":null,"outcome":"unrouted","class":"change","value":0.75}"# + "\n"), "\(reply)")
    }
}
