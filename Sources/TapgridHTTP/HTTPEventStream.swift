import CMicroHTTPD
import TapgridSystem

/// Bytes several event streams send alike (a batch of events): copied once, queued on each
/// stream without a copy of its own, freed when the last stream has handed them to libmicrohttpd.
public final class HTTPSharedBytes {
    let start: UnsafeMutableRawPointer
    public let count: Int

    public init(copying bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        start = .allocate(byteCount: max(count, 1), alignment: 1)
        if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: count) }
    }

    deinit { start.deallocate() }
}

/// A response that stays open (Server-Sent Events): bytes queued with `send` go out as the
/// client takes them. While nothing waits the connection is suspended
/// (`MHD_suspend_connection`), so libmicrohttpd does not call back in a busy loop.
///
/// libmicrohttpd sends the headers and what was queued before them. Once its reader finds
/// nothing queued, it has sent every byte it was given (a stream has no chunked framing:
/// `tg_mhd_stream_response`); from then on the connection stays suspended and the stream
/// writes to its socket itself, through `hangup` (a duplicate of it): each batch goes from the
/// bytes every stream shares straight to one `send(2)`, with no copy into libmicrohttpd's buffer
/// and no run of it. A socket that takes only part of the queue makes `waitsForWritable` true:
/// the owner then watches `hangupDescriptor` for writable and calls `writeQueued()`. `close`
/// resumes the connection, and libmicrohttpd sends what is still queued and ends it.
public final class HTTPEventStream {
    /// Queued bytes not yet taken by libmicrohttpd or the socket: from `queue[first]`, whose
    /// first `taken` bytes are gone, to the end.
    private var queue: [HTTPSharedBytes] = []
    private var first = 0
    private var taken = 0
    /// Bytes queued and not yet handed to libmicrohttpd or the socket.
    public private(set) var backlog = 0
    private var suspended = false
    private var closing = false
    /// libmicrohttpd has sent all it was given: the stream writes to its socket itself.
    private var direct = false
    /// The socket is full and bytes wait: watch `hangupDescriptor` for writable, then call
    /// `writeQueued()`.
    public private(set) var waitsForWritable = false
    /// Its connection closed and the response was freed: sends are dropped.
    public private(set) var ended = false
    var connection: OpaquePointer?
    weak var server: HTTPServer?
    /// A duplicate of the connection's socket (`FD.duplicate`), for the owner to watch for the
    /// peer hanging up (`EPOLLRDHUP`): a suspended connection is not watched by libmicrohttpd,
    /// and a closed page should free its place at once, not at the next heartbeat. Closed by the
    /// stream when it ends, after `HTTPHandler.streamEnded`.
    var hangup: OwnedFD?

    /// `hangup`'s number, -1 when there is none.
    public var hangupDescriptor: CInt { hangup?.rawValue ?? -1 }

    public init() {}

    /// Queues a copy of `bytes`.
    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard !ended, !closing else { return }
        send(HTTPSharedBytes(copying: bytes))
    }

    /// Queues `bytes` as they are (other streams may queue the same), and sends them at once
    /// once the stream writes its socket itself.
    public func send(_ bytes: HTTPSharedBytes) {
        guard !ended, !closing, bytes.count > 0 else { return }
        queue.append(bytes)
        backlog += bytes.count
        if !direct {
            wake()
        } else if !waitsForWritable {
            writeQueued()
        }
    }

    /// Sends what is queued on the socket until it is full (`waitsForWritable`); a socket whose
    /// peer is gone ends the stream.
    public func writeQueued() {
        guard direct, let socket = hangup?.rawValue else { return }
        waitsForWritable = false
        while first < queue.count {
            let bytes = queue[first]
            let result: FD.IOResult
            do throws(Errno) {
                result = try FD.sendNow(socket, UnsafeRawBufferPointer(start: bytes.start + taken, count: bytes.count - taken))
            } catch {
                drop()
                close()
                return
            }
            guard case .transferred(let count) = result else {
                waitsForWritable = true
                return
            }
            taken += count
            backlog -= count
            guard taken == bytes.count else {
                waitsForWritable = true  // the socket took what it had room for
                return
            }
            first += 1
            taken = 0
        }
        queue.removeAll(keepingCapacity: true)
        first = 0
    }

    private func drop() {
        queue.removeAll()
        first = 0
        taken = 0
        backlog = 0
    }

    /// Ends the stream after what is queued (the client's `EventSource` will reconnect).
    public func close() {
        guard !ended, !closing else { return }
        closing = true
        direct = false  // libmicrohttpd sends the rest and ends it
        waitsForWritable = false
        wake()
    }

    private func wake() {
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection)
        server?.resumed = true
    }

    /// libmicrohttpd wants up to `max` bytes: as many as are queued, from as many sends.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        var written = 0
        while written < max, first < queue.count {
            let bytes = queue[first]
            let count = min(bytes.count - taken, max - written)
            UnsafeMutableRawPointer(buffer + written).copyMemory(from: bytes.start + taken, byteCount: count)
            written += count
            taken += count
            if taken == bytes.count {
                first += 1
                taken = 0
            }
        }
        if first == queue.count, first > 0 {
            queue.removeAll(keepingCapacity: true)
            first = 0
        }
        backlog -= written
        if written > 0 { return written }
        if closing { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
        if let connection {
            suspended = true
            MHD_suspend_connection(connection)
            direct = hangup != nil  // all it was given is sent: the stream writes the rest itself
        }
        return 0
    }

    func finished() {
        hangup = nil
        ended = true
        direct = false
        waitsForWritable = false
        connection = nil
        drop()
    }

    /// Before the server stops: no connection may stay suspended.
    func resumeToStop() {
        closing = true
        direct = false
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        }
    }
}
