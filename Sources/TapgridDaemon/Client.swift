import TapgridSystem

/// One connected client: its descriptor, read buffer, write queue and peer identity.
///
/// Owned by the loop thread. `input` holds bytes not yet consumed as request lines; `output` the
/// replies not yet accepted by the kernel, from `outputOffset` on.
final class Client {
    /// Longest request line accepted, without its `\n` (contract: 65,536 bytes).
    static let maxLineBytes = 65_536
    /// Queued output past which a client that keeps sending but never reads is dropped, so it
    /// cannot make the daemon buffer without bound (one large reply may exceed it on its own).
    static let maxPendingOutput = 1 << 20
    /// Bytes read per `read(2)`.
    static let readChunk = 16_384

    let fd: CInt
    let slot: Int
    let token: UInt64
    /// The peer's uid and its primary and supplementary gids, from SO_PEERCRED / SO_PEERGROUPS.
    let uid: UInt32
    let gids: [UInt32]

    var input: [UInt8] = []
    /// `input[..<scanFrom]` is known to hold no `\n` (avoids rescanning a long partial line).
    var scanFrom = 0
    let output = ByteBuffer(capacity: 4096)
    var outputOffset = 0
    /// The peer shut down its writing side (or we stopped reading it, at shutdown).
    var readClosed = false
    /// We stopped reading (shutdown, or after `line_too_long`): no more requests are taken.
    var stopReading = false
    /// Close now, without flushing (an error, or a client that would make us buffer without bound).
    var doomed = false
    /// Close once the output is flushed (after `line_too_long`); no more input is processed.
    var closeAfterFlush = false
    /// A `reload` from this client is running: its later lines wait, so replies stay in order.
    var awaitingReload = false
    /// The `id` of that `reload` request, echoed verbatim in its reply.
    var reloadID: [UInt8]? = nil
    /// What the descriptor is registered for in epoll; nil when not registered.
    var registered: EpollEvents? = nil

    init(fd: CInt, slot: Int, token: UInt64, uid: UInt32, gids: [UInt32]) {
        self.fd = fd
        self.slot = slot
        self.token = token
        self.uid = uid
        self.gids = gids
        input.reserveCapacity(Client.readChunk)
    }

    var pendingOutput: Int { output.count - outputOffset }
}
