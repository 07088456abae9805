import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

extension EndToEnd {
    @Test func everyOpReplyShape() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()

        let tap = try c.request(#"{"op": "tap", "x": 50, "y": 50, "id": 7}"#)
        #expect(tap.int("id") == 7)
        #expect(tap.int("seq") == 1)
        #expect(tap.string("layout") == "home")
        #expect(tap.int("generation") == 1)
        #expect(tap.string("handler") == "audit")
        #expect(tap.string("outcome") == "dispatched")
        let hit = try #require(tap.object("hit"))
        #expect(hit.string("path") == "0")
        #expect(hit.string("name") == "log")
        #expect(hit.int("tag") == 1)
        #expect((hit["actionData"] as? [String: Any])?["k"] != nil)
        #expect(tap["logged"] == nil)

        let check = try c.request(#"{"op": "hit", "x": 350, "y": 50}"#)
        #expect(check["seq"] == nil)
        #expect(check.string("outcome") == "checked")
        #expect(check.object("hit")?.string("path") == "3")
        #expect(check.object("hit")?.isNull("name") == true)
        #expect(check.object("hit")?.isNull("actionData") == true)
        #expect(check.isNull("handler"))

        let status = try c.request(#"{"op": "status"}"#)
        #expect(status["uptime"] is NSNumber)
        #expect(status.int("generation") == 1)
        #expect(status.string("layout") == "home")
        #expect(status.int("taps") == 1)
        #expect(status.object("outcomes")?.int("dispatched") == 1)
        #expect(status.object("outcomes")?["checked"] == nil)
        #expect(status.int("children") == 0)
        #expect(status.int("clients") == 1)
        #expect(status.object("eventLog")?.string("path") == daemon.eventLogPath)
        #expect(status.object("eventLog")?["ok"] as? Bool == true)

        let layouts = try c.request(#"{"op": "layouts", "id": "L"}"#)
        #expect(layouts.string("id") == "L")
        let list = try #require(layouts["layouts"] as? [[String: Any]])
        #expect(list.map { $0.string("name") ?? "" } == ["deb", "home", "kids", "other"])
        let home = try #require(list.first { $0.string("name") == "home" })
        #expect(home.int("width") == 400 && home.int("height") == 100)
        #expect(home["current"] as? Bool == true)
        let grids = try #require(home["grids"] as? [[String: Any]])
        #expect(grids.count == 5)
        #expect(grids[0].string("path") == "")
        #expect((grids[0]["rect"] as? [NSNumber])?.map(\.intValue) == [0, 0, 400, 100])
        #expect((grids[2]["rect"] as? [NSNumber])?.map(\.intValue) == [100, 0, 100, 100])

        let use = try c.request(#"{"op": "use", "layout": "other", "id": null}"#)
        #expect(use.isNull("id"))
        #expect(use["ok"] as? Bool == true)
        #expect(use.string("layout") == "other")
        #expect(try c.request(#"{"op": "use", "layout": "nope"}"#).errorCode == "unknown_layout")
        #expect(try c.request(#"{"op": "use"}"#).errorCode == "bad_request")

        let reload = try c.request(#"{"op": "reload", "id": {"a": [1, 2.5]}}"#)
        #expect(reload["ok"] as? Bool == true)
        #expect(reload.int("generation") == 2)
        #expect((reload["id"] as? [String: Any])?["a"] != nil)
        // The current layout survives a reload when it still exists.
        #expect(try c.request(#"{"op": "status"}"#).string("layout") == "other")
        #expect(try daemon.stop() == 0)
    }

    @Test func idIsEchoedVerbatim() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        c.send(#"{"id": {"b": [true, null, -1.5e3, "\u00e9"]}, "x": 1, "y": 1}"# + "\n")
        let line = try #require(c.readLine())
        #expect(line.hasPrefix(#"{"id":{"b": [true, null, -1.5e3, "\u00e9"]},"seq":1,"#))
        c.send(#"{"id": "x", "x": "1", "y": 1}"# + "\n")
        let bad = try #require(c.readLine())
        #expect(bad == #"{"id":"x","error":{"code":"bad_request","message":"\"x\" must be a finite number"}}"#)
    }

    @Test func malformedRequests() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        let cases: [(String, String, String?)] = [
            ("{\"x\": 1, \"y\": 2", "parse_error", nil),
            ("{\"x\": NaN, \"y\": 2, \"id\": 3}", "parse_error", nil),
            ("{\"x\": 0x10, \"y\": 2}", "parse_error", nil),
            ("{\"x\": 1, \"y\": 2} trailing", "parse_error", nil),
            ("{\"x\": 1e999, \"y\": 2, \"id\": 4}", "bad_request", "\"x\" must be a finite number"),
            ("{\"x\": \"1\", \"y\": 2}", "bad_request", "\"x\" must be a finite number"),
            ("{\"x\": 1, \"y\": null}", "bad_request", "\"y\" must be a finite number"),
            ("{\"y\": 2}", "bad_request", "\"x\" is required"),
            ("{\"x\": 1}", "bad_request", "\"y\" is required"),
            ("{\"x\": 1, \"y\": 2, \"x\": 3}", "bad_request", "duplicate key \"x\""),
            ("[1, 2]", "bad_request", "a request must be a JSON object"),
            ("{\"op\": 5}", "bad_request", "\"op\" must be a string"),
            ("{\"op\": \"explode\"}", "unknown_op", nil),
            ("{\"x\": 1, \"y\": 2, \"layout\": \"nope\"}", "unknown_layout", "unknown layout \"nope\"; the layouts are \"deb\", \"home\", \"kids\", \"other\""),
        ]
        for (request, code, message) in cases {
            let reply = try c.request(request)
            #expect(reply.errorCode == code, "\(request)")
            if let message { #expect(reply.errorMessage == message, "\(request)") }
        }
        // id: echoed for bad_request, never taken from text that is not JSON.
        #expect(try c.request("{\"x\": 1e999, \"y\": 2, \"id\": 4}").int("id") == 4)
        #expect(try c.request("{\"x\": NaN, \"y\": 2, \"id\": 3}")["id"] == nil)
        // Invalid UTF-8 is a parse error.
        c.send([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D, 0x0A])
        #expect(try parseObject(try #require(c.readLine())).errorCode == "parse_error")
        // Errors keep the connection open; nothing was tapped.
        let status = try c.request(#"{"op": "status"}"#)
        #expect(status.int("taps") == 0)
    }

    @Test func framingRules() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        // Pipelined, CRLF, blank and whitespace-only lines, a last line without \n before shutdown.
        c.send("{\"x\":1,\"y\":1,\"id\":1}\r\n\n   \t\r\n{\"op\":\"hit\",\"x\":1,\"y\":1,\"id\":2}\n{\"op\":\"status\",\"id\":3}\n{\"x\":150,\"y\":1,\"id\":4}")
        c.shutdownWrite()
        let replies = try c.readAllLines().map(parseObject)
        #expect(replies.map { $0.int("id") ?? -1 } == [1, 2, 3, 4])
        #expect(replies[3].string("outcome") == "dispatched")
    }

    @Test func oversizedLineIsRefusedThenClosed() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        let long = "{\"x\":1,\"y\":1,\"pad\":\"" + String(repeating: "a", count: 70_000) + "\"}\n"
        c.send(long)
        let lines = c.readAllLines()
        #expect(lines.count == 1)
        #expect(try parseObject(lines[0]).errorCode == "line_too_long")
        // A line of exactly 65,536 bytes is accepted.
        let c2 = try daemon.connect()
        let prefix = "{\"x\":1,\"y\":1,\"pad\":\""
        let exact = prefix + String(repeating: "b", count: 65_536 - prefix.utf8.count - 2) + "\"}"
        #expect(exact.utf8.count == 65_536)
        #expect(try c2.request(exact).string("outcome") == "dispatched")
        // A newline-less stream never makes the daemon buffer without bound.
        let c3 = try daemon.connect()
        let chunk = String(repeating: "c", count: 1 << 16)
        var sent = 0
        while sent < 64, c3.send(chunk) { sent += 1 }
        #expect(c3.readAllLines().first.map { (try? parseObject($0))?.errorCode } == "line_too_long")
    }

    @Test func tooManyClients() throws {
        let daemon = try DaemonProcess(config: standardConfig(socketExtra: #", "maxClients": 2"#))
        // The start-up probe's connection may still be counted for a moment.
        var waited = 0
        while waited < 100, (try? daemon.connect().request(#"{"op":"status"}"#).int("clients")) != 1 {
            usleep(20_000)
            waited += 1
        }
        usleep(50_000)
        let a = try daemon.connect()
        _ = try a.request(#"{"op":"status"}"#)
        let b = try daemon.connect()
        #expect(try b.request(#"{"op":"status"}"#).int("clients") == 2)
        let c = try daemon.connect()
        let lines = c.readAllLines()
        #expect(lines.count == 1)
        #expect(try parseObject(lines[0]).errorCode == "too_many_clients")
        a.close()
        usleep(100_000)
        let d = try daemon.connect()
        #expect(try d.request(#"{"op":"status"}"#).int("clients") == 2)
    }

    @Test func allowListsAdmitTheDaemonsOwnUser() throws {
        // Root and the daemon's own uid are always allowed, even when not listed.
        let extra = #", "allow": {"uids": [4242424]}, "allowControl": {"uids": [4242424]}"#
        let daemon = try DaemonProcess(config: standardConfig(socketExtra: extra))
        let c = try daemon.connect()
        #expect(try c.request(#"{"op":"use","layout":"other"}"#)["ok"] as? Bool == true)
        #expect(try c.request(#"{"op":"reload"}"#)["ok"] as? Bool == true)
    }
}
