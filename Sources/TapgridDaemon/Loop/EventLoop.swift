import TapgridSystem

/// Receives the events of the descriptors it registered.
protocol LoopHandler: AnyObject {
    /// - Parameters:
    ///   - token: what the handler gave at registration (its own name for the descriptor).
    ///   - events: what epoll reported.
    func handle(token: UInt64, events: EpollEvents)
}

/// One descriptor watched by the loop: handed out by `EventLoop.register`, given back to
/// `modify`, `reregister` and `unregister`. A value: an owner keeps it beside its descriptor.
struct LoopRegistration: Equatable {
    /// The loop's slot and that slot's generation (an event for a slot reused since is stale).
    fileprivate let slot: UInt32
    fileprivate let generation: UInt32
    /// The descriptor watched now.
    fileprivate(set) var fd: CInt
    /// What it is watched for now.
    fileprivate(set) var events: EpollEvents
}

/// A timer of the loop: made once by an owner (`EventLoop.makeTimer`), scheduled and cancelled
/// as often as it likes.
struct LoopTimer: Equatable {
    /// Its place in the loop's tables (a test's loop numbers its own).
    let index: Int
}

/// The daemon's one event loop: epoll over the descriptors its owners register, timers on one
/// timerfd, and hooks that run at the end of every wakeup. It knows no owner by name: each
/// registration carries its handler and the handler's token, each timer its action, so a new
/// owner (one whose descriptor is replaced after every reconnect, or whose C library hands out a
/// new timeout after every run) registers and re-registers without an edit here. Runs on the
/// main thread; everything it calls is loop-owned.
final class EventLoop {
    private let epoll: Epoll
    private let clock: TimerFD

    private struct Entry {
        var handler: LoopHandler?
        var token: UInt64
        var generation: UInt32
    }

    /// Registrations by slot; a free slot has no handler. (The properties every wakeup touches
    /// are `@exclusivity(unchecked)`: only the loop's thread uses them, never re-entrantly, and
    /// a checked access is a runtime call: 16 of them cost a lockstep tap 1,100 instructions.)
    @exclusivity(unchecked) private var entries: [Entry] = []
    private var freeSlots: [UInt32] = []

    /// Per timer: when it is due (`.max`: not scheduled), and what it runs (nil: a free slot).
    /// Apart, so the scan of every wakeup reads integers and retains no closure.
    @exclusivity(unchecked) private var due: [UInt64] = []
    @exclusivity(unchecked) private var actions: [(() -> Void)?] = []
    /// Per timer: how long after it fires it is due again (0: once).
    @exclusivity(unchecked) private var intervals: [UInt64] = []
    private var freeTimers: [Int] = []
    /// What the timerfd is armed for.
    @exclusivity(unchecked) private var armed: UInt64 = .max

    /// What runs once at the end of each wakeup, after its events and timers (`Daemon.endWakeup`).
    @exclusivity(unchecked) private var wakeupEnd: (() -> Void)?

    /// The epoll data of the loop's own timerfd.
    private static let clockData = UInt64.max

    init() throws(Errno) {
        epoll = try Epoll(maxEvents: 64)
        clock = try TimerFD()
        try epoll.add(clock.fd.rawValue, events: .readable, data: Self.clockData)
    }

    // MARK: - Registrations

