import Testing

@testable import TapgridCore

@Suite struct ProtocolTests {
    func lines(_ framer: inout LineFramer) -> [String] {
        var out: [String] = []
        framer.takeLines { out.append(String(decoding: $0, as: UTF8.self)); return true }
        return out
    }

    @Test func framerHandsOutCompleteLinesAcrossReads() {
        var framer = LineFramer(dropsCarriageReturn: true)
        framer.append(Array("{\"x\":1}\r\n{\"x\"".utf8))
        #expect(lines(&framer) == ["{\"x\":1}"])
        #expect(framer.count == 4)
        framer.append(Array(":2}\n\n".utf8))
        #expect(lines(&framer) == ["{\"x\":2}", ""])
        framer.append(Array("tail\r".utf8))
        var rest: [String] = []
        framer.takeRest { rest.append(String(decoding: $0, as: UTF8.self)) }
        #expect(rest == ["tail"] && framer.isEmpty)
    }

    @Test func framerStopsWhereTheCallerSays() {
        var framer = LineFramer(dropsCarriageReturn: false)
        framer.append(Array("a\r\nb\nc\n".utf8))
        var seen: [String] = []
        framer.takeLines { seen.append(String(decoding: $0, as: UTF8.self)); return false }
        #expect(seen == ["a\r"])
        #expect(lines(&framer) == ["b", "c"])
    }

