import CMicroHTTPD
import TapgridSystem

/// An error of libmicrohttpd, naming the call.
public struct HTTPError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}

/// libmicrohttpd on the caller's event loop: started with `MHD_USE_EPOLL` and no thread of its
/// own. The owner watches `epollDescriptor` for readable and calls `run()` when it is, and after
/// every `run()` arms a timer for `timeoutMilliseconds` (a loop that ignores MHD's timeout
/// hangs connections: systemd issue 7130).
public final class HTTPServer {
    private var daemon: OpaquePointer?
    private unowned let handler: HTTPHandler
    private let maxBody: Int
    /// Where libmicrohttpd's logger sends its messages: MHD keeps this pointer for the daemon's
    /// lifetime, so it is allocated (a pointer to a stored property is valid only during the
    /// call that took it).
    private let logTarget = UnsafeMutablePointer<tg_mhd_log_target>.allocate(capacity: 1)
    private let log: (String) -> Void
    /// Open event streams, by identity (each also retained by its response until freed).
    private var streams: [ObjectIdentifier: HTTPEventStream] = [:]
    /// Answers held with `HTTPAnswer.later`, their connections suspended.
    var deferred: [ObjectIdentifier: HTTPLaterAnswer] = [:]
    /// How much of an event stream libmicrohttpd takes per call of its reader and sends per
    /// `send(2)`: a batch of events at 50,000 taps/s (about 200 KiB) in one, where 32 KiB chunks
    /// took seven calls and seven runs.
    static let streamBlockBytes = 256 * 1024
    /// A stream was resumed since the last `run()`: run again soon.
    public internal(set) var resumed = false

    /// Starts serving on `listener`, a listening socket the caller made (or systemd passed); it
    /// stays the caller's to close after `stop(answeringHeldWith:)`.
    /// - Parameters:
    ///   - connectionLimit: `MHD_OPTION_CONNECTION_LIMIT`: connections past it are closed at once.
    ///   - timeoutSeconds: `MHD_OPTION_CONNECTION_TIMEOUT`: idle connections are closed.
    ///   - memoryLimit: `MHD_OPTION_CONNECTION_MEMORY_LIMIT`: bytes per connection for its headers.
    public init(listener: CInt, handler: HTTPHandler, maxBody: Int, connectionLimit: Int, timeoutSeconds: Int,
                memoryLimit: Int, log: @escaping (String) -> Void) throws(HTTPError) {
        self.handler = handler
        self.maxBody = maxBody
        self.log = log
        let me = Unmanaged.passUnretained(self).toOpaque()
        logTarget.initialize(to: tg_mhd_log_target(fn: { cls, message in
            guard let cls, let message else { return }
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().log(String(cString: message))
        }, cls: me))
        daemon = tg_mhd_start(listener, HTTPServer.access, me, HTTPServer.completed, me, logTarget, UInt32(connectionLimit),
                              UInt32(timeoutSeconds), memoryLimit)
        guard daemon != nil else {
            throw HTTPError(description: "MHD_start_daemon failed (see the messages before this one)")
        }
    }

    deinit {
        stop(answeringHeldWith: Self.stoppingText)
        logTarget.deallocate()
    }

    /// libmicrohttpd's epoll descriptor (`MHD_DAEMON_INFO_EPOLL_FD`), -1 once stopped.
    public var epollDescriptor: CInt { daemon.map { tg_mhd_epoll_fd($0) } ?? -1 }

    /// Does what is ready (`MHD_run`): accepts, reads, answers, writes, times out.
    public func run() {
        resumed = false
        guard let daemon else { return }
        if MHD_run(daemon) != MHD_Result.YES { log("MHD_run failed") }
    }

    /// When to call `run()` again at the latest, in milliseconds (`MHD_get_timeout`); nil: only
    /// when the descriptor is readable.
    public var timeoutMilliseconds: Int64? {
        guard let daemon else { return nil }
        if resumed { return 0 }
        let timeout = tg_mhd_timeout_ms(daemon)
        return timeout < 0 ? nil : Int64(timeout)
    }

    /// Ends every stream, gives every request still held (`HTTPAnswer.later`) the answer `held`
    /// (the owner's own, say a 503 in the format of its other errors), then stops
    /// (`MHD_quiesce_daemon`, `MHD_stop_daemon`, after resuming every suspended connection, as
    /// libmicrohttpd requires); the listening socket stays open.
    public func stop(answeringHeldWith held: HTTPAnswer) {
        guard let daemon else { return }
        for stream in streams.values { stream.resumeToStop() }
        for later in deferred.values where later.given == nil { later.answer(held) }
        MHD_run(daemon)
        self.daemon = nil
        // Hands the listening socket back first: it is the caller's to close (MHD_stop_daemon
        // would close it too, and the caller's close would then be a double close).
        _ = MHD_quiesce_daemon(daemon)
        MHD_stop_daemon(daemon)
    }

