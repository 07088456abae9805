import TapgridSystem

/// What a supervisor epoll registration refers to, packed into the registration's token:
/// the kind in bits 48...55, the low 48 bits the child's id.
/// Ids are never reused, so an event for a closed (and possibly reused) fd number finds no
/// child, or a child whose descriptor of that kind is already closed, and is dropped.
enum ChildEpollData {
    enum Kind: UInt8 {
        case pidfd = 0
        case stdout = 1
        case stderr = 2
    }

    static let idMask: UInt64 = (1 << 48) - 1

    static func make(_ kind: Kind, id: UInt64) -> UInt64 {
        UInt64(kind.rawValue) << 48 | (id & idMask)
    }

    static func decode(_ data: UInt64) -> (kind: Kind, id: UInt64)? {
        guard let kind = Kind(rawValue: UInt8(truncatingIfNeeded: data >> 48)) else { return nil }
        return (kind, data & idMask)
    }
}

/// One started child and its descriptors, from spawn until its pipes are closed (which may be a
/// little after it was reaped, see `ChildSupervisor.outputLingerNanos`). Loop-owned.
final class SupervisedChild {
    let id: UInt64
    let seq: UInt64
    let handlerIndex: Int
    let handlerName: String
    /// Also the process group id (the child leads its own group).
    let pid: Int32
    /// Readable when it exits; closed once it is reaped.
    private var pidfdOwner: OwnedFD?
    /// Read ends of stdout and stderr, closed at end of file or when the linger is over.
    private var stdoutOwner: OwnedFD?
    private var stderrOwner: OwnedFD?
    var output = OutputCapture()
    /// The loop's registrations of the pidfd, stdout and stderr (by `ChildEpollData.Kind`).
    var registrations: [LoopRegistration?] = [nil, nil, nil]
    let startNanos: UInt64
    /// When SIGTERM is due (nil: no timeout).
    let timeoutDeadline: UInt64?
    let killGraceNanos: UInt64
    /// When SIGKILL is due, once SIGTERM was sent.
    var killDeadline: UInt64?
    var sentTerm = false
    var sentKill = false
    var timedOut = false
    var reaped = false
    /// After reaping, when the still-open pipes are closed regardless of end of file.
    var lingerDeadline: UInt64?

    init(
        id: UInt64, request: ChildRequest, pid: Int32, pidfd: consuming OwnedFD, stdout: consuming OwnedFD,
        stderr: consuming OwnedFD, startNanos: UInt64
    ) {
        self.id = id
        self.seq = request.seq
        self.handlerIndex = request.handlerIndex
        self.handlerName = request.handler.name
        self.pid = pid
        self.pidfdOwner = .some(pidfd)
        self.stdoutOwner = .some(stdout)
        self.stderrOwner = .some(stderr)
        self.startNanos = startNanos
        self.timeoutDeadline = Self.nanos(request.handler.timeoutSeconds).map { startNanos &+ $0 }
        self.killGraceNanos = Self.nanos(request.handler.killGraceSeconds) ?? 0
    }

    /// A child dropped with a descriptor open skipped its supervisor's closing path.
    deinit {
        if pidfdOwner != nil || hasOpenPipes { DescriptorAudit.droppedOpen("child \(pid) of \(handlerName)") }
    }

    /// The pidfd's number; -1 once closed.
    var pidfd: CInt { pidfdOwner?.rawValue ?? -1 }

    /// A pipe's read end; -1 once closed.
    func pipe(_ stream: ChildStream) -> CInt {
        switch stream {
        case .stdout: stdoutOwner?.rawValue ?? -1
        case .stderr: stderrOwner?.rawValue ?? -1
        }
    }

    var hasOpenPipes: Bool { stdoutOwner != nil || stderrOwner != nil }

    /// Closes the pidfd (after reaping, or when it could not be watched).
    func closePidfd() { pidfdOwner = nil }

    /// Closes one pipe's read end.
    func closePipe(_ stream: ChildStream) {
        switch stream {
        case .stdout: stdoutOwner = nil
        case .stderr: stderrOwner = nil
        }
    }

    /// The next moment `handleTimers` has something to do for this child.
    var nextDeadline: UInt64? {
        if reaped { return hasOpenPipes ? lingerDeadline : nil }
        if !sentTerm { return timeoutDeadline }
        return sentKill ? nil : killDeadline
    }

    /// Seconds as nanoseconds; nil for non-positive or non-finite values (capped at ~31 years).
    static func nanos(_ seconds: Double) -> UInt64? {
        guard seconds.isFinite, seconds > 0 else { return nil }
        return UInt64(min(seconds, 1e9) * 1e9)
    }
}