    /// The word-at-a-time search finds the same `\n` as a byte loop, wherever it falls in a word
    /// and whatever its neighbours (bytes one off `\n`, high bytes, runs of `\n`).
    @Test func framerFindsEveryNewlineAByteLoopFinds() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x0A, 0x0A, 0x09, 0x0B, 0x8A, 0x00, 0xFF, 0x7B, 0x30, 0x0D]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let start = Int.random(in: 0...bytes.count, using: &rng)
            let expected = bytes[start...].firstIndex(of: 0x0A)
            let found = bytes.withUnsafeBufferPointer { LineFramer.firstNewline(in: $0, from: start) }
            #expect(found == expected, "\(bytes) from \(start)")
        }
        var framer = LineFramer(dropsCarriageReturn: false)
        framer.append(Array("0123456789abcdef\nab\n\n0123456\n01234567".utf8))
        #expect(lines(&framer) == ["0123456789abcdef", "ab", "", "0123456"])
        #expect(framer.count == 8)
    }

    /// A connection's output drops what was sent while the rest waits (flow control keeps a
    /// slow reader's output from growing without end).
    @Test func byteBufferDropsItsFirstBytes() {
        let out = ByteBuffer(capacity: 16)
        out.append("sent part|waiting part")
        out.removeFirst(10)
        #expect(String(decoding: out.bytes, as: UTF8.self) == "waiting part")
        out.append(" and more")
        #expect(String(decoding: out.bytes, as: UTF8.self) == "waiting part and more")
        out.removeFirst(out.count)
        #expect(out.isEmpty)
    }

    @Test func wholeTextLinesKeepATornLastLine() {
        let numbered = LineFramer.lines(of: Array("one\n\ntwo".utf8)).map { "\($0.number):" + String(decoding: $0.line, as: UTF8.self) }
        #expect(numbered == ["1:one", "2:", "3:two"])
    }

    @Test(arguments: [
        (Int64(1_795_946_400), Int64(123_000_000), "2026-11-29T10:00:00.123"),
        (0, 5_000_000, "1970-01-01T00:00:00.005"),
        (951_782_400, 999_999_999, "2000-02-29T00:00:00.999"),
        (-1, 0, "1969-12-31T23:59:59.000"),
        (4_107_542_399, 0, "2100-02-28T23:59:59.000"),
    ])
    func recordHeadTime(seconds: Int64, nanoseconds: Int64, expected: String) {
        let head = EventRecordHead(runID: "r\"1")
        let out = ByteBuffer(capacity: 64)
        head.write(seconds: seconds, nanoseconds: nanoseconds, into: out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"time":""# + expected + #"Z","run":"r\"1","#)
    }

    @Test func tapRecordsWrittenAreReadBack() throws {
        var engine = try TapEngineTests.engine()
        let decision = engine.tap(layout: 0, x: 60.5, y: 50, explicitLayout: false, now: 0)
        let active = engine.active
        let target = try #require(decision.target)
        let hit = active.hit(layout: 0, slot: target.info)
        let record = ByteBuffer(capacity: 256)
        EventRecordHead(runID: "abc").write(seconds: 0, nanoseconds: 0, into: record)
        TapRecord.write(decision, x: 60.5, y: 50, active: active, hit: hit, tail: active.tail(handler: decision.handler, outcome: decision.outcome), into: record)
        let text = Array(record.bytes)
        #expect(String(decoding: text, as: UTF8.self) == #"{"time":"1970-01-01T00:00:00.000Z","run":"abc","seq":1,"layout":"home","generation":1,"x":60.5,"y":50,"hit":"2","name":null,"tag":3,"actionData":null,"handler":"audit","outcome":"dispatched"}"# + "\n")
        let read = EventRecord.read(text.dropLast())
        #expect(read == .success(.tap(TapRecord(seq: "1", layout: "home", x: 60.5, y: 50, hit: "2", tag: 3, handler: "audit", outcome: "dispatched"))))
    }

    @Test func otherRecordsAndBadLines() {
        func read(_ text: String) -> Result<EventRecord, EventRecord.Unreadable>? { EventRecord.read(Array(text.utf8)[...]) }
        #expect(read("  \r") == nil)
        #expect(read(#"{"seq":1,"event":"exit","status":0}"#) == .success(.event("exit")))
        #expect(read(#"[1]"#) == .failure(.init("not a JSON object")))
        #expect(read(#"{"seq":1}"#) == .failure(.init("not a tap record (needs layout, x, y and seq)")))
        if case .failure(let error)? = read(#"{"seq":1,"#) { #expect(error.message.hasPrefix("not JSON (")) } else { Issue.record("a torn line must be unreadable") }
    }

    /// State records as the daemon writes them are read back with the grid's whole state; a
    /// toggle's tap record carries its `active`.
    @Test func stateRecordsWrittenAreReadBack() throws {
        let record = ByteBuffer(capacity: 256)
        EventRecordHead(runID: "abc").write(seconds: 0, nanoseconds: 0, into: record)
        StateRecord.write(seq: 5, layout: "panel", path: "0/2", state: CellState(text: "42 %", valueJSON: #"{"n":[1,2]}"#, enabled: false),
                          source: .socket, into: record)
        let text = Array(record.bytes)
        #expect(String(decoding: text, as: UTF8.self) == #"{"time":"1970-01-01T00:00:00.000Z","run":"abc","seq":5,"event":"state","layout":"panel","grid":"0/2","text":"42 %","active":null,"value":{"n":[1,2]},"enabled":false,"source":"socket"}"# + "\n")
        let readBack = EventRecord.read(text.dropLast())
        let state = RecordedState(seq: "5", layout: "panel", grid: "0/2", state: CellState(text: "42 %", valueJSON: #"{"n":[1,2]}"#, enabled: false), source: "socket")
        #expect(readBack == .success(.state(state)))
        #expect(state.isSet)
        #expect(!RecordedState(seq: "6", layout: "panel", grid: "0", state: CellState(active: true), source: "toggle").isSet)
        #expect(RecordedState(seq: "6", layout: "panel", grid: "0", state: CellState(active: true), source: "mqtt").isSet)

        func read(_ text: String) -> Result<EventRecord, EventRecord.Unreadable>? { EventRecord.read(Array(text.utf8)[...]) }
        var toggled = TapRecord(seq: "1", layout: "p", x: 1, y: 2, hit: "0", tag: 1, handler: "h", outcome: "dispatched")
        toggled.active = false
        #expect(read(#"{"seq":1,"layout":"p","x":1,"y":2,"hit":"0","tag":1,"actionData":null,"handler":"h","outcome":"dispatched","active":false}"#)
            == .success(.tap(toggled)))
        // Keys left out read as null (a hand-written log); other types are unreadable.
        #expect(read(#"{"seq":2,"event":"state","layout":"p","grid":"","source":"mqtt","active":true}"#)
            == .success(.state(RecordedState(seq: "2", layout: "p", grid: "", state: CellState(active: true), source: "mqtt"))))
        #expect(read(#"{"seq":2,"event":"state","layout":"p","source":"socket"}"#) == .failure(.init("not a state record (needs layout, grid, source and seq)")))
        #expect(read(#"{"seq":2,"event":"state","layout":"p","grid":"0","source":"socket","text":3}"#)
            == .failure(.init(#"not a state record ("text" is a number, not a string or null)"#)))
        #expect(read(#"{"seq":2,"event":"state","layout":"p","grid":"0","source":"socket","enabled":"no"}"#)
            == .failure(.init(#"not a state record ("enabled" is a string, not true, false or null)"#)))
    }

    /// A state record as the `set` that recreates it (`replay --dispatch`): every key, null for
    /// the cleared ones, read back by the daemon's own reader to the same change.
    @Test func setRequestsFromStateRecords() throws {
        let state = RecordedState(seq: "5", layout: "panel", grid: "0/2", state: CellState(text: "42 %", valueJSON: #"{"n":[1,2]}"#, enabled: false), source: "socket")
        let line = state.request.json + [0x0A]
        #expect(String(decoding: line, as: UTF8.self) == #"{"op":"set","layout":"panel","grid":"0/2","text":"42 %","active":null,"value":{"n":[1,2]},"enabled":false}"# + "\n")
        let object = try JSONParser.parse(Array(line.dropLast()), lenient: false)
        #expect(try ControlRequest.set(object).get() == state.request)
        #expect(RequestScanner.scan(Array(line.dropLast())).map(\.op) == .success(.set))
        // Keys kept are left out, a current-layout set names none.
        let partial = ControlRequest.Set(layout: nil, grid: "lamp", change: CellChange(active: .set(true)))
        #expect(String(decoding: partial.json, as: UTF8.self) == #"{"op":"set","grid":"lamp","active":true}"#)
        #expect(try ControlRequest.set(JSONParser.parse(partial.json, lenient: false)).get() == partial)
    }

    @Test func childExitRecords() {
        let out = ByteBuffer(capacity: 64)
        ChildExitRecord.write(seq: 4, status: nil, signal: "SIGKILL", timedOut: true, durationMs: 30, into: out)
        ChildExitRecord.write(seq: 5, status: 0, signal: nil, timedOut: false, durationMs: 2, into: out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"""
        "seq":4,"event":"exit","signal":"SIGKILL","timedOut":true,"durationMs":30}
        "seq":5,"event":"exit","status":0,"durationMs":2}

        """#)
    }
}
