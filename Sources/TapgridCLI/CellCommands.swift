import TapgridArguments
import TapgridConfig
import TapgridCore

/// `set`, `load`, `unload` and `show --socket`: cell state and pushed layouts (docs/cell-state.md
/// "Cell state and pushed layouts"). Requests are written by the core (`ControlRequest`'s encoders, `Request`),
/// replies read through its reply types.
struct CellCommands {
    let console: Console

    var daemon: DaemonCommands { DaemonCommands(console: console) }

    func set(_ options: SetOptions) -> Int32 {
        let change: CellChange
        switch Self.change(options) {
        case .failure(let error):
            console.err(error.stderrText)
            return TapgridCLIMain.usage
        case .success(let read): change = read
        }
        guard let socket = daemon.socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
        let request = ControlRequest.Set(layout: options.layout, grid: options.grid, change: change)
        let result = daemon.exchange(line: request.json + [0x0A], socket: socket)
        return daemon.finish(result, json: options.json) { reply in
            let set = CellSetReply(reply)
            return HumanText.cellSet(
                layout: set.layout ?? options.layout, path: set.grid ?? options.grid, asked: options.grid, change: change)
        }
    }

    /// The change `options` ask for, with `--value` read as strict JSON (as the socket reads it).
    /// - Returns: the change, or the usage error that names what `--value` got wrong.
    static func change(_ options: SetOptions) -> Result<CellChange, UsageError> {
        var change = CellChange()
        if let text = options.text { change.text = .set(text) }
        if let active = options.active { change.active = .set(active) }
        if let enabled = options.enabled { change.enabled = .set(enabled) }
        if let icon = options.icon {
            guard GridLook.isIconName(icon) else {
                return .failure(CLISubcommand.set.usageError(
                    "The value '\(icon)' is invalid for '--icon <mdi:name>': expected mdi: and an icon's name, such as mdi:lightbulb"))
            }
            change.icon = .set(icon)
        }
        if let style = options.style { change.style = .set(style) }
        if let value = options.value {
            do throws(JSONSyntaxError) {
                let parsed = try JSONParser.parse(Array(value.utf8), lenient: false)
                change.valueJSON = parsed == .null ? .clear : .set(parsed.compactJSON)  // null clears, as on the socket
            } catch {
                var message = "The value '\(value)' is invalid for '--value <json>': it is not JSON (\(error))"
                // `--value on`: a word meant as a string (an object, array or string went wrong inside).
                if let first = value.first, !"{[\"".contains(first) {
                    message += "; a string needs its quotes: --value '\(jsonEscaped(value))'"
                }
                return .failure(CLISubcommand.set.usageError(message))
            }
        }
        for key in options.clear {
            switch key {
            case .text: change.text = .clear
            case .active: change.active = .clear
            case .value: change.valueJSON = .clear
            case .enabled: change.enabled = .clear
            case .icon: change.icon = .clear
            case .style: change.style = .clear
            }
        }
        return .success(change)
    }

    func load(_ options: LoadOptions) -> Int32 {
        let definition = ConfigLoader.readDefinition(path: options.file)
        if options.check { return check(options, definition) }
        switch definition {
        case .failure(let problem):
            console.error(problem.description)
            return TapgridCLIMain.failure
        case .success(let value):
            guard let socket = daemon.socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
            let request = ControlRequest.Load(layout: options.name, definition: value)
            let result = daemon.exchange(line: request.json + [0x0A], socket: socket)
            return daemon.finish(result, json: options.json) { reply in
                HumanText.loaded(layout: options.name, LoadReply(reply), unloaded: false)
            }
        }
    }

    /// `load --check`: what the daemon would say of the definition (`PushedLayouts.check`, against
    /// the config's handlers and routes), as `check` reports a config.
    func check(_ options: LoadOptions, _ definition: Result<JSONValue, Diagnostic>) -> Int32 {
        let offline = OfflineCommands(console: console)
        var diagnostics = Diagnostics()
        var layouts: [(layout: LoadedLayout, initial: Bool)] = []
        switch definition {
        case .failure(let problem):
            diagnostics.append(problem)
        case .success(let value):
            guard let config = offline.loadConfig(options.config, reader: .configOption) else { return TapgridCLIMain.failure }
            let (layout, found) = PushedLayouts.check(options.name, definition: value, config: config)
            diagnostics.append(contentsOf: found)
            if let layout {
                layouts.append((layout, false))
                for warning in layout.resolved.geometryWarnings(layout: layout.name) { diagnostics.append(warning) }
            }
        }
        return offline.report(layouts: layouts, diagnostics, subject: options.file)
    }

    func unload(_ options: UseOptions) -> Int32 {
        guard let socket = daemon.socketPath(options.socket, config: options.config) else { return TapgridCLIMain.failure }
        let result = daemon.exchange(Request(op: .unload, layout: options.layout), socket: socket)
        return daemon.finish(result, json: options.json) { reply in
            HumanText.loaded(layout: options.layout, LoadReply(reply), unloaded: true)
        }
    }

    /// `show --format svg --socket`: the daemon's layout (`--layout`, else its current one) with
    /// every cell's state, from `{"op":"layouts","state":true}`.
    func showState(_ options: ShowOptions, socket: String) -> Int32 {
        switch daemon.exchange(line: ControlRequest.layoutsWithStateJSON + [0x0A], socket: socket) {
        case .failure(let exit): return exit.code
        case .success((.error(let error), let text)):
            console.error("\(error.code ?? "error"): \(error.message ?? text)")
            return TapgridCLIMain.failure
        case .success((.ok(let value), _)):
            let reply = LayoutsReply(value)
            guard let layout = reply.layout(named: options.layout) else {
                let names = reply.layouts.map { jsonEscaped($0.name) }.joined(separator: ", ")
                let wanted = options.layout.map { "no layout \(jsonEscaped($0))" } ?? "no current layout"
                console.error("\(wanted) in the daemon at \(socket); the layouts are \(names)")
                return TapgridCLIMain.failure
            }
            // Icons set in the state are drawn from this machine's Debian font, when it has it.
            let icons = layout.grids.contains { $0.state.icon != nil } ? try? ConfigLoader.readIconSet(IconSet.debianFont).get() : nil
            return OfflineCommands(console: console).write(SVGRenderer.render(layout, icons: icons), to: options.output)
        }
    }
}
