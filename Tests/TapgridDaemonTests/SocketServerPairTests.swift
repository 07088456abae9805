@preconcurrency import Glibc
import Testing

@testable import TapgridCore
@testable import TapgridDaemon
@testable import TapgridSystem
import TapgridTestSupport

/// The socket server on the one end of a socketpair, the test on the other: no socket file, no
/// client process. Pipelined lines are answered in order, each reply after its record reached
/// the event log, and the peer's hang-up closes the connection.
@Suite(.serialized) struct SocketServerPairTests {
    @Test func pipelinedLinesAreAnsweredInOrderAfterTheirRecords() throws {
        let log = try TapOutputTests.temporaryLog()
        defer { TapOutputTests.remove(log) }
        let harness = try TapOutputTests.Harness(eventLogPath: log)
        let endpoint = RequestEndpoint(router: harness.router)
        var pair: [CInt] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        var listenerPair: [CInt] = [-1, -1]  // a listener that never has a client to accept
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &listenerPair) == 0)
        defer { close(listenerPair[1]) }
        let server = try SocketServer(
            loop: harness.loop, listener: OwnedFD(taking: listenerPair[0]), socketPath: nil,
            admission: SocketServer.Admission(harness.config), lineHandler: endpoint,
            log: LogSink(verbose: false, journal: false, priorityPrefixes: false))
        harness.loop.onWakeupEnd { [unowned server] in server.sendReplies() }
        _ = fcntl(pair[1], F_SETFL, O_NONBLOCK)
        server.admit(OwnedFD(taking: pair[1]))
        #expect(server.count == 1)

        let client = pair[0]
        let lines = #"{"x": 25, "y": 50, "id": 1}"# + "\n" + "garbage\n" + #"{"op": "hit", "x": 75, "y": 50, "id": 3}"# + "\n"
        #expect(Array(lines.utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) } == lines.utf8.count)
        var replies = ""
        let deadline = Clock.monotonicNanos() + 5_000_000_000
        let tick = harness.loop.makeTimer(every: 10_000_000) {}
        harness.loop.schedule(tick, after: 10_000_000)
        try harness.loop.run {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var pfd = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 0) == 1 {
                let n = read(client, &buffer, buffer.count)
                if n > 0 { replies += String(decoding: buffer[..<n], as: UTF8.self) }
            }
            return replies.filter { $0 == "\n" }.count >= 3 || Clock.monotonicNanos() > deadline
        }
        let answered = replies.split(separator: "\n").map(String.init)
        #expect(answered.count == 3, "\(replies)")
        guard answered.count == 3 else { return }
        #expect(answered[0].hasPrefix(#"{"id":1,"seq":1,"#) && answered[0].contains(#""outcome":"dispatched""#), "\(answered[0])")
        #expect(answered[1].hasPrefix(#"{"error":{"code":"parse_error""#), "\(answered[1])")
        #expect(answered[2].hasPrefix(#"{"id":3,"#) && answered[2].contains(#""outcome":"checked""#), "\(answered[2])")
        #expect(TapOutputTests.read(log).count == 1, "the tap's record, written before its reply was sent")

        // The client hangs up: the server closes its end.
        close(client)
        try harness.loop.run { server.count == 0 || Clock.monotonicNanos() > deadline }
        harness.loop.removeTimer(tick)
        #expect(server.count == 0)
    }
}
