import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// Garbage on the socket: random bytes, broken and valid JSON mixed, lines cut anywhere,
/// oversized lines and abrupt disconnects from several clients at once. The daemon must answer
/// every complete line it keeps the connection for with one JSON reply, and stay up.
extension EndToEnd {
    @Test func randomGarbageFromManyClientsNeverCrashesTheDaemon() throws {
        let daemon = try DaemonProcess()
        let socketPath = daemon.socketPath
        let pieces: [String] = [
            #"{"x": 50, "y": 50}"#, #"{"op": "hit", "x": 150, "y": 1, "id": [1, {"a": null}]}"#, #"{"op":"status"}"#,
            #"{"x": NaN, "y": 1}"#, #"{"x": 1e999, "y": 1}"#, #"{"x": 1, "x": 2, "y": 3}"#, "[1, 2", "{", "}", "\"",
            #"{"op": "use", "layout": "nope"}"#, #"{"op": 7}"#, #"{"x": "1", "y": 1}"#, "null", "\u{0}\u{1}",
            #"{"layout": "other", "x": 5, "y": 5}"#, #"{"op":"layouts"}"#, "\\ud800", #"{"a":"\ud800"}"#, "\r",
        ]
        var generator = SystemRandomNumberGenerator()
        var scripts: [[UInt8]] = []
        for _ in 0..<24 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 20...120, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: bytes += (0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                case 1: bytes += Array(pieces.randomElement(using: &generator)!.utf8.prefix(Int.random(in: 0...20, using: &generator)))
                default: bytes += Array(pieces.randomElement(using: &generator)!.utf8)
                }
                bytes.append(0x0A)
            }
            scripts.append(bytes)
        }
        // One client also sends an oversized line, which must end its connection.
        scripts[0] += Array(repeating: UInt8(ascii: "a"), count: 70_000) + [0x0A]
        let allScripts = scripts
        DispatchQueue.concurrentPerform(iterations: allScripts.count) { k in
            guard let c = try? LineClient(socketPath, receiveTimeout: 5) else { return }
            let script = allScripts[k]
            // Send in random-sized chunks, so lines are cut anywhere.
            var offset = 0
            var rng = SystemRandomNumberGenerator()
            while offset < script.count {
                let n = min(script.count - offset, Int.random(in: 1...300, using: &rng))
                guard c.send(Array(script[offset..<(offset + n)])) else { break }
                offset += n
            }
            if k % 3 == 0 {
                c.close()  // abrupt: replies never read
                return
            }
            c.shutdownWrite()
            let replies = c.readAllLines()
            if k != 0 {
                // One reply per line that is not blank (space, tab, CR only), the last one too.
                var lines = script.split(separator: 0x0A, omittingEmptySubsequences: false)
                if lines.last?.isEmpty == true { lines.removeLast() }
                let requests = lines.filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }.count
                if replies.count != requests { Issue.record("client \(k): \(requests) requests, \(replies.count) replies") }
            }
            for line in replies {
                // Every reply is one JSON object with either an outcome or an error code.
                guard let object = try? parseObject(line), object["outcome"] != nil || object.errorCode != nil || object["uptime"] != nil || object["layouts"] != nil else {
                    Issue.record("not a reply: \(line.prefix(200))")
                    return
                }
            }
        }
        #expect(daemon.process.isRunning)
        let status = try daemon.connect().request(#"{"op": "status"}"#)
        #expect(status["uptime"] != nil)
        #expect(try daemon.connect().request(#"{"x": 50, "y": 50}"#).string("outcome") != nil)
        #expect(try daemon.stop() == 0)
    }
}
