import TapgridCore
import TapgridSystem

/// What the router asks of the daemon: a reload on a connection's behalf, a pushed layout's
/// `load` and `unload`, and what `status` reports of the daemon's own parts.
protocol DaemonControl: AnyObject {
    /// The connection sent `reload` (and now waits for its answer).
    func reloadRequested(by connection: Connection)
    /// The socket clients connected now, for `status`.
    var clientCount: Int { get }
    /// A `load`: check `definition` as a config layout and swap it in as `name`.
    func load(layout name: String, definition: JSONValue) -> PushOutcome
    /// An `unload` of a pushed layout.
    func unload(layout name: String) -> PushOutcome
    /// The names of the pushed layouts, for `status`.
    var pushedLayouts: [String] { get }
    /// The fleet connection's `mqtt` block of `status`, nil without `mqtt` in the config.
    var fleetStatus: StatusReply.MQTT? { get }
    /// The browser panel's `panel` block of `status`, nil without a panel serving.
    var panelStatus: StatusReply.Panel? { get }
    /// The screen, with `screen` in the config (docs/screen.md).
    var screen: Screen? { get }
}

/// What became of a `load` or `unload`.
enum PushOutcome: Equatable {
    /// Swapped in as this generation.
    case done(generation: UInt64)
    /// Identical to the definition in place: nothing changed.
    case unchanged(generation: UInt64)
    /// Refused, with the reply's code and message; nothing changed.
    case refused(ErrorCode, String)
}

/// Routes each request line of a connection: taps and hit-tests to the `TapOutput`, contact ops
/// to the `TouchInput`; `status`, `layouts`, `use` and `reload` are answered here, permissions
/// checked here (`socket.allowControl`). Every reply is written by the core's `ReplyWriter`.
final class RequestRouter {
    let output: TapOutput
    let touch: TouchInput
    /// The daemon (unowned: it owns the router).
    unowned var control: DaemonControl!
    private let daemonUID: UInt32
    private let startNanos = Clock.monotonicNanos()

    init(output: TapOutput, touch: TouchInput, daemonUID: UInt32) {
        self.output = output
        self.touch = touch
        self.daemonUID = daemonUID
    }

    func handleLine(_ line: UnsafeBufferPointer<UInt8>, from connection: Connection) {
        // Empty or whitespace-only lines are ignored.
        var blank = true
        for byte in line where !(byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A) {
            blank = false
            break
        }
        if blank { return }
        let out = connection.output
        if let plain = RequestScanner.plainTap(line) {
            output.tap(x: plain.x, y: plain.y, layout: nil, id: nil, out, checkOnly: false, xText: plain.xText, yText: plain.yText)
            return
        }
        // Scanned into a local and passed on borrowed: no copy of the `Request` per tap.
        var request = Request()
        if let failure = RequestScanner.scan(line, into: &request) {
            ReplyWriter.error(failure.error.errorCode, failure.message, id: failure.id.map { UnsafeBufferPointer(rebasing: line[$0]) }, out)
            return
        }
        let id = request.id.map { UnsafeBufferPointer(rebasing: line[$0]) }
        switch request.op {
        case .tap:
            output.tap(x: request.x, y: request.y, layout: request.layout, id: id, out, checkOnly: false,
                       source: Self.source(of: connection.origin))
        case .hit: output.tap(x: request.x, y: request.y, layout: request.layout, id: id, out, checkOnly: true)
        case .status: writeStatus(id: id, out)
        case .layouts: layouts(line, id: id, out)
        case .use: use(request, id: id, connection)
        case .down: touch.touch(.down, request, id: id, connection)
        case .move: touch.touch(.move, request, id: id, connection)
        case .up: touch.touch(.up, request, id: id, connection)
        case .cancel: touch.touch(.cancel, request, id: id, connection)
        case .reload:
            guard mayControl(connection) else {
                ReplyWriter.error(.forbidden, "uid \(connection.uid) may not reload (socket.allowControl)", id: id, out)
                return
            }
            connection.state.reloadBegan(id: id.map { Array($0) })
            control.reloadRequested(by: connection)
        case .set: set(line, id: id, connection)
        case .load: load(line, id: id, connection)
        case .unload: unload(line, id: id, connection)
        case .wake, .screen: screenOp(request.op, line, id: id, connection)
        case .unknown(let name):
            ReplyWriter.error(
                .unknownOp,
                "unknown op \(jsonEscaped(name)); expected tap, hit, status, reload, use, layouts, set, load, unload, wake, screen, down, move, up or cancel",
                id: id, out)
        }
    }

