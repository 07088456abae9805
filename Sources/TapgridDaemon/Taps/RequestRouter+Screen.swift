import TapgridCore

/// The screen's control ops (docs/screen.md): `{"op": "wake"}` and `{"op": "screen", "state":
/// "on" | "dim" | "off"}`, as `use` is: `socket.allowControl` applies (the fleet's `accept` for
/// MQTT). Answered with the screen as `status` shows it.
extension RequestRouter {
    func screenOp(_ op: Request.Op, _ line: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        guard mayControl(connection) else {
            ReplyWriter.error(.forbidden, "uid \(connection.uid) may not control the screen (socket.allowControl)", id: id, out)
            return
        }
        guard let screen = control.screen else {
            ReplyWriter.error(.badRequest, "the config has no \"screen\" block: there is no screen to \(op == .wake ? "wake" : "set")", id: id, out)
            return
        }
        let origin: ScreenCommandOrigin = connection.origin == .mqtt ? .mqtt : .op
        if op == .wake {
            screen.wake(from: origin)
        } else {
            let value = try? JSONParser.parse(Array(line), lenient: false, maxDepth: RequestScanner.maxDepth)
            guard let name = value?["state"]?.stringValue, let state = ScreenState(name: name) else {
                let found = value?["state"].map { $0.compactJSON } ?? "nothing"
                ReplyWriter.error(.badRequest, "\"state\" must be \"on\", \"dim\" or \"off\", found \(found)", id: id, out)
                return
            }
            screen.set(state, from: origin)
        }
        ReplyWriter.screen(screen.status, id: id, out)
    }
}

extension Screen {
    /// `status`'s `screen` block, and the `wake`/`screen` replies'.
    var status: ScreenStatus {
        ScreenStatus(
            state: stateName, since: sinceWallSeconds, backlightPath: settings.backlight?.path,
            backlightValue: backlightValue.map(Int64.init), backlightError: backlightProblem)
    }
}
