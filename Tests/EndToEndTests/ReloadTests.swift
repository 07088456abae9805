import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

extension EndToEnd {
    @Test func reloadGoodThenBroken() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        // A changed config: home's first column is now tag 99 (unrouted).
        let changed = standardConfig().replacingOccurrences(
            of: #"{ "name": "log", "tag": 1,"#, with: #"{ "name": "log", "tag": 99,"#)
        try changed.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        // Pipelined: the reply to the reload comes first, the tap after it sees the new config.
        c.send("{\"op\":\"reload\",\"id\":1}\n{\"x\":50,\"y\":50,\"id\":2}\n")
        let reload = try parseObject(try #require(c.readLine()))
        #expect(reload.int("id") == 1 && reload.int("generation") == 2)
        let tap = try parseObject(try #require(c.readLine()))
        #expect(tap.int("id") == 2 && tap.int("generation") == 2 && tap.string("outcome") == "unrouted")

        // A broken config is refused; the old one keeps serving.
        try #"{ "layouts": { "home": { "width": "wide" } } }"#.write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let refused = try c.request(#"{"op":"reload","id":"r"}"#)
        #expect(refused.string("id") == "r")
        #expect(refused.errorCode == "config_error")
        #expect((refused.errorMessage ?? "").contains("tapgrid.json"))
        let after = try c.request(#"{"x":50,"y":50}"#)
        #expect(after.int("generation") == 2 && after.string("outcome") == "unrouted")
        #expect(try c.request(#"{"op":"status"}"#).int("generation") == 2)
        #expect(daemon.stderr.contains("reload failed"))

        // A missing file is refused the same way.
        try FileManager.default.removeItem(atPath: daemon.configPath)
        #expect(try c.request(#"{"op":"reload"}"#).errorCode == "config_error")
        #expect(try daemon.stop() == 0)
    }

    @Test func sighupReloads() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        #expect(try c.request(#"{"op":"use","layout":"deb"}"#)["ok"] as? Bool == true)
        // Remove layout "deb": after the reload the initial layout is current again.
        let changed = standardConfig().replacingOccurrences(
            of: #""deb": { "width": 200"#, with: #""deb2": { "width": 200"#)
        try changed.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        var status: [String: Any] = [:]
        for _ in 0..<100 {
            status = try c.request(#"{"op":"status"}"#)
            if status.int("generation") == 2 { break }
            usleep(20_000)
        }
        #expect(status.int("generation") == 2)
        #expect(status.string("layout") == "home")
        // Served throughout; a tap right after uses the new generation.
        #expect(try c.request(#"{"x":50,"y":50}"#).int("generation") == 2)
    }

    @Test func checkExitCodes() throws {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        // tapgridd's exit code and stderr.
        func run(_ args: [String]) throws -> (Int32, String) {
            let result = try runProgram(daemonBinary, args)
            return (result.code, result.err)
        }
        let good = dir + "/good.json"
        try standardConfig().write(toFile: good, atomically: true, encoding: .utf8)
        let (okCode, okText) = try run(["--check", "--config", good])
        #expect(okCode == 0)
        #expect(okText.contains("warning"))  // tag 99 matches no route
        let bad = dir + "/bad.json"
        try standardConfig().replacingOccurrences(of: #""initialLayout": "home""#, with: #""initialLayout": "nope""#)
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let (badCode, badText) = try run(["--check", "--config", bad])
        #expect(badCode == 1)
        #expect(badText.contains("bad.json"))
        #expect(try run(["--check", "--config", dir + "/missing.json"]).0 == 1)
        // A config that fails at startup: the errors, exit 1, no socket.
        let (startCode, startText) = try run(["--config", bad])
        #expect(startCode == 1)
        #expect(startText.contains("bad.json"))
        #expect(try run(["--bogus"]).0 == 64)
        // --check never listens.
        #expect(!FileManager.default.fileExists(atPath: dir + "/d.sock"))
    }
}

extension EndToEnd {
    @Test func socketPrecedence() throws {
        // --socket beats $TAPGRID_SOCKET, which beats the config's socket.path.
        let cli = try DaemonProcess(
            arguments: ["--socket", "$DIR/cli.sock"], environment: ["TAPGRID_SOCKET": "$DIR/env.sock"], socketName: "cli.sock")
        #expect(try cli.connect().request(#"{"op":"status"}"#).int("generation") == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.dir + "/env.sock"))
        #expect(cli.stderr.contains("listening on \(cli.dir)/cli.sock"))
        let env = try DaemonProcess(environment: ["TAPGRID_SOCKET": "$DIR/env.sock"], socketName: "env.sock")
        #expect(try env.connect().request(#"{"op":"status"}"#).int("generation") == 1)
        #expect(!FileManager.default.fileExists(atPath: env.dir + "/d.sock"))
    }

    @Test func clientGoneDuringReload() throws {
        let daemon = try DaemonProcess()
        for _ in 0..<5 {
            let c = try daemon.connect()
            c.send("{\"op\":\"reload\"}\n{\"x\":50,\"y\":50}\n")
            c.close()
        }
        let c = try daemon.connect()
        var generation = 0
        for _ in 0..<100 {
            generation = try c.request(#"{"op":"status"}"#).int("generation") ?? 0
            if generation >= 2 { break }
            usleep(20_000)
        }
        #expect(generation >= 2)
        #expect(try c.request(#"{"op":"reload"}"#)["ok"] as? Bool == true)
        #expect(try daemon.stop() == 0)
    }
}
