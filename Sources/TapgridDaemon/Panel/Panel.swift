import TapgridCore
import TapgridHTTP
import TapgridSystem

/// The browser panel (docs/panel.md): libmicrohttpd on the daemon's loop serving the
/// page, `/layout`, the event streams and the page's contacts and taps. Each request passes
/// `PanelGuard` first; a contact or tap becomes the socket's request line (`PanelBody`) and is
/// answered by the `RequestEndpoint` on the session's own socketless `Connection`, so it takes the
/// socket's exact path and its records say `"source": "panel"`. Takes the wakeup's taps and
/// state changes from the `Outbox`, and notices layout changes, in its phase of the wakeup's end.
final class Panel: LoopHandler, HTTPHandler {
    /// Event-stream bytes a client may leave untaken before its stream is closed (it reconnects).
    static let maxStreamBacklog = 1 << 20
    static let heartbeatNanos: UInt64 = 15_000_000_000
    /// Idle connections are closed after this long (docs/panel.md: 30 s).
    static let idleSeconds = 30

    let settings: PanelConfig
    /// Where it listens, for the log and `make run`: `http://127.0.0.1:8480/` or the socket's path.
    let address: String
    private let guardian: PanelGuard
    private let page: [UInt8]
    private let listener: OwnedFD
    /// The socket file made for a Unix `listen` (removed at stop).
    private let socketPath: String?
    var server: HTTPServer!
    unowned let loop: EventLoop
    let log: LogSink
    let output: TapOutput
    private let endpoint: RequestEndpoint
    let takeNumber: () -> Int
    private var registration: LoopRegistration?
    private var runTimer: LoopTimer!
    var heartbeat: LoopTimer!
    var expiry: LoopTimer!
    var sessions: PanelSessions
    /// Each session's socketless connection, by its number.
    private var connections: [Int: Connection] = [:]
    /// Each session's numbered contacts, in order (by connection number).
    private var orders: [Int: PanelOrder<OrderedContact>] = [:]
    private var orderTimer: LoopTimer!
    // The event streams' state (used by Panel+Streams.swift).
    /// Open streams with the session each belongs to ("" for a stream without one) and its
    /// hang-up watch (its registration and loop token).
    var streams: [ObjectIdentifier: (stream: HTTPEventStream, session: String, watch: (LoopRegistration, token: UInt64)?)] = [:]
    /// Hang-up watches by their loop token.
    var watched: [UInt64: HTTPEventStream] = [:]
    var nextWatchToken: UInt64 = 1
    /// The layout the streams were last shown: a switch, reload, load or unload changes it.
    var shown: (generation: UInt64, layout: Int)
    /// One event's bytes (reused).
    let scratch = ByteBuffer(capacity: 1024)
    /// A tap event's data (reused).
    let eventData = ByteBuffer(capacity: 512)
    /// The events not yet handed to the streams, and who gets which (`PanelBatch`).
    let batch = PanelBatch()
    var flushTimer: LoopTimer!
    private(set) var requests = 0
    /// The screen's state now (nil without `screen` in the config): in `/layout`.
    var screenState: () -> ScreenState? = { nil }
    /// The icon set read with the config (`LoadResult.icons`), replaced at each reload.
    var icons: IconSet?

    init(
        settings: PanelConfig, listener: consuming OwnedFD, address: String, socketPath: String?, token: String?,
        loop: EventLoop, log: LogSink, output: TapOutput, endpoint: RequestEndpoint, takeNumber: @escaping () -> Int
    ) throws(HTTPError) {
        self.settings = settings
        self.address = address
        self.socketPath = socketPath
        guardian = PanelGuard(settings, token: token)
        page = PanelDocuments.page(PackageResources.page_html, title: settings.title)
        self.listener = listener
        self.loop = loop
        self.log = log
        self.output = output
        self.endpoint = endpoint
        self.takeNumber = takeNumber
        sessions = PanelSessions(limit: max(256, 4 * settings.maxClients))
        shown = (output.engine.active.generation, output.engine.currentLayout)
        let connectionLimit = settings.maxClients + 64  // streams, plus room for the page's requests and a 503
        server = try HTTPServer(
            listener: self.listener.rawValue, handler: self, maxBody: PanelGuard.maxBodyBytes, connectionLimit: connectionLimit,
            timeoutSeconds: Self.idleSeconds, memoryLimit: 32 * 1024, log: { [unowned log] message in
                log.warning("panel: libmicrohttpd: " + message)
            })
        do throws(Errno) {
            registration = try loop.register(server.epollDescriptor, events: .readable, handler: self)
        } catch {
            server.stop(answeringHeldWith: refused(Self.stopping))
            throw HTTPError(description: "cannot watch libmicrohttpd's epoll descriptor: \(error)")
        }
        runTimer = loop.makeTimer { [unowned self] in runServer() }
        heartbeat = loop.makeTimer(every: Self.heartbeatNanos) { [unowned self] in beat() }
        loop.schedule(heartbeat, after: Self.heartbeatNanos)
        expiry = loop.makeTimer { [unowned self] in expireSessions() }
        flushTimer = loop.makeTimer { [unowned self] in flush() }
        orderTimer = loop.makeTimer { [unowned self] in expireOrders() }
        runServer()
    }

