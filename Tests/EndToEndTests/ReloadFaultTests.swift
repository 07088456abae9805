import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// The config's layout file (or the config itself) replaced by a FIFO or a directory before a
/// reload: the reload is refused at once with a message naming the file and what it is, and the
/// old config keeps serving. Before, a FIFO blocked the reload forever (open(2) waits for a
/// writer), and every later reload waited behind it.
extension EndToEnd {
    @Suite struct ReloadFaultTests {
        @Test func layoutFileOrConfigReplacedByFIFOOrDirectory() throws {
            let daemon = try DaemonProcess()
            let layout = daemon.dir + "/home.json"
            #expect(mkfifo(layout, 0o644) == 0)
            try #"{"socket": {"path": "d.sock"}, "eventLog": false, "layouts": {"home": {"width": 100, "height": 100, "grid": "home.json"}}}"#
                .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            let c = try daemon.connect()
            let started = Date()
            let fifo = try c.request(#"{"op": "reload"}"#)
            #expect(Date().timeIntervalSince(started) < 5)
            #expect(fifo.errorCode == "config_error")
            #expect(fifo.errorMessage?.contains("cannot read \(layout): it is a FIFO, not a regular file") == true, "\(fifo)")
            #expect(try c.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")

            unlink(layout)
            #expect(mkdir(layout, 0o755) == 0)
            let directory = try c.request(#"{"op": "reload"}"#)
            #expect(directory.errorMessage?.contains("cannot read \(layout): Is a directory (errno 21)") == true, "\(directory)")

            unlink(daemon.configPath)
            #expect(mkfifo(daemon.configPath, 0o644) == 0)
            let config = try c.request(#"{"op": "reload"}"#)
            #expect(config.errorMessage == "cannot read \(daemon.configPath): it is a FIFO, not a regular file", "\(config)")
            #expect(try c.request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            #expect(try c.request(#"{"op": "status"}"#).int("generation") == 1)
        }
    }
}
