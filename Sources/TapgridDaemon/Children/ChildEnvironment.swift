import TapgridCore

/// The whole environment of a handler child: an allow-list of the daemon's variables plus the
/// tap. Never `NOTIFY_SOCKET`, `LISTEN_*`, `WATCHDOG_*` or anything else of the daemon's.
enum ChildEnvironment {
    /// Variables copied from the daemon's environment when present, in this order.
    static let inherited = ["PATH", "HOME", "LANG", "TZ"]

    /// The inherited part, computed once per supervisor.
    static func inheritedEntries(from environment: [String: String]) -> [String] {
        inherited.compactMap { key in environment[key].map { key + "=" + $0 } }
    }

    /// `NAME=value` strings for `Spawn.run`.
    static func entries(inherited: [String], for request: ChildRequest) -> [String] {
        var env = inherited
        env.reserveCapacity(inherited.count + 12)
        env.append("TAPGRID_LAYOUT=" + request.layout)
        env.append("TAPGRID_GRID=" + request.gridPath)
        env.append("TAPGRID_NAME=" + (request.name ?? ""))
        env.append("TAPGRID_TAG=" + (request.tag.map { String($0) } ?? ""))
        env.append("TAPGRID_ACTION_DATA=" + (ChildCommand.actionDataText(request.actionData) ?? ""))
        env.append("TAPGRID_X=" + shortestDecimal(request.x))
        env.append("TAPGRID_Y=" + shortestDecimal(request.y))
        env.append("TAPGRID_SEQ=" + String(request.seq))
        env.append("TAPGRID_TEXT=" + (request.cell.text ?? ""))
        env.append("TAPGRID_ACTIVE=" + (request.cell.active.map { $0 ? "true" : "false" } ?? ""))
        if let slider = request.slider {
            env.append("TAPGRID_VALUE=" + shortestDecimal(slider.value))
            env.append("TAPGRID_CLASS=" + slider.tapClass.name.description)
        } else {
            env.append("TAPGRID_VALUE=" + (request.cell.valueJSON ?? ""))
        }
        return env
    }

    /// `120`, `120.5`: the event log's number format.
    static func shortestDecimal(_ value: Double) -> String {
        var out: [UInt8] = []
        JSONWriter.appendNumber(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