    func connectionClosed(_ connection: Connection) { touch.connectionClosed(connection) }

    /// Whether the connection may `reload`, `use`, `set`, `load` and `unload` (`socket.allowControl`; absent: anyone).
    func mayControl(_ connection: Connection) -> Bool {
        if connection.origin == .mqtt { return true }  // the fleet checked `mqtt.accept`
        guard let allow = output.engine.active.config.socket.allowControl else { return true }
        return allow.allows(uid: connection.uid, gids: connection.gids, daemonUID: daemonUID)
    }

    private func use(_ request: Request, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        guard mayControl(connection) else {
            ReplyWriter.error(.forbidden, "uid \(connection.uid) may not switch layouts (socket.allowControl)", id: id, out)
            return
        }
        guard let name = request.layout else {
            ReplyWriter.error(.badRequest, "\"layout\" is required", id: id, out)
            return
        }
        let before = output.engine.currentLayout
        guard output.engine.use(layout: name) else {
            ReplyWriter.error(.unknownLayout, output.engine.active.unknownLayout(name), id: id, out)
            return
        }
        if output.engine.currentLayout != before {
            output.log.info("layout \(name) is current (op use)")
            output.recordEndedContacts(now: output.clock.monotonic)
        }
        ReplyWriter.used(layout: name, id: id, out)
    }

    /// `"mqtt"` as a JSON string: the source of taps from fleet commands.
    static let mqttSource = JSONWriter.string("mqtt")
    /// `"panel"` as a JSON string: the source of the browser panel's taps and contacts.
    static let panelSource = JSONWriter.string("panel")

    /// The `source` a `tap` request's record carries: none for the socket's own (its default).
    static func source(of origin: Connection.Origin) -> [UInt8]? {
        switch origin {
        case .socket: return nil
        case .mqtt: return mqttSource
        case .panel: return panelSource
        }
    }

    private func writeStatus(id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        statusReply().write(id: id, into: out)
    }

    /// The `status` reply as it stands (the fleet publishes it too, with its own block).
    func statusReply() -> StatusReply {
        let engine = output.engine
        let eventLog = output.eventLog
        let children = output.supervisor
        let outcomes = Outcome.allCases.filter { engine.outcomeCounts[$0] > 0 }.map { outcome in
            StatusReply.OutcomeCount(name: outcome.name.description, count: Int64(engine.outcomeCounts[outcome]))
        }
        // Taps only: state changes share the sequence numbers but are not taps.
        let taps = outcomes.reduce(0) { $0 + $1.count }
        var status = StatusReply(
            uptime: Double((Clock.monotonicNanos() - startNanos) / 1_000_000) / 1000, generation: Int64(engine.active.generation),
            layout: engine.currentLayoutName, taps: taps, outcomes: outcomes, children: Int64(children.runningCount),
            queued: Int64(children.queuedCount), clients: Int64(control.clientCount),
            eventLog: StatusReply.EventLog(path: eventLog.path, ok: eventLog.ok, error: eventLog.lastError))
        status.pushed = control.pushedLayouts
        status.mqtt = control.fleetStatus
        status.panel = control.panelStatus
        status.screen = control.screen?.status
        return status
    }
}
