import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: what the daemon tells systemd.
final class NotifyListener {
    let path: String
    let fd: Int32

    init(dir: String) throws {
        path = dir + "/notify.sock"
        fd = try makeUnixSocket(SOCK_DGRAM, boundTo: path)
    }

    deinit { close(fd) }

    /// The next datagram, or nil after `seconds` without one.
    func next(seconds: Double = 10) -> String? {
        receiveDatagram(fd, timeoutMs: Int32(seconds * 1000)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Datagrams until one satisfies `match` (skipping watchdog pings and status refreshes).
    func next(matching match: (String) -> Bool, seconds: Double = 10) -> String? {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, let message = next(seconds: end.timeIntervalSinceNow) {
            if match(message) { return message }
        }
        return nil
    }
}

extension EndToEnd {
    @Suite struct SystemdTests {
        /// A daemon told to notify a listener in a folder of its own.
        func start(watchdogUsec: Int? = nil) throws -> (DaemonProcess, NotifyListener, String) {
            let dir = try makeTempDir()
            let listener = try NotifyListener(dir: dir)
            var environment = ["NOTIFY_SOCKET": listener.path]
            if let watchdogUsec { environment["WATCHDOG_USEC"] = String(watchdogUsec) }
            let daemon = try DaemonProcess(environment: environment)
            daemon.alsoRemove.append(dir)
            return (daemon, listener, dir)
        }

        @Test func readyWithStatusThenReloadsAndStopping() throws {
            let (daemon, notify, _) = try start()
            // The first thing systemd hears is READY=1, sent once the socket accepts (DaemonProcess
            // connected before this), with the status.
            #expect(notify.next() == "READY=1\nSTATUS=layout home, generation 1, 0 taps")
            #expect(try daemon.connect().request(#"{"x": 50, "y": 50}"#).string("outcome") == "dispatched")

            kill(daemon.pid, SIGHUP)
            let reloading = try #require(notify.next())
            let lines = reloading.split(separator: "\n")
            #expect(lines.first == "RELOADING=1" && lines.count == 2 && lines[1].hasPrefix("MONOTONIC_USEC="))
            let usec = UInt64(lines[1].dropFirst("MONOTONIC_USEC=".count)) ?? 0
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            #expect(usec > 0 && usec <= nowUsec && nowUsec - usec < 10_000_000)
            #expect(notify.next() == "READY=1\nSTATUS=layout home, generation 2, 1 tap")

            // A broken config: still READY=1 (the old one serves), and STATUS= says why.
            try "{ not json".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            kill(daemon.pid, SIGHUP)
            #expect(notify.next()?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
            #expect(notify.next() == "READY=1\nSTATUS=reload failed: \(daemon.configPath):1:3: expected a string key or '}', found 'not'")
            #expect(try daemon.connect().request(#"{"op": "status"}"#).int("generation") == 2)

            #expect(try daemon.stop(SIGTERM) == 0)
            #expect(notify.next() == "STOPPING=1")
        }

        @Test func watchdogPingsEveryHalfInterval() throws {
            let (daemon, notify, _) = try start(watchdogUsec: 200_000)
            #expect(notify.next() == "READY=1\nSTATUS=layout home, generation 1, 0 taps")
            // 100 ms apart: about 10 in a second (a loaded machine may delay a few).
            var pings = 0
            let end = Date().addingTimeInterval(1)
            while Date() < end, let message = notify.next(seconds: end.timeIntervalSinceNow) {
                if message == "WATCHDOG=1" { pings += 1 }
            }
            #expect((7...12).contains(pings), "\(pings) pings in 1 s with WatchdogSec=0.2")
            #expect(try daemon.stop() == 0)
        }

        @Test func servesTheSocketSystemdPassesAndLeavesItAlone() throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let socketPath = dir + "/activated.sock"
            let configPath = dir + "/tapgrid.json"
            try standardConfig().write(toFile: configPath, atomically: true, encoding: .utf8)
            let activator = Process()
            activator.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
            activator.arguments = ["-l", socketPath, "--fdname=tapgrid", daemonBinary, "--config", configPath]
            let stderrPath = dir + "/stderr.txt"
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            activator.standardError = FileHandle(forWritingAtPath: stderrPath)
            activator.standardOutput = FileHandle.nullDevice
            try activator.run()
            defer { if activator.isRunning { kill(activator.processIdentifier, SIGKILL) } }
            var connection: LineClient? = nil
            let deadline = Date().addingTimeInterval(10)
            while connection == nil && Date() < deadline {
                connection = try? LineClient(socketPath)
                if connection == nil { usleep(20_000) }
            }
            let c = try #require(connection)
            // The first connection starts the daemon on the passed socket, which answers it.
            let reply = try c.request(#"{"x": 50, "y": 50}"#)
            #expect(reply.string("outcome") == "dispatched")
            let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            #expect(log.contains("listening on the socket systemd passed (tapgrid)"))
            c.close()
            // systemd-socket-activate execs the daemon in its own process: SIGTERM it.
            kill(activator.processIdentifier, SIGTERM)
            activator.waitUntilExit()
            #expect(activator.terminationStatus == 0)
            // The socket file is systemd's: the daemon did not remove it.
            #expect(FileManager.default.fileExists(atPath: socketPath))
            // The config's own socket (d.sock) was never created.
            #expect(!FileManager.default.fileExists(atPath: dir + "/d.sock"))
        }
    }
}
