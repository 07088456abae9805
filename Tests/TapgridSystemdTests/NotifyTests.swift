@preconcurrency import Glibc
import Testing

import TapgridSystem
import TapgridTestSupport
@testable import TapgridSystemd

extension SystemdTests {
    /// A stand-in for systemd's notify socket: a bound datagram socket named by `NOTIFY_SOCKET`;
    /// each notification must arrive as exactly the expected datagram.
    @Suite struct NotifyTests {
        @Test func withoutNotifySocketNothingIsSent() throws {
            try withEnvironment(["NOTIFY_SOCKET": nil]) { () throws in
                #expect(try ServiceNotifier.notify([.ready]) == false)
                #expect(try ServiceNotifier.notify(state: "STOPPING=1") == false)
            }
        }

        @Test func eachNotificationIsOneExactDatagram() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/notify"
                let receiver = try unixSocket(SOCK_DGRAM, boundTo: path)
                try withEnvironment(["NOTIFY_SOCKET": path]) { () throws in
                    func expectDatagram(_ fields: [NotifyField], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                        #expect(try ServiceNotifier.notify(fields), sourceLocation: sourceLocation)
                        let got = receiveDatagram(receiver.rawValue).map { String(decoding: $0, as: UTF8.self) }
                        #expect(got == expected, sourceLocation: sourceLocation)
                    }
                    try expectDatagram([.ready, .status("layout home, generation 1, 0 taps")], "READY=1\nSTATUS=layout home, generation 1, 0 taps")
                    try expectDatagram([.reloading(monotonicMicroseconds: 1_234_567), .status("reloading")], "RELOADING=1\nMONOTONIC_USEC=1234567\nSTATUS=reloading")
                    try expectDatagram(
                        [.ready, .status("reload failed: tapgrid.json:3:1: expected a value\nWATCHDOG=trigger")],
                        "READY=1\nSTATUS=reload failed: tapgrid.json:3:1: expected a value WATCHDOG=trigger")
                    try expectDatagram([.stopping, .status("stopping")], "STOPPING=1\nSTATUS=stopping")
                    try expectDatagram([.watchdog], "WATCHDOG=1")
                    try expectDatagram([.extendTimeout(microseconds: 3_000_000)], "EXTEND_TIMEOUT_USEC=3000000")
                    #expect(try ServiceNotifier.notify(state: "ERRNO=5"))
                    #expect(receiveDatagram(receiver.rawValue) == Array("ERRNO=5".utf8))
                    // NOTIFY_SOCKET stays set (unset_environment = 0), or later notifications would be lost.
                    #expect(CurrentProcess.environment("NOTIFY_SOCKET") == path)
                }
            }
        }

        @Test func reloadingNowCarriesTheMonotonicClock() throws {
            let before = Clock.monotonicNanos() / 1_000
            guard case .reloading(let usec) = NotifyField.reloadingNow else {
                Issue.record("reloadingNow is not .reloading")
                return
            }
            let after = Clock.monotonicNanos() / 1_000
            #expect(before <= usec && usec <= after)
        }

        @Test func aVanishedNotifySocketIsAnError() throws {
            try withTemporaryDirectory { dir in
                try withEnvironment(["NOTIFY_SOCKET": dir + "/gone"]) { () throws in
                    let error = #expect(throws: SystemdError.self) { try ServiceNotifier.notify([.ready]) }
                    #expect(error?.description == "sd_notify: No such file or directory (errno 2)")
                    #expect(error?.function == "sd_notify")
                }
            }
        }

        @Test func watchdogInterval() throws {
            let me = String(getpid())
            try withEnvironment(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) { () throws in
                #expect(try ServiceNotifier.watchdogMicroseconds() == nil)
            }
            try withEnvironment(["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": nil]) { () throws in
                #expect(try ServiceNotifier.watchdogMicroseconds() == 2_000_000)
            }
            try withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": me]) { () throws in
                #expect(try ServiceNotifier.watchdogMicroseconds() == 30_000_000)
                #expect(CurrentProcess.environment("WATCHDOG_USEC") == "30000000")  // left in place
            }
            try withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]) { () throws in
                #expect(try ServiceNotifier.watchdogMicroseconds() == nil)  // meant for another process
            }
            try withEnvironment(["WATCHDOG_USEC": "soon", "WATCHDOG_PID": nil]) { () throws in
                let error = #expect(throws: SystemdError.self) { try ServiceNotifier.watchdogMicroseconds() }
                #expect(error?.description == "sd_watchdog_enabled: Invalid argument (errno 22)")
            }
        }
    }
}
