// The `tapgrid` command line: typed results, per-command declarations, and `parse`.

/// Options of `tapgrid tap X Y`.
public struct TapOptions: Sendable, Equatable {
    public var x: Double
    public var y: Double
    /// `--layout`; nil means the daemon's current layout.
    public var layout: String?
    /// `--socket`; nil means the default socket (see ``DefaultPaths``).
    public var socket: String?
    public var json: Bool

    public init(x: Double, y: Double, layout: String? = nil, socket: String? = nil, json: Bool = false) {
        self.x = x
        self.y = y
        self.layout = layout
        self.socket = socket
        self.json = json
    }
}

/// Options of `tapgrid touch X Y`: a finger pressed there for `holdMs`, then lifted (twice with `double`).
public struct TouchOptions: Sendable, Equatable {
    public var x: Double
    public var y: Double
    /// `--hold`: how long the finger stays down, in milliseconds.
    public var holdMs: Double
    /// `--double`: two quick taps.
    public var double: Bool
    public var layout: String?
    public var socket: String?
    public var json: Bool

    public init(x: Double, y: Double, holdMs: Double = 0, double: Bool = false, layout: String? = nil, socket: String? = nil,
                json: Bool = false) {
        self.x = x
        self.y = y
        self.holdMs = holdMs
        self.double = double
        self.layout = layout
        self.socket = socket
        self.json = json
    }
}

/// Options of `tapgrid hit X Y`: online through the daemon, or offline when ``config`` is set.
public struct HitOptions: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var layout: String?
    /// `--socket`; never set together with ``config``.
    public var socket: String?
    /// `--config`: hit-test offline against this file, without a daemon.
    public var config: String?
    public var json: Bool

    public init(
        x: Double, y: Double, layout: String? = nil, socket: String? = nil, config: String? = nil, json: Bool = false
    ) {
        self.x = x
        self.y = y
        self.layout = layout
        self.socket = socket
        self.config = config
        self.json = json
    }
}

/// Options of `tapgrid status`, `tapgrid reload` and `tapgrid wake`.
public struct ControlOptions: Sendable, Equatable {
    public var socket: String?
    /// `--config`: a config whose `socket.path` locates the daemon (after `--socket` and `$TAPGRID_SOCKET`).
    public var config: String?
    public var json: Bool

    public init(socket: String? = nil, config: String? = nil, json: Bool = false) {
        self.socket = socket
        self.config = config
        self.json = json
    }
}

/// Options of `tapgrid use LAYOUT` and `tapgrid unload LAYOUT`.
public struct UseOptions: Sendable, Equatable {
    public var layout: String
    public var socket: String?
    public var config: String?
    public var json: Bool

    public init(layout: String, socket: String? = nil, config: String? = nil, json: Bool = false) {
        self.layout = layout
        self.socket = socket
        self.config = config
        self.json = json
    }
}

/// The states `tapgrid screen` sets (docs/screen.md): the names of the core's `ScreenState`.
public enum ScreenTarget: String, Sendable, Equatable, CaseIterable {
    case on, dim, off
}

/// Options of `tapgrid screen STATE`.
public struct ScreenOptions: Sendable, Equatable {
    public var state: ScreenTarget
    public var socket: String?
    public var config: String?
    public var json: Bool

    public init(state: ScreenTarget, socket: String? = nil, config: String? = nil, json: Bool = false) {
        self.state = state
        self.socket = socket
        self.config = config
        self.json = json
    }
}

/// The keys of a grid's cell state (docs/cell-state.md "Cell state"), as `set` names them and `--clear` takes them.
public enum CellKey: String, Sendable, Equatable, CaseIterable {
    case text, active, value, enabled, icon, style
}

/// Options of `tapgrid set LAYOUT GRID`: the keys to set (nil: left as they are) and to clear.
public struct SetOptions: Sendable, Equatable {
    public var layout: String
    /// A grid's name or its path.
    public var grid: String
    public var text: String?
    public var active: Bool?
    /// `--value` as given: JSON text, read by the CLI (which has the JSON parser).
    public var value: String?
    public var enabled: Bool?
    /// `mdi:NAME` (docs/panel.md "What a cell shows").
    public var icon: String?
    /// A style name of the daemon's config.
    public var style: String?
    /// `--clear`, each key once, in the order first given; never a key that is also set.
    public var clear: [CellKey]
    public var socket: String?
    public var config: String?
    public var json: Bool