    /// Ends every stream and stops serving (the daemon is stopping).
    func stop() {
        if let registration { loop.unregister(registration) }
        registration = nil
        server.stop(answeringHeldWith: refused(Self.stopping))
        loop.schedule(runTimer, at: nil)
        loop.schedule(heartbeat, at: nil)
        loop.schedule(expiry, at: nil)
        loop.schedule(flushTimer, at: nil)
        loop.schedule(orderTimer, at: nil)
        if let socketPath { try? Files.remove(socketPath) }
    }

    /// The `panel` block of `status`.
    var status: StatusReply.Panel {
        StatusReply.Panel(address: address, streams: Int64(streams.count), sessions: Int64(sessions.count), requests: Int64(requests))
    }

    // MARK: - The loop

    func handle(token: UInt64, events: EpollEvents) {
        guard token != 0 else { return runServer() }
        guard let stream = watched[token] else { return }
        if events.isDisjoint(with: [.readHangup, .hangup, .error]) {
            // A full stream's socket has room again.
            stream.writeQueued()
            return watchWrites(stream)
        }
        // A stream's client hung up: end it now (its place frees, its session starts its 10 s).
        watched[token] = nil
        if let watch = streams[ObjectIdentifier(stream)]?.watch {
            loop.unregister(watch.0)
            streams[ObjectIdentifier(stream)]?.watch = nil
        }
        stream.close()
    }

    /// `MHD_run`, then its timer re-armed from `MHD_get_timeout` (after every run, always).
    private func runServer() {
        server.run()
        rearm()
    }

    private func rearm() {
        loop.schedule(runTimer, at: server.timeoutMilliseconds.map { Clock.monotonicNanos() &+ UInt64($0) * 1_000_000 })
    }

    /// The panel's phase of the wakeup's end (`Daemon.endWakeup`, after the event log's: the
    /// records of this wakeup are written before its events go): the wakeup's taps and state
    /// changes join the streams' batch, a changed layout is shown, resumed streams are served.
    func endOfWakeup(_ outbox: Outbox) {
        if !streams.isEmpty {
            outbox.forEach { event, active in
                switch event {
                case .tap(let decision, let source): tapDecided(decision, source: source, active: active)
                case .state(let layout, let grid, let state): stateChanged(layout: layout, grid: grid, state: state, active: active)
                case .screen(let state): screenChanged(state)
                }
            }
        }
        let active = output.engine.active
        if shown.generation != active.generation || shown.layout != output.engine.currentLayout {
            shown = (active.generation, output.engine.currentLayout)
            if !streams.isEmpty { broadcastLayout() }
        }
        if server.resumed { runServer() }
    }

    private func beat() {
        let heartbeat = HTTPSharedBytes(copying: UnsafeRawBufferPointer(
            start: PanelDocuments.heartbeat.utf8Start, count: PanelDocuments.heartbeat.utf8CodeUnitCount))
        for (_, entry) in streams { send(heartbeat, to: entry.stream) }
    }

