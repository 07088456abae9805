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
/// (`MHD_suspend_connection`), so libmicrohttpd does not call back in a busy loop; `send`
/// resumes it (`MHD_resume_connection`). A suspended connection does not notice its client
/// leaving: the owner's periodic heartbeat `send` is what finds dead streams.
public final class HTTPEventStream {
    /// Queued bytes not yet taken by libmicrohttpd: from `queue[first]`, whose first `taken`
    /// bytes are gone, to the end.
    private var queue: [HTTPSharedBytes] = []
    private var first = 0
    private var taken = 0
    /// Bytes queued and not yet handed to libmicrohttpd.
    public private(set) var backlog = 0
    private var suspended = false
    private var closing = false
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

    /// Queues `bytes` as they are (other streams may queue the same).
    public func send(_ bytes: HTTPSharedBytes) {
        guard !ended, !closing, bytes.count > 0 else { return }
        queue.append(bytes)
        backlog += bytes.count
        wake()
    }

    /// Ends the stream after what is queued (the client's `EventSource` will reconnect).
    public func close() {
        guard !ended, !closing else { return }
        closing = true
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
        }
        return 0
    }

    func finished() {
        hangup = nil
        ended = true
        connection = nil
        queue = []
        first = 0
        taken = 0
        backlog = 0
    }

    /// Before the server stops: no connection may stay suspended.
    func resumeToStop() {
        closing = true
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        }
    }
}
