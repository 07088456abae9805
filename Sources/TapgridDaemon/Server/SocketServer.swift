import TapgridCore
import TapgridSystem

/// Answers one request line of a connection (the `RequestEndpoint`).
protocol LineHandler: AnyObject {
    /// Appends the line's reply to the connection's output (not sent yet).
    func handleLine(_ line: UnsafeBufferPointer<UInt8>, from connection: Connection)
    /// The connection is closing (its touch contacts end).
    func connectionClosed(_ connection: Connection)
    /// Replies are about to be sent: write what must reach its file first (the event-log records
    /// of the taps answered so far). Cheap when there is nothing.
    func writeStagedRecords()
}

/// The Unix socket input: the listener, admission (client limit, `socket.allow`), and every
/// connection's reading, framing, reply flushing, flow control and closing. Each complete request
/// line goes to the `LineHandler`, which appends its reply to the connection's output. Replies go
/// out at the end of the loop's wakeup, after the handler's `writeStagedRecords` wrote the event-log
/// records of every connection served in it with one `write(2)` (a record always reaches the log
/// before its reply is sent). A client
/// whose unsent replies pass `Connection.maxPendingOutput` is not read until they drain, and one
/// that takes none of them for `Connection.stallLimitNanos` is closed.
final class SocketServer: LoopHandler {
    /// Unowned: the loop holds the server (its registrations), so a strong reference would be a cycle.
    unowned let loop: EventLoop
    let log: LogSink
    /// Answers the lines (held strongly: an `unowned` reference costs a check per line).
    private let lineHandler: LineHandler
    /// Who may connect and how many; updated on reload.
    var admission: Admission

    /// The listening socket; nil once closed.
    var listener: OwnedFD?
    /// Its registration while it is watched (not while accepting is paused, nor once closed).
    var listening: LoopRegistration?
    /// Accepting resumes after `EMFILE`.
    var acceptBackoff: LoopTimer!
    /// Clients that took none of their waiting replies for 30 s are closed.
    private var stallCheck: LoopTimer!
    /// Free heap pages go back to the kernel after a burst of replies.
    private var memoryTrim: LoopTimer!
    /// Where the socket file is and which file it was when we created it (nil when systemd
    /// owns it, or it could not be examined): only that file is removed at shutdown.
    let socketFile: (path: String, identity: FileIdentity)?
    var acceptPaused = false
    /// Out of descriptors since the last accept that worked (the warning is logged once per episode).
    var outOfDescriptors = false
    /// A descriptor held back for when the others run out (`EMFILE`): spent to accept one
    /// waiting client and tell it `too_many_clients`, then taken again. Without it, clients past
    /// the limit would hang in the backlog with no answer.
    var reserve = Files.openReserveDescriptor()

