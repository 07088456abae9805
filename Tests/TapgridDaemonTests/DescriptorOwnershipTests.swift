@preconcurrency import Glibc
import Testing

@testable import TapgridCore
@testable import TapgridDaemon
@testable import TapgridSystem

/// Every long-lived descriptor has one owner that closes it through its own closing path; an
/// owner dropped with its descriptor open is counted by `DescriptorAudit` (a bug). Serialized:
/// the count is process-wide, and one test here drops an owner open on purpose.
@Suite(.serialized) struct DescriptorOwnershipTests {
    /// A connected pair of stream sockets: the first for the owner under test, the second to
    /// watch it from the other end (end of file once the first is closed).
    static func socketPair() throws -> (CInt, CInt) {
        var fds: [CInt] = [-1, -1]
        try #require(socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    /// Whether the peer of `fd` is closed: a read returns end of file (within 2 s).
    static func peerClosed(_ fd: CInt) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 2000) == 1 else { return false }
        var byte: UInt8 = 0
        return Glibc.read(fd, &byte, 1) == 0
    }

    @Test func aConnectionDroppedOpenIsCountedAndItsSocketStillClosed() throws {
        let (mine, theirs) = try Self.socketPair()
        defer { Glibc.close(theirs) }
        let before = DescriptorAudit.count
        do {
            _ = Connection(descriptor: OwnedFD(taking: mine), number: 7, slot: 0, token: 0, uid: 0, gids: [])
        }
        #expect(DescriptorAudit.count == before + 1)
        #expect(Self.peerClosed(theirs))
    }

    @Test func aConnectionClosedThroughItsPathIsNotCounted() throws {
        let (mine, theirs) = try Self.socketPair()
        defer { Glibc.close(theirs) }
        let before = DescriptorAudit.count
        do {
            let connection = Connection(descriptor: OwnedFD(taking: mine), number: 8, slot: 0, token: 0, uid: 0, gids: [])
            #expect(connection.fd == mine)
            connection.closeDescriptor()
            #expect(connection.fd == -1)
            connection.closeDescriptor()  // a second close does nothing
        }
        #expect(DescriptorAudit.count == before)
        #expect(Self.peerClosed(theirs))
    }

    /// The socket server, driven by the real loop: clients that hang up are closed through
    /// `close`, and the ones still connected close with the server.
    @Test func theSocketServerClosesEveryConnectionItOwns() throws {
        let log = try TapOutputTests.temporaryLog()
        let socketPath = String(log.dropLast("events.jsonl".count)) + "socket"
        defer {
            try? Files.remove(socketPath)
            TapOutputTests.remove(log)
        }
        let before = DescriptorAudit.count
        var clients: [CInt] = []
        do {
            let harness = try TapOutputTests.Harness(eventLogPath: log)
            let server = try SocketServer(
                loop: harness.loop, listener: UnixSocket.listen(path: socketPath), socketPath: socketPath,
                admission: SocketServer.Admission(harness.config), lineHandler: RequestEndpoint(router: harness.router),
                log: LogSink(verbose: false, journal: false, priorityPrefixes: false))
            harness.loop.onWakeupEnd { [unowned server] in server.sendReplies() }
            for _ in 0..<3 {
                let client = try UnixClient(path: socketPath, timeoutSeconds: 5)
                try client.send(Array(#"{"op": "layouts"}"#.utf8) + [0x0A])
                clients.append(client.fd.rawValue == -1 ? -1 : dup(client.fd.rawValue))
            }
            // The three `UnixClient`s are gone; each `dup` keeps its connection open.
            try harness.loop.run { server.count == 3 }
            Glibc.close(clients.removeFirst())
            let deadline = Clock.monotonicNanos() + 5_000_000_000
            let tick = harness.loop.makeTimer(every: 20_000_000) {}
            harness.loop.schedule(tick, after: 20_000_000)
            try harness.loop.run { server.count == 2 || Clock.monotonicNanos() > deadline }
            harness.loop.removeTimer(tick)
            #expect(server.count == 2)
            #expect(DescriptorAudit.count == before)
        }
        // The server and its loop are gone: the two clients still connected see the end.
        for fd in clients {
            var byte: UInt8 = 0
            var replies = 0
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&pfd, 1, 2000) == 1, Glibc.read(fd, &byte, 1) == 1 { if byte == 0x0A { replies += 1 } }
            #expect(replies == 1, "the layouts reply, then end of file")
            #expect(Self.peerClosed(fd))
            Glibc.close(fd)
        }
        #expect(DescriptorAudit.count == before)
    }

    /// Children's pidfds and pipes close as each child is reaped, and with the supervisor for
    /// one still running (it is killed).
    @Test func childDescriptorsCloseThroughTheSupervisor() throws {
        let before = DescriptorAudit.count
        do {
            let h = try ChildHarness()
            #expect(h.supervisor.submit(request(shellHandler(), .string("echo done"), seq: 1)) == .dispatched)
            #expect(h.supervisor.submit(request(shellHandler(), .string("sleep 30"), seq: 2)) == .dispatched)
            try h.runUntilExits(1)
            #expect(h.lines(of: 1) == ["stdout: done"])
            #expect(DescriptorAudit.count == before)
        }
        #expect(DescriptorAudit.count == before)
    }

    @Test func anEventLogClosedAtShutdownIsNotCountedOneDroppedOpenIs() throws {
        let path = try TapOutputTests.temporaryLog()
        defer { TapOutputTests.remove(path) }
        let before = DescriptorAudit.count
        do {
            let log = EventLog(runID: "t", log: LogSink(verbose: false, journal: false, priorityPrefixes: false))
            log.configure(path: path)
            log.close()
        }
        #expect(DescriptorAudit.count == before)
        do {
            let log = EventLog(runID: "t", log: LogSink(verbose: false, journal: false, priorityPrefixes: false))
            log.configure(path: path)
        }
        #expect(DescriptorAudit.count == before + 1)
    }
}
