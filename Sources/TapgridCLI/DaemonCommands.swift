import TapgridArguments
import TapgridConfig
import TapgridCore
import TapgridSystem

/// `tap`, `hit`, `status`, `reload`, `use`, `wake`, `screen`: one request to the daemon, one reply.
struct DaemonCommands {
    let console: Console

    /// Seconds to wait for a reply (a reload may take a moment on a huge config).
    static let replyTimeout = 30.0

    /// The socket: `given` (`--socket`), else `$TAPGRID_SOCKET`, else the default ones.
    func socketPath(_ given: String?) -> String {
        DefaultPaths.socketPath(cli: given, environment: console.environment, configSocketPath: nil)
    }

    /// The socket, with the `socket.path` of `config` (`--config`) before the default ones; nil,
    /// after saying why, when that config cannot be read: the default socket could be another daemon's.
    func socketPath(_ given: String?, config: String?) -> String? {
        guard let config, given == nil, console.environment["TAPGRID_SOCKET"] == nil else { return socketPath(given) }
        let (loaded, diagnostics) = ConfigLoader.load(path: config, missingHint: Self.missingConfigHint)
        guard let loaded else {
            for error in diagnostics.errors { console.error(error.description) }
            return nil
        }
        return DefaultPaths.socketPath(cli: nil, environment: console.environment, configSocketPath: loaded.socket.path)
    }

    /// Said when the config named for its socket does not exist.
    static let missingConfigHint = "--config names the config whose socket.path to use: name another, or the socket itself with --socket PATH"

    /// Sends one request and reads the reply; prints why and returns an exit code on failure.
    func exchange(_ request: Request, socket: String) -> Result<(DaemonReply, String), ExitCode> {
        exchange(line: request.line, socket: socket)
    }

    /// The same for a request line written by the core's other encoders (`ControlRequest`'s),
    /// with its `\n`.
    func exchange(line request: [UInt8], socket: String) -> Result<(DaemonReply, String), ExitCode> {
        var client: DaemonClient
        do {
            client = try DaemonClient(path: socket, timeoutSeconds: DaemonCommands.replyTimeout)
        } catch {
            console.error(SocketProblem.connectFailed(error, socket: socket))
            return .failure(ExitCode(TapgridCLIMain.unavailable))
        }
        do {
            try client.send(request)
            guard let line = try client.readLine() else {
                console.error("the daemon at \(socket) closed the connection without a reply")
                return .failure(ExitCode(TapgridCLIMain.unavailable))
            }
            let text = String(decoding: line, as: UTF8.self)
            return .success((try DaemonReply.read(line), text))
        } catch let error as SystemError {
            console.error(error.description)
            return .failure(ExitCode(TapgridCLIMain.unavailable))
        } catch {
            console.error("the daemon sent a reply that is not JSON: \(error)")
            return .failure(ExitCode(TapgridCLIMain.failure))
        }
    }

    struct ExitCode: Error { let code: Int32; init(_ code: Int32) { self.code = code } }

    /// Prints the reply (raw with --json) and maps an error reply to exit 1.
    /// `socket`: where to ask for the layouts when the reply is `unknown_layout`.
    func finish(
        _ result: Result<(DaemonReply, String), ExitCode>, json: Bool, socket: String? = nil, human: (JSONValue) -> String
    ) -> Int32 {
        switch result {
        case .failure(let exit): return exit.code
        case .success((.error(let error), let text)):
            if json { console.line(text) }
            // A refused config or layout has one error a line (`config_error`): each its own `Error:` line.
            for line in (error.message ?? text).split(separator: "\n", omittingEmptySubsequences: false) {
                console.error("\(error.code ?? "error"): \(line)")
            }
            return TapgridCLIMain.failure
        case .success((.ok(let reply), let text)):
            console.line(json ? text : human(reply))
            return TapgridCLIMain.success
        }
    }

    func tap(_ options: TapOptions) -> Int32 {
        let socket = socketPath(options.socket)
        let result = exchange(Request(op: .tap, x: options.x, y: options.y, layout: options.layout), socket: socket)
        return finish(result, json: options.json, socket: socket, human: HumanReply.tap)
    }

    func hit(_ options: HitOptions) -> Int32 {
        let socket = socketPath(options.socket)
        let result = exchange(Request(op: .hit, x: options.x, y: options.y, layout: options.layout), socket: socket)
        return finish(result, json: options.json, socket: socket, human: HumanReply.hit)
    }

    func control(op: Request.Op, options: ControlOptions) -> Int32 {
        guard let socket = socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
        let result = exchange(Request(op: op), socket: socket)
        return finish(result, json: options.json, human: op == .status ? { HumanReply.status($0, time: .system()) } : HumanReply.reload)
    }

