@preconcurrency import Glibc
import TapgridCore
import TapgridSystem

/// The running daemon: all state, owned by the one event-loop thread (the main thread).
///
/// Nothing here is shared with other threads except through `Reloader`'s mutex-protected inbox,
/// so no other locking is needed. The loop never blocks: sockets are non-blocking, config loads
/// run on a worker thread, children are supervised through epoll.
final class Daemon {
    // MARK: Setup
    let configPath: String
    let socketPath: String
    let log: Log
    let environment: [String: String]
    let daemonUID: UInt32 = getuid()

    // MARK: Descriptors
    let epoll: Epoll
    let signals: SignalFD
    let wake: EventFD
    let timer: TimerFD
    /// The listening socket; -1 once closed at shutdown.
    var listenerFD: CInt
    /// The socket file's (device, inode) as we created it, so shutdown unlinks only our own file.
    var socketIdentity: (dev_t, ino_t)?
    /// Accepting is paused until this time after `EMFILE`/`ENFILE` (monotonic ns); 0 when not paused.
    var acceptPausedUntil: UInt64 = 0
    var armedDeadline: UInt64 = 0

    // MARK: Config
    /// The config in use and what the tap path derives from it (see `ActiveConfig`).
    var active: ActiveConfig
    /// The config in use (a copy: the tap path reads `active.config` in place instead).
    var config: Config { active.config }
    /// Successful config loads, 1 after the first.
    var generation: UInt64 = 1
    /// Index into `config.layouts` of the current layout.
    var currentLayout: Int

    // MARK: Clients
    var clients: [Client?] = []
    var slotGenerations: [UInt32] = []
    var freeSlots: [Int] = []
    var clientCount = 0