    /// (Loop-owned, as `EventLoop`'s wakeup properties: unchecked.)
    @exclusivity(unchecked) var connections: [Connection?] = []
    var slotGenerations: [UInt32] = []
    var freeSlots: [Int] = []
    @exclusivity(unchecked) var count = 0
    /// Connection numbers handed out so far (each accepted one's `number`, and the panel's sessions').
    var accepted = 0
    /// Every read lands here first (allocated once, for the daemon's lifetime).
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Connection.readChunk, alignment: 16)
    let scratch = ByteBuffer(capacity: 256)
    /// Connections served in this wakeup whose replies go out at its end (`sendReplies`).
    @exclusivity(unchecked) private var toFlush: [Connection] = []
    /// Output past which a drained or closed connection has the heap trimmed.
    static let largeOutput = 1 << 18
    /// Heap trims: at once after a quiet spell, at most one a second.
    @exclusivity(unchecked) private var trimPacing = Pacing(intervalNanos: 1_000_000_000)

    /// What decides whether a peer may connect.
    struct Admission {
        var maxClients: Int
        var allow: PeerAllowList?
        /// Whether supplementary groups are needed (an allow list is set anywhere).
        var needsGroups: Bool
        var daemonUID: UInt32

        /// What a config says (`socket.maxClients`, `socket.allow`, `socket.allowControl`).
        init(_ config: Config) {
            maxClients = config.socket.maxClients
            allow = config.socket.allow
            needsGroups = config.socket.allow != nil || config.socket.allowControl != nil
            daemonUID = CurrentProcess.uid
        }
    }

    /// The time of each read's requests (the tap output's, so the batch is theirs).
    private let clock: RequestClock

    init(
        loop: EventLoop, listener: consuming OwnedFD, socketPath: String?, admission: Admission, lineHandler: LineHandler,
        log: LogSink, clock: RequestClock = RequestClock()
    ) throws(Errno) {
        self.loop = loop
        self.clock = clock
        self.lineHandler = lineHandler
        self.log = log
        self.admission = admission
        let listenerFD = listener.rawValue
        self.listener = .some(listener)
        socketFile = socketPath.flatMap { path in Files.identity(path).map { (path, $0) } }
        acceptBackoff = loop.makeTimer { [unowned self] in resumeAccepting() }
        stallCheck = loop.makeTimer { [unowned self] in closeStalledClients() }
        memoryTrim = loop.makeTimer { [unowned self] in trimMemory() }
        listening = try loop.register(listenerFD, events: .readable, handler: self, token: Self.listenerToken)
    }

    /// The connections it owns close with it (their descriptors are not dropped open).
    deinit {
        for case let connection? in connections { _ = connection.state.close(); connection.closeDescriptor() }
        readBuffer.deallocate()
    }

    static let listenerToken: UInt64 = 0x00FF_FFFF_FFFF_FFFF

    func handle(token: UInt64, events: EpollEvents) {
        if token == Self.listenerToken {
            acceptAll()
            return
        }
        let slot = Int(UInt32(truncatingIfNeeded: token))
        guard slot < connections.count, let connection = connections[slot],
            slotGenerations[slot] == UInt32(truncatingIfNeeded: token >> 32)
        else { return }  // stale: that connection is gone and its slot may be reused
        if !events.isDisjoint(with: [.readable, .hangup, .error, .readHangup]) && connection.wantsRequests {
            read(connection)
        }
        if connection.state.queueFlush() { toFlush.append(connection) }
    }

    /// The replies' phase of the wakeup's end (`Daemon.endWakeup`): the event-log records of every
    /// connection served, with one write (the first `flush` has them written), then each
    /// connection's replies. Several clients served in one wakeup share that write.
    func sendReplies() {
        guard !toFlush.isEmpty else { return }
        for connection in toFlush {
            connection.state.flushTaken()
            flush(connection)
        }
        toFlush.removeAllKeepingCapacity()
    }

    /// Every open connection.
    var all: [Connection] { connections.compactMap { $0 } }

    // MARK: - Reading

    /// Reads what is available (4 chunks per event, for fairness; `untilDrained`: up to 1 MiB,
    /// what the kernel already holds for us, at shutdown), then answers the complete lines.
    func read(_ connection: Connection, untilDrained: Bool = false) {
        var rounds = 0
        reading: while rounds < (untilDrained ? 64 : 4) {
            rounds += 1
            let outcome: FD.IOResult
            do throws(Errno) {
                outcome = try FD.read(connection.fd, into: readBuffer)
                if case .transferred(let count) = outcome, count > 0 {
                    connection.framer.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                }
            } catch {
                log.debug("client \(connection.slot): read: \(error)")
                close(connection)
                return
            }
            switch outcome {
            case .transferred(0):
                connection.state.peerFinished()
                break reading
            case .transferred(let count):
                // Waiting for a reload, or past the line limit: stop pulling more than we will use.
                if connection.framer.count > Connection.maxLineBytes + 2 * Connection.readChunk && !untilDrained { break reading }
                // A short read drained the socket: skip the read that would only say EAGAIN (the
                // level-triggered epoll reports the connection again if more arrives meanwhile).
                if count < Connection.readChunk && !untilDrained { break reading }
            case .wouldBlock:
                break reading
            }
        }
        answerLines(connection)
    }

    /// Answers the complete lines in order (replies are queued; `flush` sends them). Stops while
    /// a reload of this client runs, and once more than `maxPendingOutput` of replies wait: the
    /// rest stay in the framer (`holdsLines`), answered by `flush` as the output drains.
    func answerLines(_ connection: Connection) {
        guard !connection.state.discardsLines else {
            connection.framer.removeAll()
            return
        }
        guard connection.state.answersLines else { return }  // a reload of this client runs
        if connection.outputFull {
            connection.state.holdLines()
            return
        }
        connection.state.releaseLines()
        // The lines of one read are decided and recorded at one time (`RequestClock`).
        clock.batch { takeLines(connection) }
    }

    private func takeLines(_ connection: Connection) {
        connection.framer.takeLines { line in
            if line.count > Connection.maxLineBytes && !Self.isAllowedLoad(line) {
                lineTooLong(connection)
            } else {
                lineHandler.handleLine(line, from: connection)
            }
            guard connection.state.answersLines else { return false }
            if connection.outputFull {
                connection.state.holdLines()
                return false
            }
            return true
        }
        guard connection.state.answersLines && !connection.state.holdsLines else { return }
        let rest = connection.framer.count
        if rest > Connection.maxLineBytes + 1 || (rest == Connection.maxLineBytes + 1 && connection.framer.last != 0x0D) {
            let loadArriving = connection.framer.buffer.withUnsafeBufferPointer { Self.isAllowedLoad($0, arriving: true) }
            if !loadArriving {
                lineTooLong(connection)
                return
            }
        }
        if connection.state.input == .peerFinished {
            // A last line without `\n` before the peer shut its writing side is still a request.
            connection.framer.takeRest { line in lineHandler.handleLine(line, from: connection) }
        }
    }

    /// A `load` line (docs/cell-state.md "Pushed layouts") may be up to `RequestScanner.maxLoadLineBytes`
    /// (`arriving`: the start of one, its `\n` and a `\r` not yet read).
    private static func isAllowedLoad(_ line: UnsafeBufferPointer<UInt8>, arriving: Bool = false) -> Bool {
        line.count <= RequestScanner.maxLoadLineBytes + (arriving ? 1 : 0) && RequestScanner.startsAsLoad(line)
    }

    private func lineTooLong(_ connection: Connection) {
        ReplyWriter.error(.lineTooLong, "request line longer than \(Connection.maxLineBytes) bytes", id: nil, connection.output)
        connection.state.refuse()
    }

    // MARK: - Writing and closing

    /// Writes queued replies until the kernel stops taking them, answering lines held for the
    /// output to drain as it does; closes the connection when it is done.
    func flush(_ connection: Connection) {
        if connection.state.isClosed { return }
        if connection.state.input == .dropped {
            close(connection)
            return
        }
        var tookSome = false
        while true {
            // Every record staged so far reaches the event log before any reply is sent.
            lineHandler.writeStagedRecords()
            while connection.pendingOutput > 0 {
                let result: FD.IOResult
                do throws(Errno) {
                    result = try FD.send(connection.fd, UnsafeRawBufferPointer(rebasing: connection.output.bytes[connection.outputOffset...]))
                } catch {
                    log.debug("client \(connection.slot): send: \(error)")
                    close(connection)
                    return
                }
                guard case .transferred(let n) = result, n > 0 else { break }
                connection.outputOffset += n
                tookSome = true
            }
            // Lines read while the replies were over the limit: answered now that they drained
            // (each round either sends something or stops, so this ends).
            guard connection.state.holdsLines && !connection.outputFull else { break }
            answerLines(connection)
        }
        let after = connection.state.sent(
            pendingOutput: connection.pendingOutput, outputBytes: connection.output.count, tookSome: tookSome,
            largeOutput: Self.largeOutput, now: connection.pendingOutput == 0 ? 0 : Clock.monotonicNanos())
        if after.trimMemory { trimMemorySoon() }
        if let since = after.waitingSince { stallCheckRuns(by: since + Connection.stallLimitNanos) }
        if connection.pendingOutput == 0 {
            if connection.outputOffset > 0 {
                connection.output.removeAll(shrinkingAbove: 1 << 18)
                connection.outputOffset = 0
            }
            if after.close {
                close(connection)
                return
            }
        } else {
            // A client that reads as fast as we answer may never let the output empty: drop what
            // was sent once it is at least as much as what waits (each byte moves at most once).
            if connection.outputOffset >= 1 << 16 && connection.outputOffset >= connection.pendingOutput {
                connection.output.removeFirst(connection.outputOffset)
                connection.outputOffset = 0
            }
        }
        updateInterest(connection)
    }

    /// After a burst: a client's megabyte of replies (and the batches that made it) were freed,
    /// but glibc keeps the pages of freed blocks inside the heap, so the daemon's resident size
    /// would stay at the burst's high-water mark. Trims the heap now, or a second after the last
    /// trim (a client that pipelines without pause drains many times a second).
    private func trimMemorySoon() {
        guard loop.dueTime(memoryTrim) == nil else { return }
        loop.schedule(memoryTrim, at: trimPacing.due(now: Clock.monotonicNanos()))
    }

    private func trimMemory() {
        trimPacing.ran(at: Clock.monotonicNanos())
        Memory.returnFreePages()
    }

    /// Makes sure the stall check runs by `due` (an earlier check only reschedules).
    private func stallCheckRuns(by due: UInt64) {
        if loop.dueTime(stallCheck) == nil { loop.schedule(stallCheck, at: due) }
    }

    /// Closes the clients that took none of their waiting replies for `stallLimitNanos`
    /// (docs/socket-protocol.md "Socket protocol", flow control: only such a client is closed), and schedules the next check.
    private func closeStalledClients() {
        let now = Clock.monotonicNanos()
        var next = UInt64.max
        for case let connection? in connections {
            guard let due = connection.state.stallDue(limit: Connection.stallLimitNanos) else { continue }
            if due <= now {
                log.warning(
                    "client \(connection.slot) took none of its replies for \(Connection.stallLimitNanos / 1_000_000_000) s (\(connection.pendingOutput) bytes waiting); closed")
                close(connection)
            } else {
                next = min(next, due)
            }
        }
        if next != .max { loop.schedule(stallCheck, at: next) }
    }

    /// Watches for readable while we still read, writable only while replies wait.
    func updateInterest(_ connection: Connection) {
        var wanted: EpollEvents = []
        if connection.wantsRequests { wanted.insert(.readable) }
        if connection.pendingOutput > 0 { wanted.insert(.writable) }
        guard wanted != connection.registration?.events else { return }
        do throws(Errno) {
            if wanted.isEmpty {
                if let registration = connection.registration { loop.unregister(registration) }
                connection.registration = nil
            } else if connection.registration == nil {
                connection.registration = try loop.register(connection.fd, events: wanted, handler: self, token: connection.token)
            } else {
                try loop.modify(&connection.registration!, events: wanted)
            }
        } catch {
            log.error("epoll_ctl for client \(connection.slot): \(error)")
            connection.state.drop()
        }
    }

    func close(_ connection: Connection) {
        guard connection.slot >= 0, connection.slot < connections.count, connections[connection.slot] === connection,
              let after = connection.state.close() else { return }  // not one of the server's (a socketless one)
        if after.endContacts { lineHandler.connectionClosed(connection) }
        if after.trimMemory { trimMemorySoon() }
        if let registration = connection.registration { loop.unregister(registration) }
        connection.registration = nil
        connection.closeDescriptor()
        connections[connection.slot] = nil
        slotGenerations[connection.slot] = (slotGenerations[connection.slot] &+ 1) & 0xFF_FFFF
        freeSlots.append(connection.slot)
        count -= 1
    }

    // MARK: - Stopping

    /// Reads what each client already sent (the kernel holds it: it counts as received; up to
    /// 1 MiB, even from a client paused by flow control), answers it as its replies drain, and
    /// stops reading.
    func drainAll() {
        for connection in all {
            if connection.state.input == .reading { read(connection, untilDrained: true) }
            guard !connection.state.isClosed else { continue }
            connection.state.stopReading()
            flush(connection)
        }
    }

    /// Whether any client still has replies to take, lines to be answered or a reload to wait for.
    var anyBusy: Bool {
        connections.contains { $0.map { $0.pendingOutput > 0 || $0.state.awaitingReload || $0.state.holdsLines } ?? false }
    }

    func closeAll() { for connection in all { close(connection) } }
}
