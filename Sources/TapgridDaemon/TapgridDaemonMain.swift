import TapgridArguments
import TapgridConfig
import TapgridCore
import TapgridMQTT
import Synchronization
import TapgridSystem
import TapgridSystemd

/// `tapgridd`'s entry point as a library function, so the executable is one line.
public enum TapgridDaemonMain {
    /// The signals read through the signalfd; blocked in `main` before any thread exists, so every
    /// later thread (the config loads' workers, the broker's name lookups) inherits the mask and
    /// none of them is delivered normally.
    static let handledSignals: [CInt] = [Signals.terminate, Signals.interrupt, Signals.hangup, Signals.user1, Signals.child]

    /// Runs the daemon.
    /// - Parameter arguments: the full command line, program name first.
    /// - Returns: the exit code: 0 (clean shutdown, or `--check` of a valid config), 1 (invalid
    ///   config, cannot listen), 64 (usage error).
    /// Runs `tapgridd` with the process's arguments and exits with its code.
    public static func run() -> Never { CurrentProcess.exit(main(CommandLine.arguments)) }

    public static func main(_ arguments: [String]) -> Int32 {
        let options: DaemonOptions
        do throws(UsageError) {
            switch try DaemonCommand.parse(Array(arguments.dropFirst())) {
            case .help(let text):
                print(text, terminator: "")
                return 0
            case .version:
                print("tapgridd \(tapgridVersion)")
                return 0
            case .run(let parsed): options = parsed
            }
        } catch {
            Stderr.write(error.stderrText)
            return UsageError.exitCode
        }
        let environment = CurrentProcess.environment()
        let log = LogSink(
            verbose: options.verbose, journal: Journal.standardErrorIsJournal(),
            priorityPrefixes: environment["JOURNAL_STREAM"] != nil)
        let configPath = DefaultPaths.configPath(cli: options.config, environment: environment)

        if options.check {
            // The same checks as `tapgrid check`, geometry warnings included.
            let (config, diagnostics) = ConfigLoader.check(path: configPath)
            for diagnostic in diagnostics.all {
                Stderr.write("\(diagnostic.severity.rawValue): \(diagnostic.description)\n")
            }
            guard let config, !diagnostics.hasErrors else { return 1 }
            Stderr.write("\(configPath): valid, \(counted(config.layouts.count, "layout"))\n")
            return 0
        }

        // Signals first: before the reload worker or anything else could start a thread.
        do throws(Errno) {
            try Signals.block(handledSignals)
        } catch {
            log.error("cannot block signals: \(error)")
            return 1
        }
        Signals.ignoreSIGPIPE()
        let signals: SignalFD
        do throws(Errno) {
            signals = try SignalFD(signals: handledSignals)
        } catch {
            log.error("cannot create a signalfd: \(error)")
            return 1
        }
        do throws(Errno) {
            let limit = try CurrentProcess.raiseFileLimit()
            log.debug("descriptor limit: \(limit)")
        } catch {
            log.warning("cannot raise the descriptor limit: \(error)")
        }

        let manager = ServiceManager(log: log)
        let initial = loadInitialConfig(path: configPath, manager: manager)
        let diagnostics = initial.diagnostics
        for warning in diagnostics.warnings { log.warning(warning.description) }
        guard let config = initial.config, !diagnostics.hasErrors else {
            for error in diagnostics.errors { log.error(error.description) }
            if diagnostics.errors.isEmpty { log.error("\(configPath): the config could not be loaded") }
            return 1
        }
        if config.mqtt != nil {
            do throws(MQTTError) { try MQTTLibrary.initialize() } catch {
                log.error("mqtt: \(error)")
                return 1
            }
        }

        // The socket: the one systemd passes (socket activation), else our own.
        let listener: OwnedFD
        let ownSocket: String?
        let listening: String
        let passedPanel: PassedDescriptor?
        do throws(SystemdError) {
            let passedSockets = try PassedSockets.listeners()
            passedPanel = passedSockets.panel
            if let passed = passedSockets.socket {
                try PassedSockets.checkUnixStreamListener(passed)
                do throws(SystemError) {
                    listener = try UnixSocket.adoptListener(passed.fd)
                } catch {
                    log.error(error.description)
                    return 1
                }
                ownSocket = nil
                listening = "the socket systemd passed (\(passed.name))"
            } else {
                let path = DefaultPaths.socketPath(
                    cli: options.socket, environment: environment, configSocketPath: config.socket.path)
                do throws(SystemError) {
                    listener = try UnixSocket.listen(path: path, mode: config.socket.mode, backlog: 1024)
                } catch {
                    log.error(error.description)
                    return 1
                }
                ownSocket = path
                listening = path
            }
        } catch {
            log.error("socket activation: \(error)")
            return 1
        }
        let panelListener = config.panel.flatMap { PanelListener.open($0, passed: passedPanel, log: log) }
        let daemon: Daemon
        do throws(Errno) {
            daemon = try Daemon(
                config: config, configPath: configPath, socketPath: ownSocket, listener: listener,
                signals: signals, log: log, manager: manager, environment: environment, secrets: initial.secrets,
                panelListener: panelListener, icons: initial.icons)
        } catch {
            log.error("cannot set up the event loop: \(error)")
            if let ownSocket { try? Files.remove(ownSocket) }
            return 1
        }
        log.info(
            "listening on \(listening) (config \(configPath), generation 1, layout \(daemon.output.engine.currentLayoutName), event log \(daemon.eventLog.path ?? "off"))"
        )
        return daemon.run()
    }

    /// Loads the config at start. Under systemd, on a worker thread while this one tells systemd
    /// every second that start-up goes on (`EXTEND_TIMEOUT_USEC`), so a huge config is not
    /// killed by `TimeoutStartSec=`; otherwise inline.
    static func loadInitialConfig(path: String, manager: ServiceManager) -> LoadResult {
        guard CurrentProcess.environment("NOTIFY_SOCKET") != nil, let done = try? EventFD() else {
            return LoadResult.load(path: path)
        }
        let result = Mutex<LoadResult?>(nil)
        let notifier = done.notifier
        Threads.detach {
            let loaded = LoadResult.load(path: path)
            result.withLock { $0 = loaded }
            notifier.signal()
        }
        while !done.wait(timeoutMilliseconds: 1000) {
            manager.notify([.extendTimeout(microseconds: 5_000_000), .status("loading \(path)")])
        }
        return result.withLock { $0 }!
    }
}
