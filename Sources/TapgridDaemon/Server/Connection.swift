import TapgridCore
import TapgridSystem

/// One client connection: its descriptor, request framer, reply queue and peer identity.
/// Loop-owned; the `SocketServer` reads and writes it, the `TapService` answers its lines.
final class Connection {
    /// Longest request line accepted, without its `\n` (65,536 bytes, README "Socket protocol").
    static let maxLineBytes = 65_536
    /// Flow control (README, "Flow control"): while more than this many bytes of a client's
    /// replies wait unsent, its requests are not read (they wait in the kernel's socket buffer,
    /// so the sender blocks) and lines already read wait in the framer; both resume as the
    /// replies drain. So a client may pipeline without limit and the daemon's memory per client
    /// stays bounded (this, plus one read batch's replies), without dropping anyone.
    static let maxPendingOutput = 1 << 20
    /// A client whose waiting replies the kernel takes none of for this long is closed (it does
    /// not read at all); reading slowly, even a byte at a time, keeps it open.
    static let stallLimitNanos: UInt64 = 30_000_000_000
    /// While a `reload` of this client runs, its later requests are read up to this many bytes
    /// (they are answered once the reload is); then it is not read until the reload finished.
    static let maxHeldDuringReload = maxLineBytes + 2 * readChunk
    /// Bytes read per `read(2)`.
    static let readChunk = 16_384

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

    let fd: CInt
    /// Unique within the run (from 1): the event log's `conn`, and the stream of its touch contacts.
    let number: Int
    let slot: Int
    /// The epoll token: slot and generation (an event for a closed connection's reused slot is stale).
    let token: UInt64
    /// The peer's uid and its primary and supplementary gids (SO_PEERCRED, SO_PEERGROUPS).
    let uid: UInt32
    let gids: [UInt32]

    var input: Input = .reading
    /// A `reload` from this client is running: its later lines wait, so replies stay in order.
    /// Holds the request's `id` (verbatim bytes, or nil), echoed in the reply.
    var pendingReload: [UInt8]?? = nil
    var framer = LineFramer(dropsCarriageReturn: true, capacity: Connection.readChunk)
    let output = ByteBuffer(capacity: 4096)
    /// `output[..<outputOffset]` is already sent.
    var outputOffset = 0
    /// The descriptor's registration with the loop (what it is watched for); nil when not watched.
    var registration: LoopRegistration? = nil
    /// Complete lines wait in the framer because more than `maxPendingOutput` of replies did:
    /// they were read, so they are answered, in order, as the output drains.
    var holdsLines = false
    /// Since when replies have waited without the kernel taking any (`Clock.monotonicNanos`);
    /// 0 while none wait. Past `stallLimitNanos` the connection is closed.
    var stalledSince: UInt64 = 0
    /// Queued for the end of the wakeup's `sendReplies`.
    var flushQueued = false
    /// Its output went past `SocketServer.largeOutput` since it last drained: once it drains or
    /// closes, the heap is trimmed.
    var heldLargeOutput = false
    var isClosed = false
    /// It sent a touch op (so closing it must end its contacts).
    var touched = false

    init(fd: CInt, number: Int, slot: Int, token: UInt64, uid: UInt32, gids: [UInt32]) {
        self.fd = fd
        self.number = number
        self.slot = slot
        self.token = token
        self.uid = uid
        self.gids = gids
    }

    var pendingOutput: Int { output.count - outputOffset }
    var awaitingReload: Bool { pendingReload != nil }
    /// More than `maxPendingOutput` of replies wait: answering and reading pause.
    var outputFull: Bool { pendingOutput > Connection.maxPendingOutput }
    /// Whether to read more requests now (and so watch the socket for readable): not while the
    /// replies are over the limit or lines wait for them to drain, nor once enough waits for a
    /// reload. A connection that is not read is not watched, so the loop does not spin on it.
    var wantsRequests: Bool {
        input == .reading && !holdsLines && !outputFull
            && !(awaitingReload && framer.count > Connection.maxHeldDuringReload)
    }
    /// Whether lines in the framer may be answered now.
    var answersLines: Bool {
        !awaitingReload && (input == .reading || input == .peerFinished || input == .stopped)
    }
}
