import TapgridCore
import TapgridSystem

/// Runs the children of `url` and `script` handlers: validates each tap against the handler's
/// policy, starts children without a shell (own process group, clean signal state, no inherited
/// descriptors, stdin `/dev/null`, an allow-listed environment), reads their output line by line,
/// enforces timeouts, limits concurrency per handler, and reaps every child.
///
/// **Loop-owned.** Create, call and drop it on the daemon's single event-loop thread only; it is
/// deliberately not `Sendable`. It never blocks: children are watched through pidfds and
/// non-blocking pipes registered in the loop's epoll, reaped with `waitpid(WNOHANG)` only once
/// their pidfd is readable, and deadlines are handled in `handleTimers`.
///
/// It registers its pidfds and pipes through the `EventLoop` and keeps its one
/// loop timer at the next timeout; it never reaps children it did not start
/// (the daemon must not `waitpid(-1)` on SIGCHLD, which would steal exit statuses).
///
/// Callbacks are made from inside `submit`, `handle`, `handleTimers` and `beginShutdown`, at the
/// end of the call, once the supervisor's state is consistent; they may call back into the
/// supervisor (e.g. `submit` from `onExit`). Per child, output lines come in order and the
/// lines read up to its exit come before its `ChildExit`.
///
/// Choices:
/// - **Exactly one `ChildExit` per `.dispatched` submit.** A queued request that cannot be
///   spawned when its turn comes, or that `beginShutdown` drops, gets a `ChildExit` with
///   `pid == 0` and `failure` set (no output line). `.denied`/`.failed`/`.busy` submits get none.
/// - **Pipes after exit.** When a child exits, its pipes are drained of what is already there,
///   then the exit is reported at once (never waiting for end of file: a background grandchild
///   may hold the pipes open). Pipes still open stay registered for `outputLingerNanos`
///   (default 2 s) to catch trailing output, then are closed; a grandchild writing to them
///   afterwards gets `EPIPE`/`SIGPIPE` (detach with `>/dev/null 2>&1`). During shutdown they are
///   closed at once. No descriptor outlives that.
/// - **Timeouts.** `timeoutSeconds` after the spawn, SIGTERM goes to the child's whole process
///   group; `killGraceSeconds` later Signals.kill if the child has not exited. When a child that was
///   sent SIGTERM exits, Signals.kill goes to its group *before* it is reaped (the unreaped leader
///   keeps the group id from being reused), so grandchildren that ignore SIGTERM die with it.
///   A child that exits on its own is not chased: its background processes may live on.
///   Non-positive timeouts mean none.
/// - **Shutdown.** `beginShutdown` drops queued requests (reporting each as above), sends
///   SIGTERM to every running group and Signals.kill after the grace; later `submit`s fail.
final class ChildSupervisor: LoopHandler {
    /// How long a reaped child's pipes stay open for trailing output (default 2 s).
    var outputLingerNanos: UInt64 = 2_000_000_000

    unowned let loop: EventLoop
    private let inheritedEnvironment: [String]
    /// One call per dispatched request (see the type's documentation).
    var onExit: (ChildExit) -> Void = { _ in }
    /// One call per line of a child's stdout or stderr.
    var onOutput: (ChildOutputLine) -> Void = { _ in }

    var children: [UInt64: SupervisedChild] = [:]
    private var runningByHandler: [Int: Int] = [:]
    private var queues: [Int: [Queued]] = [:]
    private var running = 0
    var queued = 0
    private var nextID: UInt64 = 1
    private var shuttingDown = false
    /// Children killed after a failed epoll registration; polled with `WNOHANG` until reaped.
    private var unwatched: [Int32] = []
    var pending: [Pending] = []
    var delivering = false
    let readBuffer: UnsafeMutableRawBufferPointer

    private struct Queued {
        var request: ChildRequest
        var argv: [String]
    }

    enum Pending {
        case output(ChildOutputLine)
        case exit(ChildExit)
    }