    // MARK: - Requests

    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        requests += 1
        let head = PanelRequestHead(
            method: request.method, path: request.path, host: request.header("Host"), origin: request.header("Origin"),
            contentType: request.header("Content-Type"), cookieToken: request.cookie(PanelGuard.cookieName),
            queryToken: request.argument("token"), bodyTooLarge: request.bodyTooLarge)
        switch guardian.decide(head) {
        case .failure(let refusal):
            if refusal.status != 404 { log.info("panel: \(request.method) \(request.path): \(refusal.status) \(refusal.message)") }
            return refused(refusal)
        case .success(.page(let setCookie)):
            var headers = [("Cache-Control", "no-store"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer")]
            if setCookie, let token = head.queryToken {
                headers.append(("Set-Cookie", "\(PanelGuard.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/"))
            }
            return .body(status: 200, contentType: "text/html; charset=utf-8", bytes: page, headers: headers)
        case .success(.layout):
            return json(200, layoutDocument() + [0x0A])
        case .success(.events):
            return openStream(session: request.argument("session"))
        case .success(.contact):
            switch PanelBody.contact(request.body) {
            case .failure(let refusal): return refused(refusal)
            case .success(let contact):
                guard let connection = session(contact.session) else { return refused(Self.sessionsFull) }
                guard let number = contact.number else { return answerLine(contact.line, on: connection) }
                return ordered(contact.line, number: number, on: connection)
            }
        case .success(.tap):
            switch PanelBody.tap(request.body) {
            case .failure(let refusal): return refused(refusal)
            case .success(let line):
                // A plain tap belongs to no session; it needs a connection to be answered on.
                let connection = tapConnection
                return answerLine(line, on: connection)
            }
        }
    }

    /// What a contact still waiting for its turn gets when the daemon stops.
    static let stopping = PanelRefusal(503, "stopping", "the daemon is stopping")

    static let sessionsFull = PanelRefusal(503, "too_many_clients", "too many panel sessions; try again in 10 s")

    /// The connection plain taps are answered on (they have no contacts, so one serves all).
    private lazy var tapConnection: Connection = makeConnection(number: takeNumber())

    private func makeConnection(number: Int) -> Connection {
        Connection.socketless(number: number, uid: CurrentProcess.uid, origin: .panel)
    }

    /// The session's connection, made on its first use; nil when there are too many sessions.
    private func session(_ id: String) -> Connection? {
        let now = Clock.monotonicNanos()
        guard let number = sessions.number(for: id, now: now, nextNumber: takeNumber) else { return nil }
        if let known = connections[number] { return known }
        let connection = makeConnection(number: number)
        connections[number] = connection
        scheduleExpiry()
        return connection
    }

    /// A numbered contact, carried out in its session's order: now with those it released, or
    /// later, once the contacts before it came (or stopped being waited for).
    private func ordered(_ line: [UInt8], number: Int, on connection: Connection) -> HTTPAnswer {
        let later = HTTPLaterAnswer()
        var order = orders[connection.number] ?? PanelOrder()
        let ready = order.arrived(OrderedContact(line: line, answer: later), number: number, now: Clock.monotonicNanos())
        orders[connection.number] = order
        for contact in ready { contact.answer.answer(answerLine(contact.line, on: connection)) }
        scheduleOrderExpiry()
        return later.given ?? .later(later)
    }

    private func scheduleOrderExpiry() {
        loop.schedule(orderTimer, at: orders.values.compactMap(\.nextExpiry).min())
    }

    /// Early contacts that waited long enough: the missing ones before them are skipped.
    private func expireOrders() {
        let now = Clock.monotonicNanos()
        for (number, var order) in orders {
            let ready = order.expire(now: now)
            orders[number] = order
            guard !ready.isEmpty, let connection = connections[number] else { continue }
            log.info("panel: session conn \(number): a contact did not arrive within 0.5 s; going on without it")
            for contact in ready { contact.answer.answer(answerLine(contact.line, on: connection)) }
        }
        scheduleOrderExpiry()
    }

    /// The endpoint answers the line as the socket's, its records written before the reply goes;
    /// the status comes from the reply's error code.
    private func answerLine(_ line: [UInt8], on connection: Connection) -> HTTPAnswer {
        let replies = endpoint.answer(line, on: connection)
        var body: [UInt8] = []
        for reply in replies { body += reply.line + [0x0A] }
        return json(PanelDocuments.httpStatus(for: replies.first?.error), body)
    }

    func layoutDocument() -> [UInt8] {
        let engine = output.engine
        return PanelDocuments.layout(engine.active, layout: engine.currentLayout, screen: screenState(), icons: icons) { grid in
            engine.cellState(layout: engine.currentLayout, grid: grid)
        }
    }

    /// A JSON answer (`bytes` ends with its newline), never cached: it is the daemon's state now.
    func json(_ status: Int, _ bytes: [UInt8]) -> HTTPAnswer {
        .body(status: status, contentType: "application/json", bytes: bytes, headers: [("Cache-Control", "no-store")])
    }

    func refused(_ refusal: PanelRefusal) -> HTTPAnswer { json(refusal.status, refusal.body) }

    // MARK: - Sessions

    func scheduleExpiry() { loop.schedule(expiry, at: sessions.nextExpiry) }

    /// Sessions without a stream for 10 s: their contacts are cancelled (with their records).
    private func expireSessions() {
        for number in sessions.expire(now: Clock.monotonicNanos()) {
            guard let connection = connections.removeValue(forKey: number) else { continue }
            if var order = orders.removeValue(forKey: number) {
                for contact in order.expire(now: .max) { contact.answer.answer(answerLine(contact.line, on: connection)) }
            }
            endpoint.connectionClosed(connection)
        }
        scheduleExpiry()
    }
}

/// A numbered contact waiting for its turn: its request line and its HTTP answer.
struct OrderedContact {
    var line: [UInt8]
    var answer: HTTPLaterAnswer
}