    /// `tapgrid wake`: `screen on (since 12:03:04)`.
    func wake(_ options: ControlOptions) -> Int32 {
        guard let socket = socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
        let result = exchange(Request(op: .wake), socket: socket)
        return finish(result, json: options.json) { HumanReply.screen($0, time: .system()) }
    }

    /// `tapgrid screen off`: `screen off (since 12:03:04)`.
    func screen(_ options: ScreenOptions) -> Int32 {
        guard let socket = socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
        let state = ScreenState(name: options.state.rawValue) ?? .on
        let result = exchange(line: state.requestJSON + [0x0A], socket: socket)
        return finish(result, json: options.json) { HumanReply.screen($0, time: .system()) }
    }

    func use(_ options: UseOptions) -> Int32 {
        guard let socket = socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
        let result = exchange(Request(op: .use, layout: options.layout), socket: socket)
        return finish(result, json: options.json, socket: socket) { reply in "current layout: \(HumanReply.text(reply["layout"]))" }
    }
}

/// Daemon replies as one line for people.
enum HumanReply {
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: return s
        case nil, .null?: return "-"
        case let other?: return other.compactJSON
        }
    }

    static func tap(_ reply: JSONValue) -> String { tap(TapReply(reply)) }

    static func tap(_ reply: TapReply) -> String {
        HumanText.tap(
            seq: reply.seq.map { String($0) }, layout: reply.layout ?? "-", grid: reply.hit.map(HitGrid.init),
            handler: reply.handler, outcome: reply.outcome ?? "-", reason: reply.reason, logged: reply.logged)
    }

    /// The same line as the offline `hit --config` prints for the same point.
    static func hit(_ reply: JSONValue) -> String {
        let reply = TapReply(reply)
        return HumanText.hit(layout: reply.layout ?? "-", grid: reply.hit.map(HitGrid.init), handler: reply.handler)
    }

    /// - Parameter time: how `screen`'s `since` is shown.
    static func status(_ reply: JSONValue, time: LocalTime) -> String {
        let status = StatusReply(reply)
        func text(_ value: Int64?) -> String { value.map { String($0) } ?? "-" }
        var lines = [
            "layout: \(status.layout ?? "-")  generation: \(text(status.generation))  uptime: \(status.uptime.map(formatNumber) ?? "-")s",
            "taps: \(text(status.taps))  children: \(text(status.children))  clients: \(text(status.clients))",
        ]
        if !status.outcomes.isEmpty {
            lines.append("outcomes: " + status.outcomes.map { "\($0.name) \($0.count)" }.joined(separator: ", "))
        }
        if let log = status.eventLog {
            let ok = log.ok ? "ok" : "FAILING" + (log.error.map { " (\($0))" } ?? "")
            lines.append("event log: \(log.path ?? "-") \(ok)")
        }
        if let mqtt = status.mqtt {
            let state = mqtt.connected ? "connected" : "NOT CONNECTED" + (mqtt.lastError.map { " (\($0))" } ?? "")
            lines.append("mqtt: \(mqtt.broker) \(state)  backlog: \(mqtt.backlog)  published: \(mqtt.published)  dropped: \(mqtt.dropped)")
        }
        if let panel = status.panel {
            lines.append("panel: \(panel.address)  streams: \(panel.streams)  sessions: \(panel.sessions)  requests: \(panel.requests)")
        }
        if let screen = status.screen {
            lines.append("screen: \(screen.state) since \(time.text(screen.since))" + backlight(screen))
        }
        return lines.joined(separator: "\n")
    }

    static func reload(_ reply: JSONValue) -> String { "reloaded: generation \(text(reply["generation"]))" }

    /// The reply to `wake` and `screen`: `screen off (since 12:03:04)`, then the backlight as
    /// `status` shows it.
    static func screen(_ reply: JSONValue, time: LocalTime) -> String {
        guard let screen = ScreenStatus(reply["screen"]) else { return "screen -" }
        return "screen \(screen.state) (since \(time.text(screen.since)))" + backlight(screen)
    }

    /// `, backlight 0 (/sys/class/backlight/x)`, `, backlight: <why it cannot be written>`, or
    /// `, backlight - (/sys/...)` before a value was written; nothing without a backlight.
    static func backlight(_ screen: ScreenStatus) -> String {
        guard let path = screen.backlightPath else { return "" }
        if let error = screen.backlightError { return ", backlight: \(error)" }
        return ", backlight \(screen.backlightValue.map { String($0) } ?? "-") (\(path))"
    }

}