    /// Reads per pipe event (each up to 16 KiB), so one chatty child cannot hog the loop; epoll
    /// is level-triggered and reports the rest on the next wait.
    private static let readsPerEvent = 4
    /// Reads per pipe when draining after the child exited.
    private static let readsAtExit = 16
    private static let unwatchedPollNanos: UInt64 = 50_000_000

    /// - Parameters:
    ///   - loop: the event loop whose `.children` events and deadline this takes over.
    ///   - environment: the daemon's own environment; only `PATH`, `HOME`, `LANG`, `TZ` reach children.
    init(loop: EventLoop, environment: [String: String]) {
        self.loop = loop
        self.inheritedEnvironment = ChildEnvironment.inheritedEntries(from: environment)
        self.readBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
    }

    /// Children's timeouts, kill graces and output lingers (made on first use: `init` cannot
    /// capture `self` before every property is set).
    lazy var timer: LoopTimer = loop.makeTimer { [unowned self] in handleTimers(nowNanos: Clock.monotonicNanos()) }

    /// Closes every descriptor still held and Signals.kills the groups of children not yet reaped
    /// (they stay zombies until the process exits: drop the supervisor only when `isIdle`).
    deinit {
        for child in children.values {
            if !child.reaped { try? Spawn.killGroup(child.pid, signal: Signals.kill) }
            child.closePidfd()
            child.closePipe(.stdout)
            child.closePipe(.stderr)
        }
        for pid in unwatched { _ = try? Spawn.reap(pid) }
        readBuffer.deallocate()
    }

    // MARK: - Public state

    /// Children started and not yet reaped.
    var runningCount: Int { running }
    /// Requests waiting for a free slot of their handler.
    var queuedCount: Int { queued }
    /// Nothing running, queued, or holding descriptors: the loop may exit after shutdown.
    var isIdle: Bool { children.isEmpty && unwatched.isEmpty && queued == 0 }

    /// The earliest `CLOCK_MONOTONIC` time at which `handleTimers` has work, or nil.
    var nextDeadlineNanos: UInt64? {
        var next: UInt64? = nil
        for child in children.values {
            if let d = child.nextDeadline, next == nil || d < next! { next = d }
        }
        if !unwatched.isEmpty {
            let poll = Clock.monotonicNanos() &+ Self.unwatchedPollNanos
            if next == nil || poll < next! { next = poll }
        }
        return next
    }

    // MARK: - Submitting

    /// Validates `request` against its handler, then starts its child now, queues it, or refuses.
    /// Never blocks (spawning is `posix_spawn`, which returns once the child has exec'd).
    /// - Returns: `.denied` for policy refusals, `.failed` when the child cannot be started now
    ///   (nothing is left behind), `.busy` when the handler's queue is full, else `.dispatched`.
    func submit(_ request: ChildRequest) -> SubmitOutcome {
        if shuttingDown { return .failed("the daemon is shutting down") }
        guard request.handler.spawnsChildren else {
            return .failed("handler \(request.handler.name) (\(request.handler.typeName)) does not start children")
        }
        let argv: [String]
        switch ChildCommand.decide(request) {
        case .denied(let reason): return .denied(reason)
        case .failed(let reason): return .failed(reason)
        case .run(let command): argv = command
        }
        let h = request.handlerIndex
        let outcome: SubmitOutcome
        let waiting = queues[h]?.count ?? 0
        if waiting == 0 && runningByHandler[h, default: 0] < max(1, request.handler.maxConcurrent) {
            if let failure = start(request, argv: argv) { return .failed(failure) }
            outcome = .dispatched
        } else if waiting < request.handler.queue {
            // Behind earlier requests even if a slot is free (a reload may have raised the limit).
            queues[h, default: []].append(Queued(request: request, argv: argv))
            queued += 1
            startQueued(h)
            outcome = .dispatched
        } else {
            outcome = .busy
        }
        deliver()
        return outcome
    }

    // MARK: - Events

