/// Where one client connection stands, and every rule that moves it: a pure value with no
/// descriptor or buffer, so its transitions are tested in-process (`ConnectionStateTests`).
///
/// The `SocketServer` carries out what a transition returns (close, trim the heap, check for a
/// stall); the request router and the daemon move it only through the transitions below
/// (`reloadBegan`, `reloadEnded`, `touched`), never by writing a field.
struct ConnectionState: Equatable {
    /// Where the request side stands.
    enum Input: Equatable {
        /// Reading requests and answering them.
        case reading
        /// The peer shut down its writing side: answer what is left (a last line without `\n`
        /// included), flush, close.
        case peerFinished
        /// We stopped reading (the daemon is stopping): lines already read are still answered.
        case stopped
        /// After `line_too_long`: nothing more is answered; flush the error, close.
        case refused
        /// Close now without flushing (a failed `epoll_ctl`).
        case dropped
    }

    /// A `reload` sent by this client, while it runs.
    enum Reload: Equatable {
        case none
        /// Its later lines wait so replies stay in order; holds the request's `id` (verbatim
        /// bytes, or nil), echoed in the reply.
        case waiting(id: [UInt8]?)
    }

    private(set) var input: Input = .reading
    private(set) var reload: Reload = .none
    /// Complete lines wait in the framer because too many replies did: they were read, so
    /// they are answered, in order, as the output drains.
    private(set) var holdsLines = false
    /// Since when replies have waited without the kernel taking any (monotonic ns); 0 while
    /// none wait.
    private(set) var stalledSince: UInt64 = 0
    /// Queued for the end of the wakeup's reply sending.
    private(set) var flushQueued = false
    /// Its output went past the large-output mark since it last drained: once it drains or
    /// closes, the heap is trimmed.
    private(set) var heldLargeOutput = false
    /// It sent a touch op, so closing it must end its contacts.
    private(set) var hasTouched = false
    private(set) var isClosed = false

    var awaitingReload: Bool { reload != .none }

    /// Whether lines in the framer may be answered now.
    var answersLines: Bool {
        !awaitingReload && !isClosed && (input == .reading || input == .peerFinished || input == .stopped)
    }

    /// Whether to read more requests (and so watch the socket for readable): not while replies
    /// are over the limit or lines wait for them, nor once `heldDuringReloadLimit` bytes wait
    /// for a reload. A connection that is not read is not watched, so the loop does not spin.
    func wantsRequests(outputFull: Bool, framedBytes: Int, heldDuringReloadLimit: Int) -> Bool {
        input == .reading && !isClosed && !holdsLines && !outputFull
            && !(awaitingReload && framedBytes > heldDuringReloadLimit)
    }

    // MARK: - The request side

    /// The peer shut its writing side (`read` returned 0).
    mutating func peerFinished() {
        if input == .reading { input = .peerFinished }
    }

    /// The daemon stops reading (shutdown); lines already read are still answered.
    mutating func stopReading() {
        if input == .reading { input = .stopped }
    }

    /// A line was too long: nothing more is answered, the error is flushed, then it closes.
    mutating func refuse() {
        if input != .dropped { input = .refused }
    }

    /// Its registration could not be changed: close without flushing.
    mutating func drop() { input = .dropped }

    /// Whether its buffered lines are thrown away rather than answered.
    var discardsLines: Bool { input == .refused || input == .dropped }

    /// Answering paused because more than the limit of replies wait.
    mutating func holdLines() { holdsLines = true }

    /// Answering resumes (the output drained under the limit).
    mutating func releaseLines() { holdsLines = false }

    // MARK: - Reload and touch

    /// This client's `reload` started; `id` is echoed in the reply.
    mutating func reloadBegan(id: [UInt8]?) { reload = .waiting(id: id) }

    /// The reload finished: answering resumes.
    /// - Returns: the request's `id` to echo (nil when it had none or none was waiting).
    mutating func reloadEnded() -> [UInt8]? {
        defer { reload = .none }
        if case .waiting(let id) = reload { return id }
        return nil
    }

    /// It sent a touch op.
    mutating func touched() { hasTouched = true }

    // MARK: - Sending

    /// Marks it queued for the wakeup's sending.
    /// - Returns: true when it was not queued yet (the caller appends it to the queue).
    mutating func queueFlush() -> Bool {
        if flushQueued { return false }
        flushQueued = true
        return true
    }

    /// Taken from the queue to be flushed.
    mutating func flushTaken() { flushQueued = false }

    /// What the server does after a round of sending.
    struct AfterSend: Equatable {
        /// Done: nothing waits, and it reads no more (peer finished, refused, stopped).
        var close = false
        /// It drained after holding a large output: return the freed heap.
        var trimMemory = false
        /// Replies wait unsent since this moment: make sure a stall check runs by its limit.
        var waitingSince: UInt64? = nil
    }

    /// A round of sending ended with `pendingOutput` bytes unsent out of `outputBytes` queued;
    /// `tookSome` says whether the kernel took any of it; `largeOutput` is the trim mark.
    mutating func sent(pendingOutput: Int, outputBytes: Int, tookSome: Bool, largeOutput: Int, now: UInt64) -> AfterSend {
        var after = AfterSend()
        if outputBytes > largeOutput { heldLargeOutput = true }
        if pendingOutput == 0 {
            stalledSince = 0
            if heldLargeOutput {
                heldLargeOutput = false
                after.trimMemory = true
            }
            after.close = !awaitingReload && !holdsLines && input != .reading
        } else if tookSome || stalledSince == 0 {
            stalledSince = now
            after.waitingSince = now
        }
        return after
    }

    /// When its stall limit passes, if replies wait (the server closes it then).
    func stallDue(limit: UInt64) -> UInt64? { stalledSince == 0 ? nil : stalledSince + limit }

    // MARK: - Closing

    /// What closing asks of the server besides closing the descriptor.
    struct AfterClose: Equatable {
        /// Its touch contacts are cancelled.
        var endContacts = false
        /// The heap it held is returned.
        var trimMemory = false
    }

    /// It closes.
    /// - Returns: nil when it was already closed (nothing to do), else what to do.
    mutating func close() -> AfterClose? {
        if isClosed { return nil }
        isClosed = true
        let after = AfterClose(endContacts: hasTouched, trimMemory: heldLargeOutput)
        heldLargeOutput = false
        stalledSince = 0
        return after
    }
}
