import TapgridArguments
import TapgridConfig
import TapgridCore
import TapgridSystem

/// `tap`, `hit`, `status`, `reload`, `use`: one request to the daemon, one reply.
struct DaemonCommands {
    let console: Console

    /// Seconds to wait for a reply (a reload may take a moment on a huge config).
    static let replyTimeout = 30.0

    func socketPath(_ given: String?, config: String?) -> String {
        var configSocket: String?
        if let config, given == nil, console.environment["TAPGRID_SOCKET"] == nil {
            configSocket = ConfigLoader.load(path: config).config?.socket.path
        }
        return DefaultPaths.socketPath(cli: given, environment: console.environment, configSocketPath: configSocket)
    }

    /// Sends one request line and reads the reply; prints why and returns an exit code on failure.
    func exchange(_ request: String, socket: String) -> Result<(JSONValue, String), ExitCode> {
        var client: DaemonClient
        do {
            client = try DaemonClient(path: socket, timeoutSeconds: DaemonCommands.replyTimeout)
        } catch {
            console.error(SocketProblem.connectFailed(error, socket: socket))
            return .failure(ExitCode(TapgridCLIMain.unavailable))
        }
        do {
            try client.send(Array((request + "\n").utf8))
            guard let line = try client.readLine() else {
                console.error("the daemon at \(socket) closed the connection without a reply")
                return .failure(ExitCode(TapgridCLIMain.unavailable))
            }
            let text = String(decoding: line, as: UTF8.self)
            let reply = try JSONParser.parse(line, lenient: false)
            return .success((reply, text))
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
        _ result: Result<(JSONValue, String), ExitCode>, json: Bool, socket: String? = nil, human: (JSONValue) -> String
    ) -> Int32 {
        switch result {
        case .failure(let exit): return exit.code
        case .success(let (reply, text)):
            if case .object? = reply["error"] {
                if json { console.line(text) }
                let code = reply["error"]?["code"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "error"
                let message = reply["error"]?["message"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? text
                console.error("\(code): \(message)")
                return TapgridCLIMain.failure
            }
            console.line(json ? text : human(reply))
            return TapgridCLIMain.success
        }
    }

    func pointRequest(op: String, x: Double, y: Double, layout: String?) -> String {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"op":"#.utf8)
        JSONWriter.appendString(op, to: &out)
        out.append(contentsOf: #","x":"#.utf8)
        JSONWriter.appendNumber(x, to: &out)
        out.append(contentsOf: #","y":"#.utf8)
        JSONWriter.appendNumber(y, to: &out)
        if let layout {
            out.append(contentsOf: #","layout":"#.utf8)
            JSONWriter.appendString(layout, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    func tap(_ options: TapOptions) -> Int32 {
        let socket = socketPath(options.socket, config: nil)
        let result = exchange(pointRequest(op: "tap", x: options.x, y: options.y, layout: options.layout), socket: socket)
        return finish(result, json: options.json, socket: socket, human: HumanReply.tap)
    }

    func hit(_ options: HitOptions) -> Int32 {
        let socket = socketPath(options.socket, config: nil)
        let result = exchange(pointRequest(op: "hit", x: options.x, y: options.y, layout: options.layout), socket: socket)
        return finish(result, json: options.json, socket: socket, human: HumanReply.hit)
    }

    func control(op: String, options: ControlOptions) -> Int32 {
        let socket = socketPath(options.socket, config: options.config)
        let result = exchange(#"{"op":"\#(op)"}"#, socket: socket)
        return finish(result, json: options.json, human: op == "status" ? HumanReply.status : HumanReply.reload)
    }

    func use(_ options: UseOptions) -> Int32 {
        let socket = socketPath(options.socket, config: options.config)
        var out: [UInt8] = Array(#"{"op":"use","layout":"#.utf8)
        JSONWriter.appendString(options.layout, to: &out)
        out.append(UInt8(ascii: "}"))
        let result = exchange(String(decoding: out, as: UTF8.self), socket: socket)
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

    static func tap(_ reply: JSONValue) -> String {
        HumanText.tap(
            seq: reply["seq"].map { text($0) }, layout: text(reply["layout"]), grid: HitGrid(reply: reply["hit"]),
            handler: string(reply["handler"]), outcome: text(reply["outcome"]), reason: string(reply["reason"]),
            logged: reply["logged"] != .bool(false))
    }

    /// The same line as the offline `hit --config` prints for the same point.
    static func hit(_ reply: JSONValue) -> String {
        HumanText.hit(layout: text(reply["layout"]), grid: HitGrid(reply: reply["hit"]), handler: string(reply["handler"]))
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let s)? = value { return s }
        return nil
    }

    static func status(_ reply: JSONValue) -> String {
        var lines = [
            "layout: \(text(reply["layout"]))  generation: \(text(reply["generation"]))  uptime: \(text(reply["uptime"]))s",
            "taps: \(text(reply["taps"]))  children: \(text(reply["children"]))  clients: \(text(reply["clients"]))",
        ]
        if case .object(let outcomes)? = reply["outcomes"], !outcomes.isEmpty {
            lines.append("outcomes: " + outcomes.map { "\($0.key) \($0.value.compactJSON)" }.joined(separator: ", "))
        }
        if let log = reply["eventLog"], case .object = log {
            let ok = log["ok"] == .bool(true) ? "ok" : "FAILING" + (log["error"].map { " (\(text($0)))" } ?? "")
            lines.append("event log: \(text(log["path"])) \(ok)")
        }
        return lines.joined(separator: "\n")
    }

    static func reload(_ reply: JSONValue) -> String { "reloaded: generation \(text(reply["generation"]))" }

}
