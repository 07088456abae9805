import Testing

@testable import TapgridDaemon

/// The lifecycle's transitions and the actions they return, without I/O.
@Suite struct LifecycleTests {
    let s: UInt64 = 1_000_000_000

    @Test func startsThenReloadsOneAtATime() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.handle(.started, now: 0) == [.notifyReady])
        #expect(lifecycle.phase == .running)
        #expect(lifecycle.handle(.reloadRequested, now: 1_000_000) == [.notifyReloading(monotonicMicroseconds: 1000), .startLoad])
        // Asked again while loading: one more load after this one, not two.
        #expect(lifecycle.handle(.reloadRequested, now: 2) == [])
        #expect(lifecycle.handle(.reloadRequested, now: 3) == [])
        #expect(lifecycle.handle(.reloadFinished(failure: nil), now: 4) == [.startLoad])
        #expect(lifecycle.loading)
        // READY=1 once the last load is done, whether it was taken or refused.
        #expect(lifecycle.handle(.reloadFinished(failure: "bad"), now: 5) == [.notifyReady])
        #expect(!lifecycle.loading && lifecycle.reloadFailure == "bad")
        #expect(lifecycle.handle(.reloadFinished(failure: nil), now: 6) == [])  // none running: ignored
        #expect(lifecycle.reloadFailure == "bad")
        _ = lifecycle.handle(.reloadRequested, now: 7)
        #expect(lifecycle.handle(.reloadFinished(failure: nil), now: 8) == [.notifyReady])
        #expect(lifecycle.reloadFailure == nil)
    }

    @Test func gracefulStopDrainsThenStopsChildren() {
        var lifecycle = Lifecycle()
        _ = lifecycle.handle(.started, now: 0)
        #expect(lifecycle.handle(.stopRequested(signal: "SIGTERM"), now: 10) == [
            .notifyStopping, .log(.info, "SIGTERM: shutting down"), .stopAccepting, .stopChildren(graceNanos: Lifecycle.childGraceNanos), .drainClients,
        ])
        #expect(lifecycle.phase == .draining(deadline: 10 + Lifecycle.drainNanos))
        #expect(lifecycle.nextCheck(now: 10) == 10 + Lifecycle.pollNanos)
        #expect(lifecycle.handle(.progress(clientsBusy: true, childrenIdle: true), now: 20) == [])
        // Clients done, a child still running: connections close, children get their time.
        #expect(lifecycle.handle(.progress(clientsBusy: false, childrenIdle: false), now: 30) == [.closeClients])
        #expect(lifecycle.phase == .stopping(deadline: 30 + Lifecycle.childWaitNanos))
        #expect(lifecycle.handle(.progress(clientsBusy: false, childrenIdle: true), now: 40) == [.stopAccepting, .finish])
        #expect(lifecycle.phase == .stopped && lifecycle.nextCheck(now: 40) == nil)
    }

    @Test func deadlinesCutTheWaitingShort() {
        var lifecycle = Lifecycle()
        _ = lifecycle.handle(.started, now: 0)
        _ = lifecycle.handle(.stopRequested(signal: "SIGINT"), now: 0)
        #expect(lifecycle.handle(.progress(clientsBusy: true, childrenIdle: false), now: 2 * s) == [
            .log(.warning, "shutdown: clients did not take their replies in time; closing them"), .closeClients,
        ])
        #expect(lifecycle.handle(.progress(clientsBusy: false, childrenIdle: false), now: 7 * s) == [
            .log(.warning, "shutdown: children still running after the grace period"), .stopAccepting, .finish,
        ])
    }

    @Test func aSecondStopDoesNotWait() {
        var lifecycle = Lifecycle()
        _ = lifecycle.handle(.started, now: 0)
        _ = lifecycle.handle(.stopRequested(signal: "SIGTERM"), now: 0)
        #expect(lifecycle.handle(.stopRequested(signal: "SIGTERM"), now: 1) == [
            .log(.warning, "SIGTERM again: exiting without waiting"), .closeClients, .stopAccepting, .finish,
        ])
        #expect(lifecycle.phase == .stopped)
        #expect(lifecycle.handle(.stopRequested(signal: "SIGTERM"), now: 2) == [])
        #expect(lifecycle.handle(.reloadRequested, now: 3) == [])
    }

    @Test func aReloadReadBeforeTheStopIsStillLoaded() {
        var lifecycle = Lifecycle()
        _ = lifecycle.handle(.started, now: 0)
        _ = lifecycle.handle(.stopRequested(signal: "SIGTERM"), now: 0)
        #expect(lifecycle.handle(.reloadRequested, now: 1) == [.startLoad])
        #expect(lifecycle.handle(.reloadFinished(failure: nil), now: 2) == [])  // no READY=1 while stopping
    }
}