    public init(
        layout: String, grid: String, text: String? = nil, active: Bool? = nil, value: String? = nil, enabled: Bool? = nil,
        clear: [CellKey] = [], socket: String? = nil, config: String? = nil, json: Bool = false,
        icon: String? = nil, style: String? = nil
    ) {
        self.icon = icon
        self.style = style
        self.layout = layout
        self.grid = grid
        self.text = text
        self.active = active
        self.value = value
        self.enabled = enabled
        self.clear = clear
        self.socket = socket
        self.config = config
        self.json = json
    }
}

/// Options of `tapgrid load NAME FILE`: send the definition in `file` to the daemon, or with
/// `check` check it offline against `config` (never together with `socket`).
public struct LoadOptions: Sendable, Equatable {
    public var name: String
    public var file: String
    public var check: Bool
    public var socket: String?
    /// The config whose `socket.path` locates the daemon; with `check`, the config whose handlers
    /// and routes apply (nil: the default config).
    public var config: String?
    public var json: Bool

    public init(name: String, file: String, check: Bool = false, socket: String? = nil, config: String? = nil, json: Bool = false) {
        self.name = name
        self.file = file
        self.check = check
        self.socket = socket
        self.config = config
        self.json = json
    }
}

/// Options of `tapgrid check [CONFIG]`.
public struct CheckOptions: Sendable, Equatable {
    /// nil means the default config (see ``DefaultPaths/configPath(cli:environment:)``).
    public var config: String?

    public init(config: String? = nil) { self.config = config }
}

/// The formats of `tapgrid show --format`.
public enum ShowFormat: String, Sendable, Equatable, CaseIterable {
    case table, json, svg
}

/// Options of `tapgrid show [CONFIG]`.
public struct ShowOptions: Sendable, Equatable {
    public var config: String?
    /// nil means the config's `initialLayout`, or its only layout.
    public var layout: String?
    public var format: ShowFormat
    /// `--output`; nil means standard output.
    public var output: String?
    /// `--socket`: draw the running daemon's layout with its cell state (only with `.svg`, never
    /// with ``config``); nil: the config's layout, offline.
    public var socket: String?

    public init(
        config: String? = nil, layout: String? = nil, format: ShowFormat = .table, output: String? = nil, socket: String? = nil
    ) {
        self.config = config
        self.layout = layout
        self.format = format
        self.output = output
        self.socket = socket
    }
}

/// Options of `tapgrid replay EVENTS`: against ``config`` (default config when both are nil) or a
/// running daemon at ``socket``; never both. With ``dispatch`` the taps go to the daemon at
/// ``socket`` as real taps instead (``socket`` is then always set, ``config`` never).
public struct ReplayOptions: Sendable, Equatable {
    public var events: String
    public var config: String?
    public var socket: String?
    /// `--dispatch`: send the recorded taps as taps and count their outcomes.
    public var dispatch: Bool
    /// `--speed`: how many times faster than recorded the taps are sent; 0 means as fast as the
    /// daemon answers. Never negative; only meaningful with ``dispatch``.
    public var speed: Double
    public var json: Bool

    public init(
        events: String, config: String? = nil, socket: String? = nil, dispatch: Bool = false, speed: Double = 1,
        json: Bool = false
    ) {
        self.events = events
        self.config = config
        self.socket = socket
        self.dispatch = dispatch
        self.speed = speed
        self.json = json
    }
}

/// The subcommands of `tapgrid`, in help order.
public enum CLISubcommand: String, Sendable, Equatable, CaseIterable {
    case tap, touch, hit, status, reload, use, set, load, unload, wake, screen, check, show, replay

    /// The exact `tapgrid <sub> --help` text (ends with one newline).
    public var helpText: String { spec.helpText }

    /// The usage line, e.g. `tapgrid status [--socket <path>] [--config <path>] [--json]`.
    public var usage: String { spec.usage }

    /// A usage error of this subcommand found after parsing, by a module that can read what the
    /// arguments cannot (`set --value` that is not JSON): printed and exited 64 as any other.
    public func usageError(_ message: String) -> UsageError { spec.error(message) }
}

