import TapgridArguments
import TapgridConfig
import TapgridCore
import TapgridSystem

/// `check`, `show` and offline `hit`: work on config files, no daemon.
struct OfflineCommands {
    let console: Console

    func configPath(_ given: String?) -> String {
        DefaultPaths.configPath(cli: given, environment: console.environment)
    }

    /// What to say when the config is missing: where its path came from, and how `reader` names another.
    func missingHint(_ reader: DefaultPaths.ConfigReader, given: String?) -> String? {
        DefaultPaths.missingConfigHint(reader, cli: given, environment: console.environment)
    }

    /// Loads the config named by `given` (else `$TAPGRID_CONFIG`, else the default), printing its
    /// errors (`Error: ...`, as every error of `tapgrid`); nil when it cannot be used. `reader`
    /// says how to name another config when it is missing.
    func loadConfig(_ given: String?, reader: DefaultPaths.ConfigReader) -> Config? {
        let (config, diagnostics) = ConfigLoader.load(path: configPath(given), missingHint: missingHint(reader, given: given))
        for error in diagnostics.errors { console.error(error.description) }
        return config
    }

    /// The layout to work on: `--layout`, else the config's initial layout.
    func layout(named name: String?, in config: Config) -> LoadedLayout? {
        let wanted = name ?? config.initialLayout
        if let index = config.layoutIndex(named: wanted) { return config.layouts[index] }
        console.error("no layout \(jsonEscaped(wanted)) in \(config.file); the layouts are \(config.layouts.map { jsonEscaped($0.name) }.joined(separator: ", "))")
        return nil
    }

    func check(_ options: CheckOptions) -> Int32 {
        let path = configPath(options.config)
        let (config, diagnostics) = ConfigLoader.check(path: path, missingHint: missingHint(.check, given: options.config))
        let layouts = config.map { config in config.layouts.map { ($0, $0.name == config.initialLayout) } } ?? []
        return report(layouts: layouts, diagnostics, subject: path)
    }

    /// What `check` (and `load --check`) print: a line per layout that loaded, one per error and
    /// warning, then `PATH: N errors, M warnings`. - Returns: 1 on any error, else 0.
    func report(layouts: [(layout: LoadedLayout, initial: Bool)], _ diagnostics: Diagnostics, subject: String) -> Int32 {
        for (layout, initial) in layouts {
            let hittable = layout.tree.nodes.reduce(0) { $0 + ($1.hittable ? 1 : 0) }
            let frame = layout.frame
            console.line("layout \(jsonEscaped(layout.name)): \(counted(layout.tree.count, "grid")), \(hittable) hittable (\(formatForPeople(frame.width))x\(formatForPeople(frame.height)) \(frame.direction.rawValue)\(frame.scale == 1 ? "" : " scale \(formatForPeople(frame.scale))"))\(initial ? ", initial" : "")")
        }
        for diagnostic in diagnostics.all {
            console.line("\(diagnostic.severity.rawValue): \(diagnostic)")
        }
        let errors = diagnostics.errors.count, warnings = diagnostics.warnings.count
        console.line("\(subject): \(counted(errors, "error")), \(counted(warnings, "warning"))")
        return errors > 0 ? TapgridCLIMain.failure : TapgridCLIMain.success
    }

    func show(_ options: ShowOptions) -> Int32 {
        if let socket = options.socket { return CellCommands(console: console).showState(options, socket: socket) }
        guard let config = loadConfig(options.config, reader: .show),
            let layout = layout(named: options.layout, in: config)
        else { return TapgridCLIMain.failure }
        let text: String
        switch options.format {
        case .json: text = LayoutRendering.json(layout, config: config)
        case .table: text = LayoutRendering.table(layout, config: config)
        case .svg: text = SVGRenderer.render(layout, styles: config.styles, icons: icons(for: config))
        }
        return write(text, to: options.output)
    }

    /// The icons the config's SVG draws from, read only when a grid names one (a font that cannot
    /// be read draws labels alone: `check` says why).
    func icons(for config: Config) -> IconSet? {
        guard config.layouts.contains(where: { $0.tree.looks.contains { $0.icon != nil } }) else { return nil }
        return ConfigLoader.readIcons(for: config).icons
    }

    /// Writes `text` to `output` (`--output`), else to standard output.
    func write(_ text: String, to output: String?) -> Int32 {
        if let output {
            do {
                let fd = try Files.openForWriting(output)
                try FD.writeAll(fd.rawValue, Array(text.utf8))
            } catch {
                console.error("cannot write \(output): \(error)")
                return TapgridCLIMain.failure
            }
            return TapgridCLIMain.success
        }
        console.out(text)
        return TapgridCLIMain.success
    }

    func hit(_ options: HitOptions) -> Int32 {
        guard let config = loadConfig(options.config, reader: .configOption),
            let layout = layout(named: options.layout, in: config)
        else { return TapgridCLIMain.failure }
        let found = layout.resolved.hit(x: options.x, y: options.y)
        let handler = found.flatMap { layout.tree.info(of: $0) }.flatMap { config.handlerName($0.handler) }
        if options.json {
            var object = JSONObjectWriter(.spaced)
            object.string("layout", layout.name)
            object.object("hit", found.map { layout.tree.hitObject(of: $0) })
            object.string("handler", handler)
            object.string("outcome", Outcome.checked.name.description)
            console.line(object.text)
        } else {
            console.line(HumanText.hit(layout: layout.name, grid: found.map { HitGrid(tree: layout.tree, index: $0) }, handler: handler))
        }
        return TapgridCLIMain.success
    }
}
