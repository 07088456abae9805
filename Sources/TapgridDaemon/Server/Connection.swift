import TapgridCore
import TapgridSystem

/// One client connection: its descriptor, request framer, reply queue and peer identity.
/// Loop-owned; the `SocketServer` reads and writes it, the `RequestRouter` answers its lines.
final class Connection {
    /// Longest request line accepted, without its `\n` (65,536 bytes, docs/socket-protocol.md "Socket protocol").
    static let maxLineBytes = 65_536
    /// Flow control (docs/socket-protocol.md "Socket protocol", flow control): while more than this many bytes of a client's
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

    /// The socket, owned until `closeDescriptor()`; a connection dropped with it still open is
    /// a bug (`DescriptorAudit` counts it, and the tests check the count stays 0).
    @exclusivity(unchecked) private var descriptor: OwnedFD?
    /// The socket's number while open, -1 once closed.
    var fd: CInt { descriptor?.rawValue ?? -1 }
    /// Unique within the run (from 1): the event log's `conn`, and the stream of its touch contacts.
    let number: Int
    let slot: Int
    /// The epoll token: slot and generation (an event for a closed connection's reused slot is stale).
    let token: UInt64
    /// The peer's uid and its primary and supplementary gids (SO_PEERCRED, SO_PEERGROUPS).
    let uid: UInt32
    let gids: [UInt32]

    /// The fleet's commands are answered as a connection's lines are, on a connection of their
    /// own without a socket (`origin` `.mqtt`): their taps and state changes are recorded with
    /// source `mqtt`, and `accept` (not `socket.allowControl`) says what they may do.
    /// A panel session's contacts and taps come the same way (`origin` `.panel`, source `panel`).
    enum Origin { case socket, mqtt, panel }
    var origin = Origin.socket

    /// Where it stands: every flag and phase, moved only by `ConnectionState`'s transitions.
    /// Unchecked: only the loop thread touches it, never re-entrantly (a checked access costs a
    /// runtime call, and the tap path makes several per request).
    @exclusivity(unchecked) var state = ConnectionState()
    /// (This and the two below: loop-owned and unchecked, like `state`.)
    @exclusivity(unchecked) var framer = LineFramer(dropsCarriageReturn: true, capacity: Connection.readChunk)
    let output = ByteBuffer(capacity: 4096)
    /// `output[..<outputOffset]` is already sent.
    @exclusivity(unchecked) var outputOffset = 0
    /// The descriptor's registration with the loop (what it is watched for); nil when not watched.
    @exclusivity(unchecked) var registration: LoopRegistration? = nil

    /// - Parameter descriptor: the accepted socket (nil for a connection without one, in tests).
    init(descriptor: consuming OwnedFD?, number: Int, slot: Int, token: UInt64, uid: UInt32, gids: [UInt32]) {
        self.descriptor = descriptor
        self.number = number
        self.slot = slot
        self.token = token
        self.uid = uid
        self.gids = gids
    }

    /// A connection without a socket, for a transport that answers through the `RequestEndpoint`
    /// (the fleet's commands, a panel session): it has no slot in the socket server (`slot` -1,
    /// which the server never takes) and the daemon's own uid.
    static func socketless(number: Int, uid: UInt32, origin: Origin) -> Connection {
        let connection = Connection(descriptor: nil, number: number, slot: -1, token: 0, uid: uid, gids: [])
        connection.origin = origin
        return connection
    }

    deinit {
        if descriptor != nil { DescriptorAudit.droppedOpen("client connection \(number)") }
    }

    /// Closes the socket (once; later calls do nothing).
    func closeDescriptor() { descriptor = nil }

    var pendingOutput: Int { output.count - outputOffset }
    /// More than `maxPendingOutput` of replies wait: answering and reading pause.
    var outputFull: Bool { pendingOutput > Connection.maxPendingOutput }
    /// Whether to read more requests now (and so watch the socket for readable).
    var wantsRequests: Bool {
        state.wantsRequests(outputFull: outputFull, framedBytes: framer.count, heldDuringReloadLimit: Connection.maxHeldDuringReload)
    }
}