/// What a `tapgrid` command line asks for.
public enum CLICommand: Sendable, Equatable {
    case tap(TapOptions)
    case touch(TouchOptions)
    case hit(HitOptions)
    case status(ControlOptions)
    case reload(ControlOptions)
    case use(UseOptions)
    case set(SetOptions)
    case load(LoadOptions)
    case unload(UseOptions)
    case wake(ControlOptions)
    case screen(ScreenOptions)
    case check(CheckOptions)
    case show(ShowOptions)
    case replay(ReplayOptions)
    /// Print this text to stdout and exit 0: a help text, a completion script or a manual page.
    case help(String)
    /// Print ``tapgridVersion`` to stdout and exit 0.
    case version

    /// The exact `tapgrid --help` text (ends with one newline).
    public static var mainHelpText: String { CLISpecs.root.helpText }

    /// `Unknown subcommand 'stauts'; did you mean 'status'?`, or the list of subcommands when none is close.
    static func unknownSubcommand(_ word: String) -> UsageError {
        let names = CLISubcommand.allCases.map(\.rawValue)
        if let match = closestMatch(to: word, among: names) {
            return CLISpecs.root.error("Unknown subcommand '\(word)'; did you mean '\(match)'?")
        }
        return CLISpecs.root.error("Unknown subcommand '\(word)'; the subcommands are \(quotedList(names, lastJoiner: "and"))")
    }

