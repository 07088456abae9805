import TapgridArguments
import TapgridCore
import TapgridSystem

/// `tapgrid touch X Y [--hold MS] [--double]`: a finger pressed and lifted through the daemon's
/// touch ops, so a person can try tap classes from a shell. Taps the daemon fires while the
/// finger is down (a long press, hold repeats) or after it lifted (a tap at the end of its
/// double-tap window) go to no client: this counts them from `status` and says where to look.
struct TouchCommand {
    let console: Console

    /// How long after the last release to wait for a tap that ends a double-tap window.
    static let windowWaitNanos: UInt64 = 400_000_000

    func run(_ options: TouchOptions) -> Int32 {
        let commands = DaemonCommands(console: console)
        let socket = commands.socketPath(options.socket, config: nil)
        var client: DaemonClient
        do {
            client = try DaemonClient(path: socket, timeoutSeconds: DaemonCommands.replyTimeout)
        } catch {
            console.error(SocketProblem.connectFailed(error, socket: socket))
            return TapgridCLIMain.unavailable
        }
        var replied = 0
        guard let before = tapCount(&client) else { return lost(socket) }
        for press in 0..<(options.double ? 2 : 1) {
            if press > 0 { Clock.sleep(nanoseconds: 60_000_000) }
            guard let down = exchange(&client, downRequest(options)) else { return lost(socket) }
            if case .object? = down["error"] { return failed(down) }
            Clock.sleep(nanoseconds: UInt64(options.holdMs * 1_000_000))
            guard let up = exchange(&client, #"{"op":"up"}"#) else { return lost(socket) }
            if case .object? = up["error"] { return failed(up) }
            guard case .array(let taps)? = up["taps"] else { continue }
            for tap in taps {
                replied += 1
                console.line(options.json ? tap.compactJSON : HumanReply.tap(tap) + " (\(HumanReply.text(tap["class"])))")
            }
        }
        if replied == 0 { Clock.sleep(nanoseconds: Self.windowWaitNanos) }
        guard let after = tapCount(&client) else { return lost(socket) }
        let unseen = after - before - replied
        if unseen > 0 && !options.json {
            console.line("\(counted(unseen, "tap")) fired while the finger was down or after its double-tap window "
                + "(a long press, hold repeats, a single tap): they go to no client; the event log and the daemon's log have them")
        } else if replied == 0 && !options.json {
            console.line("no tap: the press ended without a class")
        }
        return TapgridCLIMain.success
    }

    private func downRequest(_ options: TouchOptions) -> String {
        var out: [UInt8] = Array(#"{"op":"down","x":"#.utf8)
        JSONWriter.appendNumber(options.x, to: &out)
        out += Array(#","y":"#.utf8)
        JSONWriter.appendNumber(options.y, to: &out)
        if let layout = options.layout {
            out += Array(#","layout":"#.utf8)
            JSONWriter.appendString(layout, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private func exchange(_ client: inout DaemonClient, _ request: String) -> JSONValue? {
        guard (try? client.send(Array((request + "\n").utf8))) != nil, let line = try? client.readLine() else { return nil }
        return try? JSONParser.parse(line, lenient: false)
    }

    private func tapCount(_ client: inout DaemonClient) -> Int? {
        guard let status = exchange(&client, #"{"op":"status"}"#), case .number(let taps)? = status["taps"],
            let count = taps.int64
        else { return nil }
        return Int(count)
    }

    private func lost(_ socket: String) -> Int32 {
        console.error("the daemon at \(socket) closed the connection without a reply")
        return TapgridCLIMain.unavailable
    }

    private func failed(_ reply: JSONValue) -> Int32 {
        console.error("\(HumanReply.text(reply["error"]?["code"])): \(HumanReply.text(reply["error"]?["message"]))")
        return TapgridCLIMain.failure
    }
}
