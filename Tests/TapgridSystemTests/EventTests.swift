import CShims
@preconcurrency import Glibc
import Testing

@testable import TapgridSystem
import TapgridTestSupport

extension SystemTests {
    @Suite struct EventTests {
        @Test func epollWakesOnEventFD() throws {
            let epoll = try Epoll(maxEvents: 8)
            let wake = try EventFD()
            try epoll.add(wake.fd.rawValue, events: .readable, data: 0xABCD_0000_0000_0007)
            #expect(try epoll.wait(timeoutMilliseconds: 0).isEmpty)

            let notifier = wake.notifier
            let thread = Thread { notifier.signal(); notifier.signal() }
            thread.join()
            let ready = Array(try epoll.wait(timeoutMilliseconds: 5000))
            #expect(ready == [EpollEvent(data: 0xABCD_0000_0000_0007, events: .readable)])
            #expect(wake.drain() == 2)
            #expect(wake.drain() == 0)
            #expect(try epoll.wait(timeoutMilliseconds: 0).isEmpty)

            try epoll.modify(wake.fd.rawValue, events: [.readable, .writable], data: 9)
            let writable = Array(try epoll.wait(timeoutMilliseconds: 0))
            #expect(writable == [EpollEvent(data: 9, events: .writable)])
            try epoll.remove(wake.fd.rawValue)
            #expect(throws: Errno(ENOENT)) { try epoll.remove(wake.fd.rawValue) }
            #expect(fcntl(epoll.fd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        }

        @Test func epollReportsHangupOfPipe() throws {
            let epoll = try Epoll()
            let child = try Spawn.run(["true"], environment: testEnvironment)
            try epoll.add(child.stdout.rawValue, events: .readable, data: 1)
            try epoll.add(child.pidfd.rawValue, events: .readable, data: 2)
            var seen: Set<UInt64> = []
            let deadline = Clock.monotonicNanos() + 5_000_000_000
            while seen.count < 2 && Clock.monotonicNanos() < deadline {
                for event in try epoll.wait(timeoutMilliseconds: 100) {
                    seen.insert(event.data)
                    if event.data == 1 { #expect(event.events.contains(.hangup)) }
                    try epoll.remove(event.data == 1 ? child.stdout.rawValue : child.pidfd.rawValue)
                }
            }
            #expect(seen == [1, 2])
            #expect(try Spawn.reap(child.pid) == .exited(0))
        }

        /// SIGUSR2 is used by no other test. It is raised at this thread only (tgkill): a
        /// process-wide `kill(getpid(), SIGUSR2)` could be delivered to any other thread of the
        /// test process, where it is not blocked, and terminate it. The daemon blocks its signals
        /// in `main` before threads exist, so there `kill` is fine.
        @Test func signalFDReadsBlockedSignal() throws {
            let wasBlocked = Signals.isBlocked(SIGUSR2)
            try Signals.block([SIGUSR2])
            defer { if !wasBlocked { try? Signals.unblock([SIGUSR2]) } }
            let signals = try SignalFD(signals: [SIGUSR2])
            #expect(try signals.readPending() == [])
            #expect(cshims_signal_this_thread(SIGUSR2) == 0)
            #expect(waitReadable(signals.fd.rawValue))
            #expect(try signals.readPending() == [SIGUSR2])
            #expect(try signals.readPending() == [])
        }

        @Test func timerFDFiresPeriodically() throws {
            let timer = try TimerFD()
            #expect(timer.readExpirations() == 0)
            let start = Clock.monotonicNanos()
            try timer.set(afterNanoseconds: 20_000_000, intervalNanoseconds: 10_000_000)
            #expect(waitReadable(timer.fd.rawValue))
            #expect(Clock.monotonicNanos() - start >= 19_000_000)
            usleep(30_000)
            #expect(timer.readExpirations() >= 2)
            try timer.disarm()
            _ = timer.readExpirations()
            #expect(!waitReadable(timer.fd.rawValue, timeoutMs: 40))
        }
    }
}

/// A minimal pthread wrapper for waking the loop from another thread.
final class Thread: @unchecked Sendable {  // `handle` is written once in init and read in join
    private var handle = pthread_t()
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        let unmanaged = Unmanaged.passRetained(self)
        let rc = pthread_create(&handle, nil, { arg in
            let thread = Unmanaged<Thread>.fromOpaque(arg!).takeRetainedValue()
            thread.body()
            return nil
        }, unmanaged.toOpaque())
        precondition(rc == 0, "pthread_create: \(Errno(rc))")
    }

    func join() { pthread_join(handle, nil) }
}