    /// What a held request gets when the server is dropped without `stop(answeringHeldWith:)`.
    private static var stoppingText: HTTPAnswer {
        .body(status: 503, contentType: "text/plain; charset=utf-8", bytes: Array("the server is stopping\n".utf8))
    }

    // MARK: - Callbacks

    private static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, context in
        guard let cls, let connection, let context, let uploadSize else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        guard let existing = context.pointee else {
            // The first call: the headers are in; the body (if any) comes next, and a client
            // with Nagle's algorithm on that waits for their ACK to send it gets it at once
            // (not up to 40 ms later: 40 ms per POST otherwise).
            let socket = tg_mhd_connection_fd(connection)
            if socket >= 0 { TCPSocketOptions.quickAck(socket) }
            let request = HTTPRequest(
                connection: connection, method: method.map { String(cString: $0) } ?? "",
                path: url.map { String(cString: $0) } ?? "", maxBody: server.maxBody)
            context.pointee = Unmanaged.passRetained(request).toOpaque()
            return MHD_Result.YES
        }
        let request = Unmanaged<HTTPRequest>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload { request.take(UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)) }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        guard !request.answered else { return MHD_Result.YES }
        if let later = request.later {
            // Resumed: answered now, or (a spurious call) suspended again until it is.
            guard let answer = later.given else {
                MHD_suspend_connection(connection)
                return MHD_Result.YES
            }
            request.answered = true
            server.deferred[ObjectIdentifier(later)] = nil
            return server.queue(answer, on: connection)
        }
        let answer = server.handler.answer(request)
        if case .later(let later) = answer {
            // Held until the owner answers: the connection waits suspended (no busy loop).
            request.later = later
            later.connection = connection
            later.server = server
            server.deferred[ObjectIdentifier(later)] = later
            MHD_suspend_connection(connection)
            return MHD_Result.YES
        }
        request.answered = true
        return server.queue(answer, on: connection)
    }

    private static let completed: MHD_RequestCompletedCallback = { cls, _, context, _ in
        guard let context, let request = context.pointee else { return }
        if let cls, let later = Unmanaged<HTTPRequest>.fromOpaque(request).takeUnretainedValue().later {
            // Its client went away while it waited.
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().deferred[ObjectIdentifier(later)] = nil
        }
        Unmanaged<HTTPRequest>.fromOpaque(request).release()
        context.pointee = nil
    }

    private static let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }
        return Unmanaged<HTTPEventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
    }

    private static let freeStream: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let stream = Unmanaged<HTTPEventStream>.fromOpaque(cls).takeRetainedValue()
        if let server = stream.server {
            server.streams[ObjectIdentifier(stream)] = nil
            server.handler.streamEnded(stream)  // before `finished` closes the descriptor it watches
        }
        stream.finished()
    }

    private func queue(_ answer: HTTPAnswer, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        let status: Int
        let headers: [(String, String)]
        switch answer {
        case .body(let code, let contentType, let bytes, let extra):
            status = code
            headers = [("Content-Type", contentType)] + extra
            response = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .later:
            log("an answer held for later was given as the answer")
            return MHD_Result.NO
        case .stream(let stream, let extra):
            status = 200
            headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")] + extra
            stream.connection = connection
            stream.server = self
            let socket = tg_mhd_connection_fd(connection)
            if socket >= 0 {
                do throws(Errno) { stream.hangup = try FD.duplicate(socket) } catch {
                    log("cannot watch an event stream for hang-ups: fcntl(F_DUPFD_CLOEXEC): \(error)")
                }
            }
            response = tg_mhd_stream_response(
                Self.streamBlockBytes, HTTPServer.readStream, Unmanaged.passRetained(stream).toOpaque(), HTTPServer.freeStream)
            if response != nil { streams[ObjectIdentifier(stream)] = stream }
        }
        guard let response else {
            log("MHD_create_response failed")
            return MHD_Result.NO
        }
        for (name, value) in headers { MHD_add_response_header(response, name, value) }
        let result = MHD_queue_response(connection, UInt32(status), response)
        MHD_destroy_response(response)
        if case .stream(let stream, _) = answer, result == MHD_Result.YES { handler.streamStarted(stream) }
        return result
    }
}
