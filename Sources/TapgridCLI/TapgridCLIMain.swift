import TapgridArguments
import TapgridConfig
import TapgridCore
import TapgridSystem

/// The `tapgrid` command: parses arguments, runs the command, returns the exit code.
public enum TapgridCLIMain {
    /// Exit codes (docs/commands.md "Commands").
    public static let success: Int32 = 0, failure: Int32 = 1, usage: Int32 = 64, unavailable: Int32 = 69

    /// - Parameter arguments: the full argv, program name first.
    /// Runs `tapgrid` with the process's arguments and exits with its code.
    public static func run() -> Never { CurrentProcess.exit(main(CommandLine.arguments)) }

    public static func main(_ arguments: [String], console: Console = .standard()) -> Int32 {
        let command: CLICommand
        do {
            command = try CLICommand.parse(Array(arguments.dropFirst()))
        } catch {
            console.err(error.stderrText)
            return usage
        }
        switch command {
        case .help(let text):
            console.out(text)
            return success
        case .version:
            console.line("tapgrid \(tapgridVersion)")
            return success
        case .check(let options):
            return OfflineCommands(console: console).check(options)
        case .show(let options):
            return OfflineCommands(console: console).show(options)
        case .hit(let options) where options.config != nil:
            return OfflineCommands(console: console).hit(options)
        case .hit(let options):
            return DaemonCommands(console: console).hit(options)
        case .tap(let options):
            return DaemonCommands(console: console).tap(options)
        case .touch(let options):
            return TouchCommand(console: console).run(options)
        case .status(let options):
            return DaemonCommands(console: console).control(op: .status, options: options)
        case .reload(let options):
            return DaemonCommands(console: console).control(op: .reload, options: options)
        case .use(let options):
            return DaemonCommands(console: console).use(options)
        case .set(let options):
            return CellCommands(console: console).set(options)
        case .load(let options):
            return CellCommands(console: console).load(options)
        case .unload(let options):
            return CellCommands(console: console).unload(options)
        case .wake(let options):
            return DaemonCommands(console: console).wake(options)
        case .screen(let options):
            return DaemonCommands(console: console).screen(options)
        case .replay(let options):
            if let code = replayPreflight(options, console: console) { return code }
            return ReplayCommand(console: console).run(options)
        }
    }

    /// What `replay` cannot get past, said before it starts: a missing default config or one named
    /// by `$TAPGRID_CONFIG` (with where its path came from and how to name another, `--socket` included) or a `--socket` that is no socket or may not be opened.
    /// - Returns: the exit code when replay must not start, else nil.
    static func replayPreflight(_ options: ReplayOptions, console: Console) -> Int32? {
        if let socket = options.socket {
            guard let problem = SocketProblem.diagnose(socket) else { return nil }
            console.error(problem)
            return unavailable
        }
        // A path named with --config is the user's own: replay's load says what is wrong with it.
        guard let hint = DefaultPaths.missingConfigHint(.replay, cli: options.config, environment: console.environment) else {
            return nil
        }
        let path = DefaultPaths.configPath(cli: options.config, environment: console.environment)
        do throws(SystemError) {
            _ = try Files.status(path)
            return nil
        } catch {
            guard error.isMissingFile else { return nil }  // replay says what else is wrong with it
            console.error("cannot read \(path): \(error.errno); \(hint)")
            return failure
        }
    }
}