    /// Handles one epoll event registered by the supervisor (others are ignored): a pidfd
    /// became readable (the child exited: it is reaped and reported), or a pipe has data or
    /// was hung up (lines are delivered; at end of file the pipe is closed).
    func handle(token: UInt64, events: EpollEvents) {
        guard let (kind, id) = ChildEpollData.decode(token), let child = children[id] else { return }
        switch kind {
        case .pidfd:
            if child.pidfd >= 0 { childExited(child) }
        case .stdout:
            read(child, .stdout, maxReads: Self.readsPerEvent)
        case .stderr:
            read(child, .stderr, maxReads: Self.readsPerEvent)
        }
        deliver()
    }

    /// Sends due SIGTERMs (timeouts) and Signals.kills (grace over), closes pipes whose linger is
    /// over, and polls children that could not be watched.
    func handleTimers(nowNanos now: UInt64) {
        var finished: [UInt64] = []
        for child in children.values {
            guard let due = child.nextDeadline, due <= now else { continue }
            if child.reaped {
                closePipes(child)
                finished.append(child.id)
            } else if !child.sentTerm {
                child.timedOut = true
                terminate(child, now: now, graceNanos: child.killGraceNanos)
            } else if !child.sentKill {
                kill(child)
            }
        }
        for id in finished { children[id] = nil }
        pollUnwatched()
        deliver()
    }

    // MARK: - Shutdown

    /// Drops every queued request (each reported by `onExit` with `failure` set), sends SIGTERM
    /// to every running child's group and Signals.kill `graceNanos` later (at once when 0); closes
    /// lingering pipes. Later `submit`s return `.failed`. Calling it again can only shorten the
    /// grace. Keep running the loop until `isIdle`.
    func beginShutdown(graceNanos: UInt64) {
        shuttingDown = true
        var dropped: [Queued] = []
        for (_, waiting) in queues { dropped += waiting }
        queues.removeAll()
        queued = 0
        dropped.sort { $0.request.seq < $1.request.seq }
        for q in dropped {
            pending.append(.exit(ChildExit(
                seq: q.request.seq, pid: 0, handler: q.request.handler.name, status: nil, signal: nil,
                timedOut: false, durationMs: 0, failure: "dropped: the daemon is shutting down")))
        }
        let now = Clock.monotonicNanos()
        var finished: [UInt64] = []
        for child in children.values {
            if child.reaped {
                closePipes(child)
                finished.append(child.id)
            } else if !child.sentTerm {
                terminate(child, now: now, graceNanos: graceNanos)
            } else if !child.sentKill {
                let deadline = now &+ graceNanos
                if graceNanos == 0 { kill(child) } else if deadline < (child.killDeadline ?? .max) { child.killDeadline = deadline }
            }
        }
        for id in finished { children[id] = nil }
        deliver()
    }

    // MARK: - Starting

    /// Spawns and registers a child. - Returns: nil, or why it could not be started.
    private func start(_ request: ChildRequest, argv: [String]) -> String? {
        let environment = ChildEnvironment.entries(inherited: inheritedEnvironment, for: request)
        // Before the spawn: the child runs from inside it, so a clock read after it (the loop
        // thread may be preempted in between) would make the child's duration too short.
        let startNanos = Clock.monotonicNanos()
        let spawned: SpawnedChild
        do throws(SystemError) {
            spawned = try Spawn.run(argv, environment: environment)
        } catch {
            return error.description
        }
        let id = nextID
        nextID += 1
        let pid = spawned.pid
        let child = SupervisedChild(
            id: id, request: request, pid: pid, pidfd: spawned.pidfd, stdout: spawned.stdout, stderr: spawned.stderr,
            startNanos: startNanos)
        do throws(Errno) {
            for (fd, kind) in [(child.pidfd, ChildEpollData.Kind.pidfd), (child.pipe(.stdout), .stdout), (child.pipe(.stderr), .stderr)] {
                child.registrations[Int(kind.rawValue)] = try loop.register(
                    fd, events: .readable, handler: self, token: ChildEpollData.make(kind, id: id))
            }
        } catch {
            for kind in [ChildEpollData.Kind.pidfd, .stdout, .stderr] { unregister(child, kind) }
            child.closePidfd()
            child.closePipe(.stdout)
            child.closePipe(.stderr)
            try? Spawn.killGroup(pid, signal: Signals.kill)
            unwatched.append(pid)
            return "cannot watch child \(pid) of \(argv[0]): \(error)"
        }
        children[id] = child
        running += 1
        runningByHandler[request.handlerIndex, default: 0] += 1
        return nil
    }

