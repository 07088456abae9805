import TapgridCore
import TapgridSystem

extension DaemonCommands {
    /// `; the layouts are "home", "settings"`: the daemon's layouts (asked with `{"op":"layouts"}`),
    /// for an `unknown_layout` error, as `show --layout` lists a config's. Empty when the daemon
    /// cannot say (the error is printed without the list then).
    func layoutList(socket: String) -> String {
        guard var client = try? UnixClient(path: socket, timeoutSeconds: DaemonCommands.replyTimeout),
            (try? client.send(Array(#"{"op":"layouts"}"#.utf8) + [0x0A])) != nil,
            let line = try? client.readLine(), let reply = try? JSONParser.parse(line, lenient: false),
            case .array(let layouts)? = reply["layouts"]
        else { return "" }
        let names = layouts.compactMap { layout -> String? in
            if case .string(let name)? = layout["name"] { return jsonEscaped(name) }
            return nil
        }
        return names.isEmpty ? "" : "; the layouts are " + names.joined(separator: ", ")
    }
}
