import CMicroHTTPD
import TapgridSystem

/// A response that stays open (Server-Sent Events): bytes queued with `send` go out as the
/// client takes them. While nothing waits the connection is suspended
/// (`MHD_suspend_connection`), so libmicrohttpd does not call back in a busy loop; `send`
/// resumes it (`MHD_resume_connection`). A suspended connection does not notice its client
/// leaving: the owner's periodic heartbeat `send` is what finds dead streams.
public final class HTTPEventStream {
    /// Queued bytes not yet taken by libmicrohttpd; the first `taken` of them are gone.
    private var queued: [UInt8] = []
    private var taken = 0
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

    /// Bytes queued and not yet handed to libmicrohttpd.
    public var backlog: Int { queued.count - taken }

    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard !ended, !closing else { return }
        queued.append(contentsOf: bytes)
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

    /// libmicrohttpd wants up to `max` bytes.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let waiting = queued.count - taken
        if waiting > 0 {
            let count = min(waiting, max)
            queued.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + taken, byteCount: count)
            }
            taken += count
            if taken == queued.count {
                queued.removeAll(keepingCapacity: queued.capacity <= 65_536)
                taken = 0
            }
            return count
        }
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
        queued = []
        taken = 0
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
