import TapgridCore
import TapgridSystem

/// One client connection: its descriptor, request framer, reply queue and peer identity.
/// Loop-owned; the `SocketServer` reads and writes it, the `TapService` answers its lines.
final class Connection {
    /// Longest request line accepted, without its `\n` (65,536 bytes, README "Socket protocol").
    static let maxLineBytes = 65_536
    /// Queued replies past which a client that keeps sending but never reads is dropped, so it
    /// cannot make the daemon buffer without bound (one large reply may exceed it on its own).
    static let maxPendingOutput = 1 << 20
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
        /// Close now without flushing (an error, or a client that would make us buffer without bound).
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
    /// What the descriptor is registered for in epoll; nil when not registered.
    var registered: EpollEvents? = nil
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
    /// Whether lines in the framer may be answered now.
    var answersLines: Bool {
        !awaitingReload && (input == .reading || input == .peerFinished || input == .stopped)
    }
}