    /// Starts queued requests of handler `h` while it has free slots.
    private func startQueued(_ h: Int) {
        guard var waiting = queues.removeValue(forKey: h) else { return }
        defer { if !waiting.isEmpty { queues[h] = waiting } }
        while let next = waiting.first {
            guard runningByHandler[h, default: 0] < max(1, next.request.handler.maxConcurrent) else { return }
            waiting.removeFirst()
            queued -= 1
            if let failure = start(next.request, argv: next.argv) {
                pending.append(.exit(ChildExit(
                    seq: next.request.seq, pid: 0, handler: next.request.handler.name, status: nil, signal: nil,
                    timedOut: false, durationMs: 0, failure: failure)))
            }
        }
    }

    // MARK: - Exit

    private func childExited(_ child: SupervisedChild) {
        if child.sentTerm && !child.sentKill {
            // The leader is still unreaped, so its group id cannot have been reused: finish off
            // anything in the group that survived the SIGTERM.
            try? Spawn.killGroup(child.pid, signal: Signals.kill)
            child.sentKill = true
        }
        var status: ChildExitStatus? = nil
        do throws(Errno) {
            guard let s = try Spawn.reap(child.pid) else { return }  // not exited after all: wait for the next event
            status = s
        } catch {
            // ECHILD: someone else reaped it; the status is lost.
        }
        let now = Clock.monotonicNanos()
        unregister(child, .pidfd)
        child.closePidfd()
        child.reaped = true
        running -= 1
        runningByHandler[child.handlerIndex, default: 1] -= 1
        if runningByHandler[child.handlerIndex] == 0 { runningByHandler[child.handlerIndex] = nil }

        read(child, .stdout, maxReads: Self.readsAtExit)
        read(child, .stderr, maxReads: Self.readsAtExit)
        if child.hasOpenPipes {
            if shuttingDown || outputLingerNanos == 0 {
                closePipes(child)
            } else {
                child.lingerDeadline = now &+ outputLingerNanos
            }
        }
        if !child.hasOpenPipes { children[child.id] = nil }

        var code: Int32? = nil
        var signal: String? = nil
        switch status {
        case .exited(let c)?: code = c
        case .signaled(let s)?: signal = Signals.name(s)
        case nil: break
        }
        let elapsed = now >= child.startNanos ? now - child.startNanos : 0
        pending.append(.exit(ChildExit(
            seq: child.seq, pid: child.pid, handler: child.handlerName, status: code, signal: signal,
            timedOut: child.timedOut, durationMs: Int64(elapsed / 1_000_000))))
        startQueued(child.handlerIndex)
    }

    private func pollUnwatched() {
        unwatched.removeAll { pid in
            do throws(Errno) { return try Spawn.reap(pid) != nil } catch { return true }
        }
    }

    // MARK: - Signals

    private func terminate(_ child: SupervisedChild, now: UInt64, graceNanos: UInt64) {
        try? Spawn.killGroup(child.pid, signal: Signals.terminate)
        child.sentTerm = true
        child.killDeadline = now &+ graceNanos
        if graceNanos == 0 { kill(child) }
    }

    private func kill(_ child: SupervisedChild) {
        try? Spawn.killGroup(child.pid, signal: Signals.kill)
        child.sentKill = true
    }
}