    /// Parses `tapgrid`'s arguments.
    ///
    /// `tapgrid` alone prints the main help to stdout and exits 0: that is what swift-argument-parser
    /// does for a command group without a default subcommand (its default `run()` throws a help
    /// request). `-h`/`--help` anywhere before `--` gives the help of the subcommand named (or the
    /// main help); `--version` anywhere before `--` gives the version; `help [<subcommand>]` gives
    /// that help. An unknown subcommand, also after `help`, is `Unknown subcommand '…'` with a "did
    /// you mean" hint or the list of subcommands, against the main usage.
    /// - Parameter args: The arguments without `argv[0]`.
    /// - Returns: The command to run, with typed and validated options.
    /// - Throws: ``UsageError`` (print ``UsageError/stderrText`` to stderr, exit 64).
    public static func parse(_ args: [String]) throws(UsageError) -> CLICommand {
        let root = CLISpecs.root
        let subcommandIndex = args.firstIndex { !looksLikeOption($0) }
        var named = subcommandIndex.flatMap { CLISubcommand(rawValue: args[$0]) }
        if let subcommandIndex, args[subcommandIndex] == "help" {
            // `tapgrid help tap --help` is about `tap`.
            named = args[(subcommandIndex + 1)...].first { !looksLikeOption($0) }.flatMap(CLISubcommand.init(rawValue:))
        }

        switch builtInRequest(in: args) {
        case .help?: return .help(named?.helpText ?? root.helpText)
        case .version?: return .version
        case nil: break
        }
        guard let first = args.first else { return .help(root.helpText) }
        if looksLikeOption(first) {
            // `--` before the subcommand, the generators, or an option the group does not have.
            if first == "--" { throw root.error("Missing expected argument '<subcommand>'") }
            let p = try root.parse(args)
            if let shell = p.string("generate-completion-script").flatMap(CompletionShell.init(rawValue:)) {
                return .help(CompletionScripts.script(for: shell))
            }
            if p.flag("generate-manual") { return .help(ManualPages.tapgrid) }
            throw root.error("Missing expected argument '<subcommand>'")
        }
        if first == "help" {
            let topics = args.dropFirst()
            guard let topic = topics.first else { return .help(root.helpText) }
            guard let sub = CLISubcommand(rawValue: topic) else { throw unknownSubcommand(topic) }
            if topics.count > 1 { throw root.error("Unexpected argument '\(topics[topics.startIndex + 1])'") }
            return .help(sub.helpText)
        }
        guard let sub = CLISubcommand(rawValue: first) else { throw unknownSubcommand(first) }
        let p = try sub.spec.parse(args.dropFirst())

        switch sub {
        case .tap:
            return .tap(
                TapOptions(
                    x: p.number("x"), y: p.number("y"), layout: p.string("layout"), socket: p.string("socket"),
                    json: p.flag("json")))
        case .touch:
            let hold = p.number("hold")
            if hold < 0 || hold > 60_000 {
                throw CLISpecs.touch.error("The value '\(p.string("hold") ?? "")' is invalid for '--hold <ms>': expected milliseconds from 0 to 60000")
            }
            if p.flag("double") && hold > 0 {
                throw CLISpecs.touch.error("'--hold <ms>' and '--double' cannot be combined; use one or the other")
            }
            return .touch(
                TouchOptions(
                    x: p.number("x"), y: p.number("y"), holdMs: hold, double: p.flag("double"), layout: p.string("layout"),
                    socket: p.string("socket"), json: p.flag("json")))
        case .hit:
            return .hit(
                HitOptions(
                    x: p.number("x"), y: p.number("y"), layout: p.string("layout"), socket: p.string("socket"),
                    config: p.string("config"), json: p.flag("json")))
        case .status:
            return .status(ControlOptions(socket: p.string("socket"), config: p.string("config"), json: p.flag("json")))
        case .reload:
            return .reload(ControlOptions(socket: p.string("socket"), config: p.string("config"), json: p.flag("json")))
        case .use:
            return .use(
                UseOptions(
                    layout: p.string("layout") ?? "", socket: p.string("socket"), config: p.string("config"),
                    json: p.flag("json")))
        case .set:
            return .set(try setOptions(p))
        case .load:
            if p.flag("check"), p.flag("json") {
                throw CLISpecs.load.error("'--check' and '--json' cannot be combined; --check prints a report, as tapgrid check does")
            }
            return .load(
                LoadOptions(
                    name: p.string("name") ?? "", file: p.string("file") ?? "", check: p.flag("check"), socket: p.string("socket"),
                    config: p.string("config"), json: p.flag("json")))
        case .unload:
            return .unload(
                UseOptions(
                    layout: p.string("layout") ?? "", socket: p.string("socket"), config: p.string("config"),
                    json: p.flag("json")))
        case .wake:
            return .wake(ControlOptions(socket: p.string("socket"), config: p.string("config"), json: p.flag("json")))
        case .screen:
            return .screen(
                ScreenOptions(
                    state: p.string("state").flatMap(ScreenTarget.init(rawValue:)) ?? .on, socket: p.string("socket"),
                    config: p.string("config"), json: p.flag("json")))
        case .check:
            return .check(CheckOptions(config: p.string("config")))
        case .show:
            let format = p.string("format").flatMap(ShowFormat.init(rawValue:)) ?? .table
            if p.string("socket") != nil {
                if p.string("config") != nil {
                    throw CLISpecs.show.error("'<config>' and '--socket <path>' cannot be combined; with --socket the layout comes from the running daemon")
                }
                if format != .svg {
                    throw CLISpecs.show.error("'--socket <path>' only applies to '--format svg'; add --format svg to draw the daemon's layout with its cell state")
                }
            }
            return .show(
                ShowOptions(
                    config: p.string("config"), layout: p.string("layout"), format: format, output: p.string("output"),
                    socket: p.string("socket")))
        case .replay:
            let spec = CLISpecs.replay
            let dispatch = p.flag("dispatch")
            // Sending real taps runs real actions: the daemon that gets them is named, never found
            // from the environment, and a config (which would mean "offline") is refused.
            if dispatch, p.string("config") != nil {
                throw spec.error("'--dispatch' and '--config <path>' cannot be combined; --dispatch sends the taps to the daemon named by '--socket <path>'")
            }
            if dispatch, p.string("socket") == nil {
                throw spec.error("'--dispatch' needs '--socket <path>' to name the running daemon that gets the taps")
            }
            if !dispatch, p.string("speed") != nil {
                throw spec.error("'--speed <factor>' only applies to '--dispatch'; add --dispatch or leave --speed out")
            }
            return .replay(
                ReplayOptions(
                    events: p.string("events") ?? "", config: p.string("config"), socket: p.string("socket"),
                    dispatch: dispatch, speed: p.string("speed").flatMap(Double.init) ?? 1, json: p.flag("json")))
        }
    }
}