    // MARK: Taps
    let eventLog: EventLog
    var supervisor: ChildSupervisor! = nil
    let startNanos = Clock.monotonicNanos()
    var seq: UInt64 = 0
    var taps: UInt64 = 0
    let outcomeCounts = OutcomeCounts()
    /// Debounce: when each (layout << 32 | grid) last had a tap dispatched (monotonic ns).
    var lastDispatch: [UInt64: UInt64] = [:]
    /// Debounce: taps without an explicit layout are suppressed until this time after a switch.
    var switchQuietUntil: UInt64 = 0
    /// Reusable buffers of the hot path.
    /// Every client read lands here first (allocated once, never freed: the daemon's lifetime).
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Client.readChunk, alignment: 16)
    let lineScratch = ByteBuffer(capacity: 1024)

    // MARK: Reload
    let reloader: Reloader
    var reloadRunning = false
    /// Another load must follow the running one (a request arrived while it ran).
    var reloadQueued = false
    /// Clients (slot, generation) answered by the running load, and by the queued one.
    var reloadWaiters: [(Int, UInt32)] = []
    var nextReloadWaiters: [(Int, UInt32)] = []

    // MARK: Shutdown
    enum Phase: Equatable {
        case running
        /// Answering what was received and flushing replies, until the deadline.
        case draining(deadline: UInt64)
        /// Clients gone; waiting for children, until the deadline.
        case stoppingChildren(deadline: UInt64)
        case finished
    }
    var phase: Phase = .running
    static let drainNanos: UInt64 = 2_000_000_000
    static let childGraceNanos: UInt64 = 2_000_000_000
    static let childWaitNanos: UInt64 = 5_000_000_000

    init(
        config: Config, configPath: String, socketPath: String, listener: consuming OwnedFD,
        signals: consuming SignalFD, log: Log, environment: [String: String]
    ) throws(Errno) {
        self.active = ActiveConfig(config: config, generation: 1)
        self.configPath = configPath
        self.socketPath = socketPath
        self.log = log
        self.environment = environment
        self.currentLayout = config.layoutIndex(named: config.initialLayout) ?? 0
        self.epoll = try Epoll(maxEvents: 64)
        self.signals = signals
        self.wake = try EventFD()
        self.timer = try TimerFD()
        self.listenerFD = listener.release()
        self.reloader = Reloader(notifier: wake.notifier)
        self.eventLog = EventLog(runID: CurrentProcess.randomRunID(), log: log)
        var st = stat()
        if lstat(socketPath, &st) == 0 { socketIdentity = (st.st_dev, st.st_ino) }

        try epoll.add(listenerFD, events: .readable, data: EpollToken.make(kind: EpollToken.listener))
        try epoll.add(self.signals.fd.rawValue, events: .readable, data: EpollToken.make(kind: EpollToken.signals))
        try epoll.add(wake.fd.rawValue, events: .readable, data: EpollToken.make(kind: EpollToken.wakeup))
        try epoll.add(timer.fd.rawValue, events: .readable, data: EpollToken.make(kind: EpollToken.timer))

        eventLog.configure(path: EventLog.resolvePath(config.eventLog, environment: environment))
        supervisor = ChildSupervisor(
            epollFD: epoll.fd.rawValue, environment: environment,
            onExit: { [unowned self] exit in self.childExited(exit) },
            onOutput: { [unowned self] line in self.childOutput(line) })
    }

    /// Runs the loop until shutdown completes.
    /// - Returns: the exit code (0 after a graceful shutdown, 1 if epoll itself failed).
    func run() -> Int32 {
        while phase != .finished {
            do throws(Errno) {
                let ready = try epoll.wait(timeoutMilliseconds: -1)
                for event in ready { dispatch(event) }
            } catch {
                log.error("epoll_wait failed: \(error)")
                return 1
            }
            afterEvents()
        }
        return 0
    }

    /// Routes one epoll event by the kind in its token's top byte.
    private func dispatch(_ event: EpollEvent) {
        let kind = EpollToken.kind(event.data)
        switch kind {
        case EpollToken.client:
            let slot = EpollToken.slot(event.data)
            guard slot < clients.count, let client = clients[slot],
                slotGenerations[slot] == EpollToken.generation(event.data)
            else { return }  // stale: that client is gone and its slot may be reused
            clientEvent(client, event.events)
        case EpollToken.listener:
            acceptAll()
        case EpollToken.signals:
            handleSignals()
        case EpollToken.wakeup:
            _ = wake.drain()
            handleReloadResults()
        case EpollToken.timer:
            _ = timer.readExpirations()
        case EpollToken.supervisorKinds:
            supervisor.handle(data: event.data, events: event.events)
        default:
            log.warning("event with unknown token kind \(kind) ignored")
        }
    }

    /// Deadlines (children's timeouts, accept back-off, shutdown phases), then re-arms the timer.
    private func afterEvents() {
        let now = Clock.monotonicNanos()
        if let due = supervisor.nextDeadlineNanos, due <= now { supervisor.handleTimers(nowNanos: now) }
        if acceptPausedUntil != 0 && now >= acceptPausedUntil { resumeAccepting() }
        advanceShutdown(now: now)
        armTimer(now: now)
    }

    private func armTimer(now: UInt64) {
        var next = UInt64.max
        if let due = supervisor.nextDeadlineNanos { next = min(next, due) }
        if acceptPausedUntil != 0 { next = min(next, acceptPausedUntil) }
        switch phase {
        case .draining(let deadline), .stoppingChildren(let deadline): next = min(next, deadline)
        default: break
        }
        // While shutting down, look again every 50 ms (children and flushes finish on their own).
        if phase != .running { next = min(next, now + 50_000_000) }
        guard next != armedDeadline else { return }
        armedDeadline = next
        if next == UInt64.max {
            try? timer.disarm()
        } else {
            try? timer.set(afterNanoseconds: next > now ? next - now : 1)
        }
    }

    private func handleSignals() {
        let pending: [CInt]
        do throws(Errno) { pending = try signals.readPending() } catch {
            log.error("reading signals failed: \(error)")
            return
        }
        for signo in pending {
            switch signo {
            case SIGTERM, SIGINT: beginShutdown(signal: signo)
            case SIGHUP:
                if phase == .running {
                    log.info("SIGHUP: reloading \(configPath)")
                    requestReload(from: nil)
                }
            case SIGUSR1: eventLog.reopen()
            case SIGCHLD: break  // children are watched through their pidfds by the supervisor
            default: log.debug("signal \(Signals.name(signo)) ignored")
            }
        }
    }

    /// Whether `client` may use `reload` and `use` (`socket.allowControl`; absent: anyone).
    func mayControl(_ client: Client) -> Bool {
        guard let allow = config.socket.allowControl else { return true }
        return allow.allows(uid: client.uid, gids: client.gids, daemonUID: daemonUID)
    }
}
