import Testing

@testable import TapgridDaemon
@testable import TapgridSystem

/// The event loop's contract with its owners, on real eventfds: events reach the registration's
/// handler with its token, an unregistered or re-registered descriptor's old events do not, and
/// timers fire once, repeatedly or not at all as scheduled.
@Suite(.serialized) struct EventLoopTests {
    /// Records the tokens it was handed and drains the eventfds they name.
    final class Recorder: LoopHandler {
        var tokens: [UInt64] = []
        var fds: [UInt64: CInt] = [:]

        func handle(token: UInt64, events: EpollEvents) {
            tokens.append(token)
            if let fd = fds[token] {
                var value: UInt64 = 0
                _ = withUnsafeMutableBytes(of: &value) { try? FD.read(fd, into: $0) }
            }
        }
    }

    /// Runs `loop` for about `milliseconds` (a timer ends it).
    static func run(_ loop: EventLoop, milliseconds: UInt64) throws {
        var done = false
        let stop = loop.makeTimer { done = true }
        loop.schedule(stop, after: milliseconds * 1_000_000)
        try loop.run { done }
        loop.removeTimer(stop)
    }

    @Test func eventsReachTheirHandlerWithItsTokenUntilUnregistered() throws {
        let loop = try EventLoop()
        let a = try EventFD(), b = try EventFD()
        let recorder = Recorder()
        recorder.fds = [1: a.fd.rawValue, 2: b.fd.rawValue]
        let first = try loop.register(a.fd.rawValue, events: .readable, handler: recorder, token: 1)
        _ = try loop.register(b.fd.rawValue, events: .readable, handler: recorder, token: 2)
        #expect(loop.registrationCount == 2)
        a.signal()
        b.signal()
        try Self.run(loop, milliseconds: 20)
        #expect(recorder.tokens.sorted() == [1, 2])
        loop.unregister(first)
        loop.unregister(first)  // twice is harmless
        #expect(loop.registrationCount == 1)
        recorder.tokens = []
        a.signal()
        b.signal()
        try Self.run(loop, milliseconds: 20)
        #expect(recorder.tokens == [2])
    }

    @Test func aReregisteredRegistrationWatchesOnlyTheNewDescriptor() throws {
        let loop = try EventLoop()
        let old = try EventFD(), new = try EventFD()
        let recorder = Recorder()
        recorder.fds = [5: new.fd.rawValue]
        var registration = try loop.register(old.fd.rawValue, events: .readable, handler: recorder, token: 5)
        try loop.reregister(&registration, fd: new.fd.rawValue, events: .readable)
        old.signal()
        try Self.run(loop, milliseconds: 20)
        #expect(recorder.tokens.isEmpty, "the old descriptor is no longer watched")
        new.signal()
        try Self.run(loop, milliseconds: 20)
        #expect(recorder.tokens == [5])
        #expect(loop.registrationCount == 1)
        // Watched for writable instead (an eventfd always is): reported with the same token.
        try loop.modify(&registration, events: .writable)
        recorder.tokens = []
        try Self.run(loop, milliseconds: 5)
        #expect(!recorder.tokens.isEmpty && recorder.tokens.allSatisfy { $0 == 5 })
        loop.unregister(registration)
        #expect(loop.registrationCount == 0)
    }

    @Test func timersFireOnceRepeatedlyOrNotAtAll() throws {
        let loop = try EventLoop()
        var once = 0, repeating = 0, cancelled = 0
        let oneShot = loop.makeTimer { once += 1 }
        let every = loop.makeTimer(every: 5_000_000) { repeating += 1 }
        let never = loop.makeTimer { cancelled += 1 }
        loop.schedule(oneShot, after: 1_000_000)
        loop.schedule(every, after: 1_000_000)
        loop.schedule(never, after: 1_000_000)
        loop.schedule(never, at: nil)
        #expect(loop.dueTime(never) == nil && loop.dueTime(oneShot) != nil)
        // At least 60 ms, and on until the repeating timer fired 5 times (a loaded machine, or a
        // sanitizer, may run the loop late).
        let start = Clock.monotonicNanos()
        try Self.run(loop, milliseconds: 60)
        while repeating < 5 && Clock.monotonicNanos() - start < 5_000_000_000 { try Self.run(loop, milliseconds: 10) }
        #expect(once == 1 && cancelled == 0)
        #expect(repeating >= 5, "every 5 ms: \(repeating) in \((Clock.monotonicNanos() - start) / 1_000_000) ms")
        #expect(Double(Clock.monotonicNanos() - start) >= Double(repeating - 1) * 5e6, "no faster than every 5 ms")
        #expect(loop.dueTime(oneShot) == nil && loop.dueTime(every) != nil)
        let count = loop.timerCount
        loop.removeTimer(every)
        #expect(loop.timerCount == count - 1)
        let reused = loop.makeTimer {}
        #expect(loop.timerCount == count && loop.dueTime(reused) == nil)
    }
}
