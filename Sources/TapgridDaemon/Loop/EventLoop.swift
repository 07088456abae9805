import TapgridSystem

/// Who an epoll registration belongs to: the top byte of its 64-bit token. The low 56 bits are
/// the owner's own (a client slot and generation, a child id and stream).
enum LoopOwner: UInt8, CaseIterable {
    /// The loop's own timerfd.
    case timer = 0
    case server
    /// The daemon itself: its signalfd (token 0) and the reload eventfd (token 1).
    case control
    case children
    /// `TouchscreenInput`: libinput's descriptor (token 0) and its retry timer (token 1).
    case touchscreens
}

/// Named deadlines, each owned by one part of the daemon.
enum Deadline: Int, CaseIterable {
    /// Accepting resumes after `EMFILE`.
    case acceptBackoff
    /// Clients that took none of their waiting replies for 30 s are closed (`SocketServer`).
    case clientStall
    /// Free heap pages go back to the kernel after a burst of replies (`SocketServer`).
    case memoryTrim
    /// Children's timeouts, kill graces and output lingers.
    case children
    /// The shutdown phase's next check.
    case shutdown
    /// The next `WATCHDOG=1` to systemd.
    case watchdog
    /// The next look at whether systemd's `STATUS=` is out of date.
    case status
    /// The tap-class recognizer's next timer (long press, hold repeat, double-tap window).
    case touch
    /// The next look at whether the event log's path still names the open file (rotation
    /// without SIGUSR1).
    case eventLogCheck
}

/// Receives the events of the descriptors it registered.
protocol LoopHandler: AnyObject {
    /// - Parameters:
    ///   - token: the low 56 bits given at registration.
    ///   - events: what epoll reported.
    func handle(token: UInt64, events: EpollEvents)
}

/// The daemon's one event loop: epoll over every owner's descriptors, and named deadlines on one
/// timerfd. Owners register through it (never through a raw epoll fd); each event goes to the
/// owner named in its token's top byte. Runs on the main thread; everything it calls is
/// loop-owned.
final class EventLoop {
    private let epoll: Epoll
    private let timer: TimerFD
    private var handlers: [LoopHandler?] = Array(repeating: nil, count: LoopOwner.allCases.count)
    /// Per `Deadline`: when it is due (`.max`: not set), and who is told.
    private var due = [UInt64](repeating: .max, count: Deadline.allCases.count)
    private var deadlineActions: [(() -> Void)?] = Array(repeating: nil, count: Deadline.allCases.count)
    /// What the timerfd is armed for.
    private var armed: UInt64 = .max
    /// Called after every batch of events and deadlines (while shutting down: progress checks).
    var afterBatch: (() -> Void)?
    /// Called after every batch of events and deadlines, before `afterBatch`: work an owner
    /// gathers over one wakeup and does once (the socket server's replies of all its
    /// connections, after one event-log write).
    private var wakeupEnds: [() -> Void] = []

    init() throws(Errno) {
        epoll = try Epoll(maxEvents: 64)
        timer = try TimerFD()
        try epoll.add(timer.fd.rawValue, events: .readable, data: Self.token(.timer, 0))
    }

    @inline(__always)
    private static func token(_ owner: LoopOwner, _ low: UInt64) -> UInt64 {
        UInt64(owner.rawValue) << 56 | (low & 0x00FF_FFFF_FFFF_FFFF)
    }

    /// Sets who receives the events of `owner`'s descriptors.
    func setHandler(_ handler: LoopHandler, for owner: LoopOwner) { handlers[Int(owner.rawValue)] = handler }

    /// Adds what runs once at the end of each wakeup, after its events and deadlines.
    func onWakeupEnd(_ action: @escaping () -> Void) { wakeupEnds.append(action) }

    /// Sets what runs when `deadline` passes.
    func onDeadline(_ deadline: Deadline, _ action: @escaping () -> Void) { deadlineActions[deadline.rawValue] = action }

    /// Watches `fd` for `owner`. The corresponding C function is `epoll_ctl(EPOLL_CTL_ADD)`.
    func register(_ fd: CInt, for owner: LoopOwner, token: UInt64, events: EpollEvents) throws(Errno) {
        try epoll.add(fd, events: events, data: Self.token(owner, token))
    }

    /// Changes what `fd` is watched for. The corresponding C function is `epoll_ctl(EPOLL_CTL_MOD)`.
    func modify(_ fd: CInt, for owner: LoopOwner, token: UInt64, events: EpollEvents) throws(Errno) {
        try epoll.modify(fd, events: events, data: Self.token(owner, token))
    }

    /// Stops watching `fd` (before it is closed). The corresponding C function is
    /// `epoll_ctl(EPOLL_CTL_DEL)`. - Returns: false when it was not watched.
    @discardableResult
    func unregister(_ fd: CInt) -> Bool { (try? epoll.remove(fd)) != nil }

    /// Sets (or with nil clears) when `deadline` is due, in `Clock.monotonicNanos()` time.
    func schedule(_ deadline: Deadline, at time: UInt64?) { due[deadline.rawValue] = time ?? .max }

    /// When `deadline` is due, nil when not set.
    func dueTime(_ deadline: Deadline) -> UInt64? {
        let time = due[deadline.rawValue]
        return time == .max ? nil : time
    }

    /// Runs until `finished()` is true after a batch.
    /// - Throws: `Errno` when `epoll_wait` itself fails.
    func run(until finished: () -> Bool) throws(Errno) {
        while !finished() {
            arm()
            let ready = try epoll.wait(timeoutMilliseconds: -1)
            for event in ready {
                let owner = Int(event.data >> 56)
                if owner == 0 {
                    _ = timer.readExpirations()
                } else if owner < handlers.count, let handler = handlers[owner] {
                    handler.handle(token: event.data & 0x00FF_FFFF_FFFF_FFFF, events: event.events)
                }
            }
            fireDue()
            for action in wakeupEnds { action() }
            afterBatch?()
        }
    }

    /// Runs the actions of the deadlines that passed (each is cleared first; it may set itself again).
    private func fireDue() {
        let now = Clock.monotonicNanos()
        for deadline in Deadline.allCases where due[deadline.rawValue] <= now {
            due[deadline.rawValue] = .max
            deadlineActions[deadline.rawValue]?()
        }
    }

    /// Arms the timerfd for the earliest deadline, when that changed.
    private func arm() {
        var next = UInt64.max
        for time in due where time < next { next = time }
        guard next != armed else { return }
        armed = next
        if next == .max {
            try? timer.disarm()
        } else {
            let now = Clock.monotonicNanos()
            try? timer.set(afterNanoseconds: next > now ? next - now : 1)
        }
    }
}
