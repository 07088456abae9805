/// The daemon's lifecycle as a state machine: each event returns the actions the daemon then
/// carries out, so every transition is tested in-process without I/O (`LifecycleTests`).
///
/// ```
/// starting --started--> running --stop--> draining --clients done--> stopping --children done--> stopped
///                        |    ^                   (a second stop: stopped at once)
///                   reload|    |reload finished
///                        v    |
///                       reloading (a reload asked for meanwhile runs again after this one)
/// ```
/// Reloads are also taken while draining (a `reload` line read before the stop still gets its
/// answer); they are not started once stopped.
struct Lifecycle: Equatable {
    enum Phase: Equatable {
        case starting
        case running
        /// Answering what was received and flushing replies, until the deadline.
        case draining(deadline: UInt64)
        /// Clients gone; children stopping, until the deadline.
        case stopping(deadline: UInt64)
        case stopped
    }

    /// What happened.
    enum Event: Equatable {
        /// The config is loaded and the socket listens.
        case started
        /// SIGHUP or a `reload` request.
        case reloadRequested
        /// A load finished; `failure` is its error text when it was refused.
        case reloadFinished(failure: String?)
        /// SIGTERM or SIGINT (`signal` is its name, for the log).
        case stopRequested(signal: String)
        /// A periodic check while draining or stopping.
        case progress(clientsBusy: Bool, childrenIdle: Bool)
    }

    /// What the daemon must do, in order.
    enum Action: Equatable {
        case log(LogLevel, String)
        /// Tell the service manager the daemon serves (`READY=1` with the current `STATUS=`).
        case notifyReady
        /// Tell the service manager a reload started (`RELOADING=1`, `MONOTONIC_USEC=`).
        case notifyReloading(monotonicMicroseconds: UInt64)
        /// Tell the service manager the daemon is stopping (`STOPPING=1`).
        case notifyStopping
        /// Load the config off the loop thread.
        case startLoad
        /// Stop accepting connections and close the listener.
        case stopAccepting
        /// Read what clients already sent, answer it, stop reading.
        case drainClients
        /// Close every connection (what was not taken in time is dropped).
        case closeClients
        /// Stop the children: SIGTERM now, SIGKILL after `graceNanos`.
        case stopChildren(graceNanos: UInt64)
        /// Sync and close the event log; the loop ends.
        case finish
    }

    enum LogLevel: Equatable { case info, warning }

    static let drainNanos: UInt64 = 2_000_000_000
    static let childGraceNanos: UInt64 = 2_000_000_000
    static let childWaitNanos: UInt64 = 5_000_000_000
    /// How often a stopping daemon looks again (clients and children finish on their own).
    static let pollNanos: UInt64 = 50_000_000

    private(set) var phase: Phase = .starting
    /// A load is running.
    private(set) var loading = false
    /// Another load must follow it (asked for while it ran: the file may have changed since).
    private(set) var loadAgain = false
    /// The last reload's errors when it was refused, until a load succeeds (`STATUS=` says so).
    private(set) var reloadFailure: String?

    var isStopping: Bool {
        switch phase {
        case .draining, .stopping, .stopped: return true
        case .starting, .running: return false
        }
    }

    /// When the daemon should next send `.progress` (nil while it runs normally).
    func nextCheck(now: UInt64) -> UInt64? {
        switch phase {
        case .draining(let deadline), .stopping(let deadline): return min(deadline, now + Self.pollNanos)
        case .starting, .running, .stopped: return nil
        }
    }

    mutating func handle(_ event: Event, now: UInt64) -> [Action] {
        switch event {
        case .started:
            guard phase == .starting else { return [] }
            phase = .running
            return [.notifyReady]
        case .reloadRequested:
            if phase == .stopped { return [] }
            if loading {
                loadAgain = true
                return []
            }
            loading = true
            // Not while stopping: systemd is told STOPPING, and a reload then is only answered.
            return isStopping ? [.startLoad] : [.notifyReloading(monotonicMicroseconds: now / 1000), .startLoad]
        case .reloadFinished(let failure):
            guard loading else { return [] }
            reloadFailure = failure
            if loadAgain && phase != .stopped {
                loadAgain = false
                return [.startLoad]
            }
            loading = false
            loadAgain = false
            return isStopping ? [] : [.notifyReady]
        case .stopRequested(let signal):
            switch phase {
            case .starting, .running:
                phase = .draining(deadline: now + Self.drainNanos)
                return [.notifyStopping, .log(.info, "\(signal): shutting down"), .stopAccepting,
                        .stopChildren(graceNanos: Self.childGraceNanos), .drainClients]
            case .draining, .stopping:
                phase = .stopped
                return [.log(.warning, "\(signal) again: exiting without waiting"), .closeClients, .stopAccepting, .finish]
            case .stopped:
                return []
            }
        case .progress(let clientsBusy, let childrenIdle):
            var actions: [Action] = []
            if case .draining(let deadline) = phase {
                if clientsBusy && now < deadline { return [] }
                if clientsBusy { actions.append(.log(.warning, "shutdown: clients did not take their replies in time; closing them")) }
                actions.append(.closeClients)
                phase = .stopping(deadline: now + Self.childWaitNanos)
            }
            if case .stopping(let deadline) = phase {
                if !childrenIdle && now < deadline { return actions }
                if !childrenIdle { actions.append(.log(.warning, "shutdown: children still running after the grace period")) }
                actions += [.stopAccepting, .finish]
                phase = .stopped
            }
            return actions
        }
    }
}
