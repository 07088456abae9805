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
        let socket = commands.socketPath(options.socket)
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
            let down = Request(op: .down, x: options.x, y: options.y, layout: options.layout)
            guard let downReply = exchange(&client, down) else { return lost(socket) }
            if case .error(let error) = downReply { return failed(error) }
            Clock.sleep(nanoseconds: UInt64(options.holdMs * 1_000_000))
            guard let up = exchange(&client, Request(op: .up)) else { return lost(socket) }
            guard case .ok(let reply) = up else {
                if case .error(let error) = up { return failed(error) }
                continue
            }
            for tap in TouchReply(reply).taps {
                replied += 1
                console.line(options.json ? tap.value.compactJSON : HumanReply.tap(tap) + " (\(tap.tapClass ?? "-"))")
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

    private func exchange(_ client: inout DaemonClient, _ request: Request) -> DaemonReply? {
        guard (try? client.send(request.line)) != nil, let line = try? client.readLine() else { return nil }
        return try? DaemonReply.read(line)
    }

    private func tapCount(_ client: inout DaemonClient) -> Int? {
        guard case .ok(let reply)? = exchange(&client, Request(op: .status)), let taps = StatusReply(reply).taps else { return nil }
        return Int(taps)
    }

    private func lost(_ socket: String) -> Int32 {
        console.error("the daemon at \(socket) closed the connection without a reply")
        return TapgridCLIMain.unavailable
    }

    private func failed(_ error: ReplyError) -> Int32 {
        console.error("\(error.code ?? "-"): \(error.message ?? "-")")
        return TapgridCLIMain.failure
    }
}
