@preconcurrency import Glibc
import Testing

@testable import TapgridCore
@testable import TapgridDaemon
@testable import TapgridSystem
import TapgridTestSupport

/// The tap-output path driven without sockets (as swift-nio's EmbeddedChannel drives handlers):
/// request lines go into the `RequestRouter` as a connection's, and what a user would check is
/// read back: the reply in the connection's output, the records in the event log, and that no
/// reply is ever ready to send before its record reached the file.
@Suite(.serialized) struct TapOutputTests {
    /// One 100x100 layout: cols of two grids (x 0-50 "left" tag 1, 50-100 "right" tag 2), routed to
    /// the default `log` handler (its lines are held, never written here: no loop runs).
    static let config = #"""
    {"layouts": {"home": {"width": 100, "height": 100, "grid": {"cols": [
        {"size": "50%", "tag": 1, "name": "left"}, {"size": "50%", "tag": 2, "name": "right"}]}}}}
    """#

    final class Harness {
        let loop: EventLoop
        let eventLog: EventLog
        let output: TapOutput
        let touch: TouchInput
        let router: RequestRouter
        let connection = Connection(descriptor: nil, number: 1, slot: 0, token: 0, uid: 0, gids: [])
        let config: Config

        init(eventLogPath: String) throws {
            let document = try JSONParser.parse(TapOutputTests.config, lenient: true)
            var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
                .failure(Diagnostic(.error, "no files here: \(path)"))
            }
            let (loaded, diagnostics) = parser.parse(document)
            #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
            config = try #require(loaded)
            loop = try EventLoop()
            let log = LogSink(verbose: false, journal: false, priorityPrefixes: false)
            eventLog = EventLog(runID: "test", log: log)
            eventLog.configure(path: eventLogPath)
            output = TapOutput(
                engine: TapEngine(config: config, generation: 1), eventLog: eventLog, log: log,
                supervisor: ChildSupervisor(loop: loop, environment: [:]))
            touch = TouchInput(output: output, loop: loop)
            router = RequestRouter(output: output, touch: touch, daemonUID: 0)
        }

        /// The event log is closed as the daemon closes it (an open one dropped is a bug).
        deinit { eventLog.close() }

        /// Answers `line` as the connection's; returns the replies it made since the last call.
        func send(_ line: String) -> String {
            let before = connection.output.count
            Array(line.utf8).withUnsafeBufferPointer { router.handleLine($0, from: connection) }
            return String(decoding: connection.output.bytes[before...], as: UTF8.self)
        }
    }

    /// An event log path in a new folder of its own (`makeTempDir`).
    static func temporaryLog() throws -> String { try makeTempDir() + "/events.jsonl" }

    /// Removes the log's folder, with the log.
    static func remove(_ path: String) { removeTempDir(path.dropLastPathComponent) }

    static func read(_ path: String) -> [String] {
        ((try? Files.readFile(path, maxBytes: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? "")
            .split(separator: "\n").map(String.init)
    }

    @Test func recordsReachTheFileBeforeTheirRepliesMaySend() throws {
        let path = try Self.temporaryLog()
        defer { Self.remove(path) }
        let harness = try Harness(eventLogPath: path)
        let reply = harness.send(#"{"x": 25, "y": 50}"#)
        #expect(reply.hasPrefix(#"{"seq":1,"layout":"home""#) && reply.hasSuffix(#""handler":"log","outcome":"dispatched"}"# + "\n"), "\(reply)")
        // Staged, not written: the socket server sends nothing before it calls `writeStagedRecords`.
        #expect(Self.read(path).isEmpty)
        #expect(harness.eventLog.stagedCount == 1)
        harness.output.writeStagedRecords()
        let records = Self.read(path)
        #expect(records.count == 1)
        #expect(records.first?.contains(#""seq":1"#) == true && records.first?.contains(#""hit":"0""#) == true, "\(records)")
        #expect(!reply.contains("logged"))
    }

    /// The endpoint the panel and the fleet answer through: replies typed, the error's code as a
    /// value even when the reply starts with an `id`, the records written before it returns.
    @Test func theEndpointTypesEachReplyAndWritesItsRecordsFirst() throws {
        let path = try Self.temporaryLog()
        defer { Self.remove(path) }
        let harness = try Harness(eventLogPath: path)
        let endpoint = RequestEndpoint(router: harness.router)
        let bad = endpoint.answer(Array(#"{"id": 1, "x": 1e999, "y": 1}"#.utf8), on: harness.connection)
        #expect(bad.map(\.error) == [.badRequest])
        #expect(bad.first.map { String(decoding: $0.line, as: UTF8.self).hasPrefix(#"{"id":1,"error":{"code":"bad_request""#) } == true)
        let unknown = endpoint.answer(Array(#"{"id": "a", "op": "tap", "x": 1, "y": 1, "layout": "nope"}"#.utf8), on: harness.connection)
        #expect(unknown.map(\.error) == [.unknownLayout])
        #expect(PanelDocuments.httpStatus(for: unknown.first?.error) == 404)
        #expect(PanelDocuments.httpStatus(for: bad.first?.error) == 400)
        let tap = endpoint.answer(Array(#"{"id": 2, "x": 25, "y": 50}"#.utf8), on: harness.connection)
        #expect(tap.count == 1 && tap.first?.error == nil)
        #expect(PanelDocuments.httpStatus(for: tap.first?.error) == 200)
        #expect(Self.read(path).count == 1, "the tap's record is in the file when its reply is returned")
        #expect(harness.connection.output.count == 0, "the replies were taken")
        #expect(endpoint.answer(Array("  ".utf8), on: harness.connection).isEmpty)
    }

    @Test func contactRecordsAndClassedTapsShareThePath() throws {
        let path = try Self.temporaryLog()
        defer { Self.remove(path) }
        let harness = try Harness(eventLogPath: path)
        let down = harness.send(#"{"op": "down", "x": 75, "y": 50}"#)
        #expect(down == "{\"ok\":true,\"taps\":[]}\n")
        let up = harness.send(#"{"op": "up"}"#)
        #expect(up.hasPrefix(#"{"ok":true,"taps":[{"seq":1,"#) && up.contains(#""class":"tap""#) && up.hasSuffix("}]}\n"), "\(up)")
        #expect(Self.read(path).isEmpty)
        harness.output.writeStagedRecords()
        // The down, the up, and the tap the up completed, in that order.
        let records = Self.read(path)
        #expect(records.count == 3, "\(records)")
        #expect(records.count == 3 && records[0].contains(#""phase":"down""#) && records[1].contains(#""phase":"up""#)
            && records[2].contains(#""class":"tap""#), "\(records)")
    }

    /// `/dev/full` opens for appending and refuses every write (`ENOSPC`): each reply whose record
    /// did not reach the file says `"logged": false`, a plain tap's and a classed tap's inside a
    /// touch reply alike; the other replies are unchanged.
    @Test func aRecordTheFileRefusedMarksExactlyItsReply() throws {
        let harness = try Harness(eventLogPath: "/dev/full")
        _ = harness.send(#"{"x": 25, "y": 50}"#)
        _ = harness.send(#"{"op": "hit", "x": 75, "y": 50}"#)
        _ = harness.send(#"{"op": "down", "x": 75, "y": 50}"#)
        _ = harness.send(#"{"op": "up"}"#)
        harness.output.writeStagedRecords()
        let replies = String(decoding: harness.connection.output.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(replies.count == 4, "\(replies)")
        guard replies.count == 4 else { return }
        #expect(replies[0].hasPrefix(#"{"seq":1,"#) && replies[0].hasSuffix(#""outcome":"dispatched","logged":false}"#), "\(replies[0])")
        #expect(!replies[1].contains("logged"), "a hit-test is not recorded: \(replies[1])")
        #expect(replies[2] == #"{"ok":true,"taps":[]}"#)
        #expect(replies[3].hasSuffix(#""class":"tap","logged":false}]}"#), "\(replies[3])")
        #expect(harness.eventLog.ok == false && harness.eventLog.lastError?.contains("/dev/full") == true)
    }
}

extension String {
    fileprivate var dropLastPathComponent: String {
        guard let slash = lastIndex(of: "/") else { return "." }
        return String(self[..<slash])
    }
}