extension CLICommand {
    /// `set`'s options: at least one key to change, and no key both set and cleared.
    static func setOptions(_ p: ParsedArguments) throws(UsageError) -> SetOptions {
        let spec = CLISpecs.set
        var clear: [CellKey] = []
        for key in p.strings("clear").compactMap(CellKey.init(rawValue:)) where !clear.contains(key) { clear.append(key) }
        for key in clear where p.string(key.rawValue) != nil {
            let option = spec.argument(key.rawValue, positional: false)?.synopsis ?? key.rawValue
            throw spec.error("'\(option)' and '--clear \(key.rawValue)' cannot be combined; one sets \(key.rawValue), the other clears it")
        }
        if clear.isEmpty, CellKey.allCases.allSatisfy({ p.string($0.rawValue) == nil }) {
            throw spec.error("Nothing to set: give at least one of '--text <text>', '--active <bool>', '--value <json>', '--enabled <bool>', '--icon <mdi:name>', '--style <name>' or '--clear <key>'")
        }
        return SetOptions(
            layout: p.string("layout") ?? "", grid: p.string("grid") ?? "", text: p.string("text"),
            active: p.string("active").map { $0 == "true" }, value: p.string("value"),
            enabled: p.string("enabled").map { $0 == "true" }, clear: clear, socket: p.string("socket"),
            config: p.string("config"), json: p.flag("json"), icon: p.string("icon"), style: p.string("style"))
    }
}

extension CLISubcommand {
    var spec: CommandSpec {
        switch self {
        case .tap: return CLISpecs.tap
        case .touch: return CLISpecs.touch
        case .hit: return CLISpecs.hit
        case .status: return CLISpecs.status
        case .reload: return CLISpecs.reload
        case .use: return CLISpecs.use
        case .set: return CLISpecs.set
        case .load: return CLISpecs.load
        case .unload: return CLISpecs.unload
        case .wake: return CLISpecs.wake
        case .screen: return CLISpecs.screen
        case .check: return CLISpecs.check
        case .show: return CLISpecs.show
        case .replay: return CLISpecs.replay
        }
    }
}

/// How many taps `replay --dispatch` leaves unanswered at most: enough to keep the daemon busy
/// (it answers each line at once), few enough that neither side's socket buffer fills up while
/// the other waits. Named in the help of `--speed`.
public let replayDispatchWindow = 64

/// Help phrases shared by several commands and by `tapgridd`.
enum HelpPhrases {
    static let defaultConfig = "$TAPGRID_CONFIG or /etc/tapgrid/tapgrid.json"
    static let defaultSocketTail =
        "$RUNTIME_DIRECTORY/tapgrid.sock, $XDG_RUNTIME_DIR/tapgrid.sock or /run/tapgrid/tapgrid.sock"
    static let defaultSocket = "$TAPGRID_SOCKET, " + defaultSocketTail
}

/// The declarations of `tapgrid` and its subcommands.
enum CLISpecs {
    static let x = ArgumentSpec.positional(
        "x", .finiteNumber, help: "Horizontal position in layout coordinates (a number; may be negative).")
    static let y = ArgumentSpec.positional(
        "y", .finiteNumber, help: "Vertical position in layout coordinates (a number; may be negative).")
    static let socket = ArgumentSpec.option(
        "socket", value: "path", help: "Socket of the running daemon.", default: HelpPhrases.defaultSocket)
    static let controlSocket = ArgumentSpec.option(
        "socket", value: "path", help: "Socket of the running daemon.",
        default: "$TAPGRID_SOCKET, the --config file's socket.path, " + HelpPhrases.defaultSocketTail)
    static let controlConfig = ArgumentSpec.option(
        "config", value: "path",
        help: "Find the daemon's socket from this config's socket.path (used after --socket and $TAPGRID_SOCKET).")

    static let root = CommandSpec(
        path: ["tapgrid"],
        abstract: "Send taps to the tapgrid daemon and control it; check, show and replay configurations offline.",
        arguments: [
            ArgumentSpec.option(
                "generate-completion-script", value: "shell", .oneOf(CompletionShell.allCases.map(\.rawValue)),
                help: "Print tapgrid's completion script for this shell.").hiddenFromUsage(),
            ArgumentSpec.flag("generate-manual", help: "Print the manual page tapgrid(1) in roff (man -l - reads it).")
                .hiddenFromUsage(),
        ],
        exclusiveGroups: [["generate-completion-script", "generate-manual"]],
        subcommands: CLISubcommand.allCases.map { SubcommandSummary(name: $0.rawValue, abstract: $0.spec.abstract) },
        docs: [DocPages.commands])

    static let tap = CommandSpec(
        path: ["tapgrid", "tap"],
        abstract: "Tap at (<x>, <y>): the daemon hit-tests, routes and dispatches it, and this prints the outcome.",
        arguments: [
            x, y,
            .option("layout", value: "name", help: "Layout to tap in.", default: "the daemon's current layout"),
            socket,
            .flag("json", help: "Print the daemon's reply as JSON."),
        ],
        docs: [DocPages.commands, DocPages.socketProtocol])

