import CShims
@preconcurrency import Glibc

/// The readiness flags of an epoll registration or event (`EPOLLIN`, `EPOLLOUT`, ...).
public struct EpollEvents: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `EPOLLIN`: readable (or a listener has connections, or a pidfd's process exited).
    public static let readable = EpollEvents(rawValue: CSHIMS_EPOLLIN)
    /// `EPOLLOUT`: writable; register only while a write queue is non-empty.
    public static let writable = EpollEvents(rawValue: CSHIMS_EPOLLOUT)
    /// `EPOLLPRI`: urgent data.
    public static let priority = EpollEvents(rawValue: CSHIMS_EPOLLPRI)
    /// `EPOLLERR`: an error; always reported, no need to register.
    public static let error = EpollEvents(rawValue: CSHIMS_EPOLLERR)
    /// `EPOLLHUP`: hang-up; always reported, no need to register.
    public static let hangup = EpollEvents(rawValue: CSHIMS_EPOLLHUP)
    /// `EPOLLRDHUP`: the peer shut down its writing side.
    public static let readHangup = EpollEvents(rawValue: CSHIMS_EPOLLRDHUP)
}

/// One ready descriptor: the 64-bit value it was registered with, and what is ready.
public struct EpollEvent: Hashable, Sendable {
    /// The `data.u64` given at registration, e.g. an (fd, generation) pair packed by the caller.
    public var data: UInt64
    /// What is ready.
    public var events: EpollEvents
}

/// An epoll instance with a preallocated event buffer, for the daemon's single loop thread.
///
/// `struct epoll_event` is packed on x86_64, so the C shim translates it to a plain
/// (data, events) pair and Swift never touches its layout. Registrations carry a caller-chosen
/// `UInt64` (NIO's registration ID: put an fd *and* a generation in it, because fd numbers are
/// reused immediately after `close`). `wait` fills a buffer allocated once at `init`.
/// Not thread-safe: owned by the loop thread.
public struct Epoll: ~Copyable {
    /// The epoll descriptor.
    public let fd: OwnedFD
    private let buffer: UnsafeMutablePointer<cshims_epoll_event>
    private let capacity: Int

    /// Creates an epoll instance (`EPOLL_CLOEXEC`). The corresponding C function is `epoll_create1`.
    /// - Parameter maxEvents: events returned per `wait` at most (1...256).
    /// - Throws: `Errno` from `epoll_create1`.
    public init(maxEvents: Int = 64) throws(Errno) {
        precondition((1...Int(CSHIMS_EPOLL_MAX_EVENTS)).contains(maxEvents), "Epoll maxEvents must be 1...256")
        let raw = try retryingEINTR { cshims_epoll_create() }
        fd = OwnedFD(taking: raw)
        capacity = maxEvents
        buffer = .allocate(capacity: maxEvents)
    }

    deinit { buffer.deallocate() }

    /// Starts watching `target` for `events`, reporting `data` with each event.
    /// The corresponding C function is `epoll_ctl(EPOLL_CTL_ADD)`.
    /// - Throws: `Errno` (e.g. `EEXIST` if already registered).
    public func add(_ target: CInt, events: EpollEvents, data: UInt64) throws(Errno) {
        _ = try retryingEINTR { cshims_epoll_ctl(fd.rawValue, CSHIMS_EPOLL_CTL_ADD, target, events.rawValue, data) }
    }

    /// Changes the events and data of a registered descriptor (e.g. toggling `.writable`).
    /// The corresponding C function is `epoll_ctl(EPOLL_CTL_MOD)`.
    /// - Throws: `Errno` (e.g. `ENOENT` if not registered).
    public func modify(_ target: CInt, events: EpollEvents, data: UInt64) throws(Errno) {
        _ = try retryingEINTR { cshims_epoll_ctl(fd.rawValue, CSHIMS_EPOLL_CTL_MOD, target, events.rawValue, data) }
    }

    /// Stops watching `target`. Do this *before* closing it: `close` only removes the
    /// registration when no `dup` of the descriptor exists.
    /// The corresponding C function is `epoll_ctl(EPOLL_CTL_DEL)`.
    /// - Throws: `Errno` (e.g. `ENOENT` if not registered).
    public func remove(_ target: CInt) throws(Errno) {
        _ = try retryingEINTR { cshims_epoll_ctl(fd.rawValue, CSHIMS_EPOLL_CTL_DEL, target, 0, 0) }
    }

    /// Waits for events; `EINTR` is returned as an empty result so the loop can re-check its
    /// state. The corresponding C function is `epoll_wait`.
    /// - Parameter timeoutMilliseconds: `-1` waits forever, `0` polls.
    /// - Returns: the ready events, a view of the preallocated buffer valid until the next `wait`
    ///   (do not keep it).
    /// - Throws: `Errno` from `epoll_wait` other than `EINTR`.
    public func wait(timeoutMilliseconds: CInt) throws(Errno) -> ReadyEvents {
        let n = try SystemCall.interruptible { cshims_epoll_wait(fd.rawValue, buffer, CInt(capacity), timeoutMilliseconds) }
        return ReadyEvents(base: buffer, count: Int(n ?? 0))
    }

    /// The events returned by one `wait`; valid until the next `wait` on the same `Epoll`.
    public struct ReadyEvents: RandomAccessCollection {
        fileprivate let base: UnsafeMutablePointer<cshims_epoll_event>
        public let count: Int
        public var startIndex: Int { 0 }
        public var endIndex: Int { count }
        public subscript(position: Int) -> EpollEvent {
            precondition(position >= 0 && position < count, "Epoll.ReadyEvents index out of range")
            let raw = base[position]
            return EpollEvent(data: raw.data, events: EpollEvents(rawValue: raw.events))
        }
    }
}