    /// Watches `fd` for `events`; its events go to `handler` with `token`. The corresponding C
    /// function is `epoll_ctl(EPOLL_CTL_ADD)`.
    /// - Returns: the registration, for `modify`, `reregister` and `unregister`.
    func register(_ fd: CInt, events: EpollEvents, handler: LoopHandler, token: UInt64 = 0) throws(Errno) -> LoopRegistration {
        let slot: UInt32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = UInt32(entries.count)
            entries.append(Entry(handler: nil, token: 0, generation: 0))
        }
        let generation = entries[Int(slot)].generation
        do throws(Errno) {
            try epoll.add(fd, events: events, data: Self.data(slot, generation))
        } catch {
            freeSlots.append(slot)
            throw error
        }
        entries[Int(slot)].handler = handler
        entries[Int(slot)].token = token
        return LoopRegistration(slot: slot, generation: generation, fd: fd, events: events)
    }

    /// Changes what the registration's descriptor is watched for. The corresponding C function is
    /// `epoll_ctl(EPOLL_CTL_MOD)`.
    func modify(_ registration: inout LoopRegistration, events: EpollEvents) throws(Errno) {
        guard events != registration.events else { return }
        try epoll.modify(registration.fd, events: events, data: Self.data(registration.slot, registration.generation))
        registration.events = events
    }

    /// Moves the registration to a new descriptor of the same owner (after a reconnect),
    /// keeping its handler and token; the old descriptor is no longer watched (no `unregister`
    /// is needed before closing it). `epoll_ctl(EPOLL_CTL_DEL)` then `ADD`.
    /// - Throws: `Errno` from `epoll_ctl`; the registration is then gone (register anew).
    func reregister(_ registration: inout LoopRegistration, fd: CInt, events: EpollEvents) throws(Errno) {
        if fd != registration.fd { _ = try? epoll.remove(registration.fd) }
        do throws(Errno) {
            if fd == registration.fd {
                try epoll.modify(fd, events: events, data: Self.data(registration.slot, registration.generation))
            } else {
                try epoll.add(fd, events: events, data: Self.data(registration.slot, registration.generation))
            }
        } catch {
            release(slot: registration.slot)
            throw error
        }
        registration.fd = fd
        registration.events = events
    }

    /// Stops watching the registration's descriptor (before it is closed); its slot's later
    /// events, already fetched, are dropped. The corresponding C function is `epoll_ctl(EPOLL_CTL_DEL)`.
    func unregister(_ registration: LoopRegistration) {
        guard Int(registration.slot) < entries.count, entries[Int(registration.slot)].generation == registration.generation,
            entries[Int(registration.slot)].handler != nil
        else { return }
        _ = try? epoll.remove(registration.fd)
        release(slot: registration.slot)
    }

    private func release(slot: UInt32) {
        entries[Int(slot)].handler = nil
        entries[Int(slot)].generation &+= 1
        freeSlots.append(slot)
    }

    /// How many descriptors are registered (for tests: an owner gone must leave none behind).
    var registrationCount: Int { entries.count - freeSlots.count }

    @inline(__always)
    private static func data(_ slot: UInt32, _ generation: UInt32) -> UInt64 { UInt64(generation) << 32 | UInt64(slot) }

    // MARK: - Timers

    /// Makes a timer that runs `action` when it is due (it is then unscheduled; the action may
    /// schedule it again).
    func makeTimer(_ action: @escaping () -> Void) -> LoopTimer { makeTimer(every: 0, action) }

    /// Makes a timer that, once scheduled, runs `action` every `interval` nanoseconds (measured
    /// from when it last ran) until it is cancelled.
    func makeTimer(every interval: UInt64, _ action: @escaping () -> Void) -> LoopTimer {
        if let free = freeTimers.popLast() {
            actions[free] = action
            intervals[free] = interval
            return LoopTimer(index: free)
        }
        due.append(.max)
        actions.append(action)
        intervals.append(interval)
        return LoopTimer(index: due.count - 1)
    }

    /// Sets when `timer` is due, in `Clock.monotonicNanos()` time; nil cancels it.
    func schedule(_ timer: LoopTimer, at time: UInt64?) { due[timer.index] = time ?? .max }

    /// Schedules `timer` `nanoseconds` from now.
    func schedule(_ timer: LoopTimer, after nanoseconds: UInt64) { schedule(timer, at: Clock.monotonicNanos() &+ nanoseconds) }

    /// When `timer` is due, nil when it is not scheduled.
    func dueTime(_ timer: LoopTimer) -> UInt64? {
        let time = due[timer.index]
        return time == .max ? nil : time
    }

    /// Cancels `timer` and gives its slot back (its owner is going away).
    func removeTimer(_ timer: LoopTimer) {
        due[timer.index] = .max
        actions[timer.index] = nil
        freeTimers.append(timer.index)
    }

    /// How many timers exist (for tests).
    var timerCount: Int { due.count - freeTimers.count }

    // MARK: - Running

    /// Sets what runs once at the end of each wakeup, after its events and timers: the work the
    /// owners gathered over one wakeup, done once for everything served in it. One action, so
    /// one place (`Daemon.endWakeup`) says in which order the owners' phases run.
    func onWakeupEnd(_ action: @escaping () -> Void) {
        precondition(wakeupEnd == nil, "the loop has one end-of-wakeup action")
        wakeupEnd = action
    }

    /// Lets go of every handler, timer action and hook once the loop has stopped running.
    /// Owners hold the loop and the loop holds them (through their handlers and actions), so
    /// without this the whole graph would outlive the run (LeakSanitizer reports it at exit).
    /// Registrations and timers stay valid to unregister or remove; nothing of theirs runs again.
    func releaseOwners() {
        for slot in entries.indices { entries[slot].handler = nil }
        for timer in actions.indices { actions[timer] = nil }
        for timer in due.indices { due[timer] = .max }
        wakeupEnd = nil
    }

    /// Runs until `finished()` is true after a wakeup.
    /// - Throws: `Errno` when `epoll_wait` itself fails.
    func run(until finished: () -> Bool) throws(Errno) {
        while !finished() {
            arm()
            let ready = try epoll.wait(timeoutMilliseconds: -1)
            for event in ready {
                if event.data == Self.clockData {
                    _ = clock.readExpirations()
                    continue
                }
                let slot = Int(UInt32(truncatingIfNeeded: event.data))
                guard slot < entries.count else { continue }
                let entry = entries[slot]
                // Stale: unregistered in this wakeup, the slot maybe reused.
                guard entry.generation == UInt32(truncatingIfNeeded: event.data >> 32), let handler = entry.handler else { continue }
                handler.handle(token: entry.token, events: event.events)
            }
            fireDue()
            wakeupEnd?()
        }
    }

    /// Runs the actions of the timers that passed (each is unscheduled, or a repeating one
    /// scheduled for its next time, first; the action may schedule it again).
    private func fireDue() {
        let now = Clock.monotonicNanos()
        var index = 0
        while index < due.count {
            if due[index] <= now {
                due[index] = intervals[index] == 0 ? .max : now &+ intervals[index]
                actions[index]?()
            }
            index += 1
        }
    }

    /// Arms the timerfd for the earliest timer, when that changed.
    private func arm() {
        var next = UInt64.max
        for time in due where time < next { next = time }
        guard next != armed else { return }
        armed = next
        if next == .max {
            try? clock.disarm()
        } else {
            let now = Clock.monotonicNanos()
            try? clock.set(afterNanoseconds: next > now ? next - now : 1)
        }
    }
}