    static let touch = CommandSpec(
        path: ["tapgrid", "touch"],
        abstract: "Press a finger at (<x>, <y>) and lift it, to try tap classes: a tap, a long press or hold, a double tap.",
        arguments: [
            x, y,
            .option("hold", value: "ms", .finiteNumber, help: "How long the finger stays down, in milliseconds.", default: "0"),
            .flag("double", help: "Tap twice, quickly."),
            .option("layout", value: "name", help: "Layout to press on.", default: "the daemon's current layout"),
            socket,
            .flag("json", help: "Print the daemon's replies as JSON, one per line."),
        ],
        docs: [DocPages.touch])

    static let hit = CommandSpec(
        path: ["tapgrid", "hit"],
        abstract: "Hit-test (<x>, <y>) without dispatching anything, through the daemon or offline with --config.",
        arguments: [
            x, y,
            .option(
                "layout", value: "name", help: "Layout to hit-test.",
                default: "the daemon's current layout; with --config, the config's initialLayout or only layout"),
            socket,
            .option("config", value: "path", help: "Hit-test offline against this config file; no daemon needed."),
            .flag("json", help: "Print the hit as JSON, the same object as the socket's hit reply."),
        ],
        exclusiveGroups: [["socket", "config"]],
        docs: [DocPages.commands, DocPages.socketProtocol])

    static let status = CommandSpec(
        path: ["tapgrid", "status"],
        abstract: "Print the running daemon's state: current layout, config generation and tap count.",
        arguments: [controlSocket, controlConfig, .flag("json", help: "Print the daemon's reply as JSON.")],
        docs: [DocPages.socketProtocol])

    static let reload = CommandSpec(
        path: ["tapgrid", "reload"],
        abstract: "Make the daemon re-read its config; a config that fails to load leaves the old one running.",
        arguments: [controlSocket, controlConfig, .flag("json", help: "Print the daemon's reply as JSON.")],
        docs: [DocPages.socketProtocol])

    static let use = CommandSpec(
        path: ["tapgrid", "use"],
        abstract: "Make <layout> the daemon's current layout.",
        arguments: [
            .positional("layout", help: "Name of one of the daemon's layouts: a config's or a pushed one."),
            controlSocket, controlConfig,
            .flag("json", help: "Print the daemon's reply as JSON."),
        ],
        docs: [DocPages.socketProtocol])

    static let trueOrFalse = ArgumentSpec.ValueKind.oneOf(["true", "false"])

    static let set = CommandSpec(
        path: ["tapgrid", "set"],
        abstract: "Set a grid's cell state in the daemon (what a panel shows and handlers read); keys left out keep their value.",
        arguments: [
            .positional("layout", help: "Layout of the grid: one of the config's or a pushed one."),
            .positional("grid", help: "The grid's name, or its path (\"0/1\"; \"\" is the root)."),
            .option("text", value: "text", help: "The text the cell shows (at most 256 bytes)."),
            .option("active", value: "bool", trueOrFalse, help: "Whether the cell is on (a toggle grid flips it on each tap)."),
            .option(
                "value", value: "json",
                help: "Any JSON value, which handlers read in TAPGRID_VALUE (at most 4 KiB; a string needs its quotes: '\"on\"')."),
            .option("enabled", value: "bool", trueOrFalse, help: "false: taps on the grid get outcome disabled: recorded, not routed."),
            .option("icon", value: "mdi:name", help: "The icon the cell shows instead of its grid's (a Material Design Icons name: mdi:lightbulb)."),
            .option("style", value: "name", help: "One of the config's styles, shown instead of the grid's own (over default)."),
            .option(
                "clear", value: "key", .oneOf(CellKey.allCases.map(\.rawValue)),
                help: "Clear this key back to null (repeat it for more keys).").repeating(),
            controlSocket, controlConfig,
            .flag("json", help: "Print the daemon's reply as JSON."),
        ],
        docs: [DocPages.cellState])

