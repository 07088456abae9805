@preconcurrency import Glibc
import Testing

@testable import TapgridCore
@testable import TapgridDaemon
@testable import TapgridSystem
import TapgridTestSupport

/// The fleet's event feed against an event-log file, without a broker: at most `window` records
/// in flight, contact records skipped, the position moved only over records acknowledged with
/// every one before them, kept in `<log>.mqtt` and taken up again by a new feed, and a lost
/// connection published again from the acknowledged position.
@Suite(.serialized) struct EventFeedTests {
    let log = LogSink(verbose: false, journal: false, priorityPrefixes: false)

    /// `taps` tap records with a contact record after every tenth.
    static func records(_ taps: Int) -> String {
        var text = ""
        for seq in 1...taps {
            text += #"{"time":"t","run":"r","seq":\#(seq),"layout":"home","outcome":"dispatched"}"# + "\n"
            if seq % 10 == 0 { text += #"{"time":"t","run":"r","event":"touch","phase":"down","slot":0}"# + "\n" }
        }
        return text
    }

    /// Publishes what the feed offers, numbering the messages from `firstMid`; their seqs.
    static func pump(_ feed: EventFeed, into published: inout [(mid: Int32, seq: Int)], firstMid: inout Int32) {
        feed.pump { line in
            let text = String(decoding: line, as: UTF8.self)
            let seq = (try? parseObject(text)).flatMap { $0.int("seq") } ?? -1
            published.append((firstMid, seq))
            defer { firstMid += 1 }
            return firstMid
        }
    }

    /// Which records the feed skips as contact records: exactly those whose top-level `event` is
    /// `touch`, whatever else holds the word (the byte search only rules lines out).
    @Test func onlyTopLevelTouchEventsAreContactRecords() {
        func isTouch(_ line: String) -> Bool { let bytes = Array(line.utf8); return EventFeed.isTouchRecord(bytes, 0, bytes.count) }
        #expect(isTouch(#"{"time":"t","run":"r","event":"touch","phase":"down","slot":0}"#))
        #expect(isTouch(#"{"time": "t", "event" : "touch"}"#))
        #expect(!isTouch(#"{"time":"t","run":"r","seq":1,"layout":"home","outcome":"dispatched"}"#))
        #expect(!isTouch(#"{"time":"t","seq":2,"handler":"touch","actionData":{"event":"touch"}}"#))
        #expect(!isTouch(#"{"time":"t","event":"state","text":"touch"}"#))
        #expect(!isTouch(#"{"time":"t","seq":3,"source":"Fake Touchscreen"}"#))
    }

    @Test func theWindowThePositionAndARestart() throws {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let path = dir + "/events.jsonl"
        // A feed without a position starts at the log's end: the records come after it.
        try Files.writeAtomically([], to: path, temporaryPath: path + ".tmp")
        let feed = EventFeed(logPath: path, log: log)
        let fd = open(path, O_WRONLY | O_APPEND)
        let text = Array(Self.records(250).utf8)
        #expect(text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == text.count)
        close(fd)
        var published: [(mid: Int32, seq: Int)] = []
        var mid: Int32 = 1
        Self.pump(feed, into: &published, firstMid: &mid)
        // 100 records in flight: 91 taps published, the 9 contact records among them skipped
        // (each holds its place until every record before it is acknowledged).
        #expect(published.map(\.seq) == Array(1...91), "in log order, at most the window, contact records skipped")
        #expect(!feed.mayPublish)

        // Acknowledged out of order: the position waits for the first.
        #expect(feed.acknowledged(2))
        #expect(feed.ackedOffset == 0)
        #expect(feed.acknowledged(1))
        #expect(!feed.acknowledged(1), "once")
        let afterTwo = feed.ackedOffset
        #expect(afterTwo > 0)
        Self.pump(feed, into: &published, firstMid: &mid)
        #expect(published.count == 93 && published.suffix(2).map(\.seq) == [92, 93], "two acknowledged, two more")

        // A lost connection: published again from the acknowledged position (seq 3 on).
        feed.rewind()
        published = []
        Self.pump(feed, into: &published, firstMid: &mid)
        #expect(published.first?.seq == 3 && published.map(\.seq) == Array(3...(published.last?.seq ?? 0)))
        #expect(published.count == 91)

        // The position is kept; a new feed (a restarted daemon) starts there.
        for message in published.prefix(10) { _ = feed.acknowledged(message.mid) }
        feed.close()
        let restarted = EventFeed(logPath: path, log: log)
        defer { restarted.close() }
        var again: [(mid: Int32, seq: Int)] = []
        Self.pump(restarted, into: &again, firstMid: &mid)
        #expect(again.first?.seq == 13, "after the 12 acknowledged")
        #expect(restarted.backlog() > 0)
    }
}
