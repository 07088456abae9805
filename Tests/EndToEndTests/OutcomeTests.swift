import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

extension EndToEnd {
    @Test func outcomesAndEventLog() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        var replies: [[String: Any]] = []
        func tap(_ x: Int, _ y: Int, layout: String? = nil) throws -> String? {
            let layoutField = layout.map { ",\"layout\":\"\($0)\"" } ?? ""
            let reply = try c.request("{\"x\":\(x),\"y\":\(y)\(layoutField)}")
            replies.append(reply)
            return reply.string("outcome")
        }
        #expect(try tap(450, 50) == "miss")
        #expect(replies.last!.isNull("hit") && replies.last!.isNull("handler"))
        #expect(try tap(350, 50) == "unrouted")
        #expect(try tap(250, 50) == "denied")  // layout handler, actionData 42 is not a layout name
        #expect(try tap(50, 50) == "dispatched")  // log handler
        #expect(try tap(150, 50) == "dispatched")  // layout handler: "other" becomes current
        #expect(try c.request(#"{"op":"status"}"#).string("layout") == "other")
        // Explicit layout: hit-tested against home although other is current.
        #expect(try tap(350, 50, layout: "home") == "unrouted")
        #expect(replies.last!.string("layout") == "home")
        #expect(try tap(5, 5) == "dispatched")  // other's grid flips back to home
        let script = try tap(5, 5, layout: "kids")
        #expect(script == "dispatched" || script == "failed" || script == "denied")

        // The event log has one record per tap, matching the replies.
        let records = try daemon.eventRecords().filter { $0["event"] == nil }
        #expect(records.count == replies.count)
        let runs = Set(records.compactMap { $0.string("run") })
        #expect(runs.count == 1)
        for (record, reply) in zip(records, replies) {
            #expect(record.int("seq") == reply.int("seq"))
            #expect(record.string("outcome") == reply.string("outcome"))
            #expect(record.string("layout") == reply.string("layout"))
            #expect(record.int("generation") == reply.int("generation"))
            #expect((record["hit"] as? String) == reply.object("hit")?.string("path"))
            #expect(record.string("handler") == reply.string("handler"))
            #expect(record["x"] is NSNumber && record["y"] is NSNumber)
            #expect((record.string("time") ?? "").hasSuffix("Z"))
        }
        #expect(records.map { $0.int("seq") ?? 0 } == Array(1...records.count))
        let logged = records.first { $0.string("outcome") == "dispatched" }!
        #expect(logged.string("name") == "log" && logged.int("tag") == 1)
        #expect((logged["actionData"] as? [String: Any])?["k"] != nil)
        // hit requests are neither counted nor logged.
        _ = try c.request(#"{"op":"hit","x":50,"y":50}"#)
        #expect(try daemon.eventRecords().filter { $0["event"] == nil }.count == records.count)
        #expect(try c.request(#"{"op":"status"}"#).int("taps") == replies.count)
        // The log handler writes a structured line to stderr.
        #expect(try daemon.stop() == 0)
        #expect(daemon.stderr.contains(#"tap seq=4 layout="home" grid="0" name="log" tag=1 handler="audit""#))
    }

    @Test func debounceSuppressesRepeatsAndTapThrough() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        _ = try c.request(#"{"op":"use","layout":"deb"}"#)
        #expect(try c.request(#"{"x":50,"y":50}"#).string("outcome") == "dispatched")
        #expect(try c.request(#"{"x":50,"y":50}"#).string("outcome") == "suppressed")
        // Flip to home; the same touch must not land on home right after the switch...
        #expect(try c.request(#"{"x":150,"y":50}"#).string("outcome") == "dispatched")
        let through = try c.request(#"{"x":50,"y":50}"#)
        #expect(through.string("outcome") == "suppressed")
        #expect(through.string("layout") == "home")
        // ...unless the client says which layout it aimed at.
        #expect(try c.request(#"{"x":50,"y":50,"layout":"home"}"#).string("outcome") == "dispatched")
        usleep(450_000)
        #expect(try c.request(#"{"x":50,"y":50}"#).string("outcome") == "dispatched")
        #expect(try c.request(#"{"x":50,"y":50,"layout":"deb"}"#).string("outcome") == "dispatched")
        let status = try c.request(#"{"op":"status"}"#)
        #expect(status.object("outcomes")?.int("suppressed") == 2)
    }

    @Test func eventLogWriteFailureIsReported() throws {
        // /dev/full accepts the open and fails every write with ENOSPC.
        let daemon = try DaemonProcess(config: standardConfig(eventLog: #"{"path": "/dev/full"}"#))
        let c = try daemon.connect()
        let reply = try c.request(#"{"x":50,"y":50}"#)
        #expect(reply.string("outcome") == "dispatched")
        #expect(reply["logged"] as? Bool == false)
        let status = try c.request(#"{"op":"status"}"#)
        let log = try #require(status.object("eventLog"))
        #expect(log["ok"] as? Bool == false)
        #expect((log.string("error") ?? "").contains("/dev/full"))
        // Still serving, still retrying.
        #expect(try c.request(#"{"x":50,"y":50}"#)["logged"] as? Bool == false)
        #expect(daemon.stderr.contains("event log"))
    }

    @Test func eventLogOffAndReopenOnSIGUSR1() throws {
        let off = try DaemonProcess(config: standardConfig(eventLog: "false"))
        let c = try off.connect()
        #expect(try c.request(#"{"x":50,"y":50}"#)["logged"] == nil)
        #expect(try c.request(#"{"op":"status"}"#).object("eventLog")?.isNull("path") == true)
        #expect(!FileManager.default.fileExists(atPath: off.eventLogPath))

        let daemon = try DaemonProcess()
        let d = try daemon.connect()
        _ = try d.request(#"{"x":50,"y":50}"#)
        try FileManager.default.moveItem(atPath: daemon.eventLogPath, toPath: daemon.eventLogPath + ".1")
        kill(daemon.pid, SIGUSR1)
        usleep(200_000)
        _ = try d.request(#"{"x":50,"y":50}"#)
        let fresh = try daemon.eventRecords()
        #expect(fresh.count == 1)
        #expect(fresh.first?.int("seq") == 2)
    }
}