    static let load = CommandSpec(
        path: ["tapgrid", "load"],
        abstract:
            "Push a layout to the daemon (or replace a config layout of that name) from a file holding its definition; with --check, check the file offline instead.",
        arguments: [
            .positional("name", help: "Name of the layout to load."),
            .positional(
                "file",
                help: "JSON file holding the layout's definition: what a config's layouts entry holds (width, height, grid inline)."),
            .flag(
                "check",
                help:
                    "Check the definition offline, as the daemon would, against the handlers and routes of --config; print errors and warnings, exit 1 on any error."),
            controlSocket,
            .option(
                "config", value: "path",
                help:
                    "Find the daemon's socket from this config's socket.path (used after --socket and $TAPGRID_SOCKET); with --check, the config whose handlers and routes apply.",
                default: "with --check, " + HelpPhrases.defaultConfig),
            .flag("json", help: "Print the daemon's reply as JSON."),
        ],
        exclusiveGroups: [["check", "socket"]],
        docs: [DocPages.cellState])

    static let unload = CommandSpec(
        path: ["tapgrid", "unload"],
        abstract: "Remove a layout pushed with load; a config layout of that name comes back.",
        arguments: [
            .positional("layout", help: "Name of a layout pushed with load."),
            controlSocket, controlConfig,
            .flag("json", help: "Print the daemon's reply as JSON."),
        ],
        docs: [DocPages.cellState])

    static let wake = CommandSpec(
        path: ["tapgrid", "wake"],
        abstract: "Light the daemon's screen, as a touch would without pressing anything; its dim and off timers start again.",
        arguments: [controlSocket, controlConfig, .flag("json", help: "Print the daemon's reply as JSON.")],
        docs: [DocPages.screen])

    static let screen = CommandSpec(
        path: ["tapgrid", "screen"],
        abstract: "Turn the daemon's screen on, dim it, or turn it off until a touch or a wake.",
        arguments: [
            .positional("state", .oneOf(ScreenTarget.allCases.map(\.rawValue)), help: "The screen's new state."),
            controlSocket, controlConfig,
            .flag("json", help: "Print the daemon's reply as JSON."),
        ],
        docs: [DocPages.screen])

    static let check = CommandSpec(
        path: ["tapgrid", "check"],
        abstract: "Validate a config file and its layouts; print errors and warnings, exit 1 on any error.",
        arguments: [
            .positional("config", optional: true, help: "Config file to check. (default: \(HelpPhrases.defaultConfig))")
        ],
        docs: [DocPages.commands, DocPages.configuration])

    static let show = CommandSpec(
        path: ["tapgrid", "show"],
        abstract: "Print a layout's resolved grids as a table, JSON or SVG; with --socket, draw the running daemon's layout with its cell state.",
        arguments: [
            .positional("config", optional: true, help: "Config file to read. (default: \(HelpPhrases.defaultConfig))"),
            .option("layout", value: "name", help: "Layout to show.", default: "the config's initialLayout or only layout"),
            .option("format", value: "format", .oneOf(ShowFormat.allCases.map(\.rawValue)), help: "Output format.",
                default: ShowFormat.table.rawValue),
            .option("output", value: "file", help: "Write to this file instead of standard output."),
            .option(
                "socket", value: "path",
                help:
                    "Draw the running daemon's layout instead, with each cell's state (its text, active and disabled cells); --format svg only, --layout defaults to the daemon's current layout."),
        ],
        docs: [DocPages.commands, DocPages.layouts])

    static let replay = CommandSpec(
        path: ["tapgrid", "replay"],
        abstract:
            "Hit-test and route the taps of an event log again (dispatching nothing) and report each one that differs; exit 1 if any does. With --dispatch, send them to the daemon as real taps.",
        arguments: [
            .positional("events", help: "Event log to replay (JSON Lines, as the daemon writes it)."),
            .option("config", value: "path", help: "Config to replay against.", default: HelpPhrases.defaultConfig),
            .option(
                "socket", value: "path",
                help:
                    "Replay against the daemon listening here, with hit requests (nothing is dispatched or logged); with --dispatch, the daemon that gets the taps."),
            .flag(
                "dispatch",
                help:
                    "Send the taps to the daemon at --socket as real taps (run and logged, each with its recorded layout), spaced as recorded, and count their outcomes; exit 0 once every tap is answered."),
            .option(
                "speed", value: "factor", .nonNegativeNumber,
                help:
                    "With --dispatch: play the recording this many times as fast (2: twice as fast; 0: as fast as the daemon answers, at most \(replayDispatchWindow) taps unanswered).",
                default: "1"),
            .flag("json", help: "Print one JSON object per difference, then a summary object (with --dispatch: the outcome counts)."),
        ],
        exclusiveGroups: [["config", "socket"]],
        docs: [DocPages.eventLogAndReplay])
}
