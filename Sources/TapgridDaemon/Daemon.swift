import TapgridConfig
import TapgridCore
import TapgridHTTP
import TapgridSystem
import TapgridSystemd

/// The composition root: builds the loop, the socket server, the request endpoint and router,
/// the tap output, touch input, the child supervisor, the event log, `cells.json`, the fleet and
/// the panel, wires them, says in which order every wakeup ends (`endWakeup`), and carries out
/// the `Lifecycle`'s actions for signals, reloads and shutdown. All of it runs on the one
/// event-loop thread; what crosses threads goes through the `Reloader`'s inbox and the
/// `FleetLink`'s name-resolution inbox, each with an eventfd.
final class Daemon: LoopHandler, DaemonControl {
    let configPath: String
    let log: LogSink
    let environment: [String: String]
    let loop: EventLoop
    let server: SocketServer
    let output: TapOutput
    let touch: TouchInput
    let router: RequestRouter
    /// The request path of the transports without a socket (the fleet, the panel, a reload's answer).
    let endpoint: RequestEndpoint
    let eventLog: EventLog
    /// `cells.json`, beside the event log: the cell state kept across restarts.
    let cellsFile: CellsFile
    /// The touchscreens `touch` names, read through libinput on the loop.
    let touchscreens: TouchscreenInput
    private let manager: ServiceManager
    private let signals: SignalFD
    private let wake: EventFD
    private let reloader: Reloader
    /// (Loop-owned: unchecked, as `EventLoop`'s wakeup properties.)
    @exclusivity(unchecked) private var lifecycle = Lifecycle()
    /// Connections answered by the running load, and by the one queued after it.
    private var reloadWaiters: [Connection] = []
    private var nextReloadWaiters: [Connection] = []
    /// The shutdown phase's next check.
    private var shutdownCheck: LoopTimer!
    /// The config as loaded from its file; the engine runs it with `pushed` layered over it.
    var baseConfig: Config
    /// Layouts pushed with `load`, kept over reloads.
    var pushed = PushedLayouts()
    /// The MQTT fleet connection, with `mqtt` in the config (docs/fleet.md).
    private(set) var fleet: Fleet?
    /// The browser panel, with `panel` in the config and its socket open (docs/panel.md).
    private(set) var panel: Panel?
    /// The screen, with `screen` in the config (docs/screen.md).
    private(set) var screen: Screen?

    private static let signalsToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1

    /// - Parameter socketPath: the socket file we created (removed at shutdown if it is still
    ///   ours), nil when systemd passed the socket (systemd owns it).
    init(
        config: Config, configPath: String, socketPath: String?, listener: consuming OwnedFD,
        signals: consuming SignalFD, log: LogSink, manager: ServiceManager, environment: [String: String],
        secrets: ConfigSecrets = ConfigSecrets(), panelListener: consuming PanelListener? = nil, icons: IconSet? = nil
    ) throws(Errno) {
        self.configPath = configPath
        self.log = log
        self.manager = manager
        self.environment = environment
        self.signals = signals
        baseConfig = config
        loop = try EventLoop()
        wake = try EventFD()
        reloader = Reloader(notifier: wake.notifier)
        eventLog = EventLog(runID: CurrentProcess.randomRunID(), log: log)
        let supervisor = ChildSupervisor(loop: loop, environment: environment)
        output = TapOutput(engine: TapEngine(config: config, generation: 1), eventLog: eventLog, log: log, supervisor: supervisor)
        touch = TouchInput(output: output, loop: loop)
        router = RequestRouter(output: output, touch: touch, daemonUID: CurrentProcess.uid)
        endpoint = RequestEndpoint(router: router)
        server = try SocketServer(
            loop: loop, listener: listener, socketPath: socketPath, admission: SocketServer.Admission(config),
            lineHandler: endpoint, log: log, clock: output.clock)
        cellsFile = CellsFile(
            path: CellsFile.resolvePath(config.eventLog, environment: environment), output: output, loop: loop, log: log)
        touchscreens = TouchscreenInput(loop: loop, log: log, sink: touch)
        supervisor.onExit = { [unowned output] exit in output.childExited(exit) }
        supervisor.onOutput = { [unowned output] line in output.childOutput(line) }
        router.control = self
        _ = try loop.register(self.signals.fd.rawValue, events: .readable, handler: self, token: Self.signalsToken)
        _ = try loop.register(wake.fd.rawValue, events: .readable, handler: self, token: Self.wakeToken)
        shutdownCheck = loop.makeTimer { [unowned self] in progress() }
        eventLog.configure(path: EventLog.resolvePath(config.eventLog, environment: environment))
        if let settings = config.mqtt {
            let node = settings.node ?? Self.nodeName(CurrentProcess.hostName())
            let topics = FleetTopics(prefix: settings.prefix, node: node, groups: settings.groups, homeAssistantPrefix: nil)
            fleet = try Fleet(
                settings: settings, node: node, eventLogPath: eventLog.path, loop: loop, log: log, output: output, router: router,
                endpoint: endpoint, daemonUID: CurrentProcess.uid
            ) { [loop, log] delegate throws(Errno) in
                try FleetLink(
                    settings: settings, clientID: "tapgrid-" + node, will: (topics.availability, Array("offline".utf8)),
                    password: secrets.mqttPassword, loop: loop, log: log, delegate: delegate)
            }
            if eventLog.path == nil { eventLog.memorySink = { [unowned fleet = fleet!] record in fleet.memoryEvent(record) } }
        }
        if let settings = config.panel, let listener = panelListener.take() {
            panel = Self.startPanel(
                settings, token: secrets.panelToken, listener: listener, loop: loop, log: log, output: output,
                endpoint: endpoint, server: server)
        }
        panel?.icons = icons
        if fleet != nil || panel != nil { output.outbox = Outbox() }
        output.mqttHandler = fleet
        loop.onWakeupEnd { [unowned self] in endWakeup() }
        if let settings = config.screen {
            screen = Screen(settings: settings, configPath: configPath, loop: loop, log: log, output: output)
            touch.screen = screen
        }
        fleet?.screenState = { [unowned self] in screen?.machine.state }
        panel?.screenState = { [unowned self] in screen?.machine.state }
        cellsFile.restore()  // before the loop runs: the first client sees the state kept
        touchscreens.configure(config.touch)
        let movedCheck = loop.makeTimer(every: EventLog.movedCheckNanos) { [unowned eventLog] in eventLog.reopenIfMoved() }
        loop.schedule(movedCheck, after: EventLog.movedCheckNanos)
        // Loading left the parse's transient blocks freed in the heap (the loader thread's arena
        // too): give their pages back, so the resident size is what the config needs (`make bench`
        // measured 17 MB idle for 10,000 grids without this).
        Memory.returnFreePages()
    }

    /// Runs the loop until the lifecycle has stopped.
    /// - Returns: the exit code (0 after a graceful shutdown, 1 if epoll itself failed).
    func run() -> Int32 {
        perform(lifecycle.handle(.started, now: Clock.monotonicNanos()))
        manager.start(on: loop) { [unowned self] in lifecycle.isStopping ? nil : statusText() }
        screen?.start()
        fleet?.start()
        defer { loop.releaseOwners() }
        do throws(Errno) {
            try loop.run { lifecycle.phase == .stopped }
        } catch {
            log.error("epoll_wait failed: \(error)")
            return 1
        }
        return 0
    }

    func handle(token: UInt64, events: EpollEvents) {
        if token == Self.wakeToken {
            _ = wake.drain()
            for result in reloader.takeResults() { finishReload(result) }
        } else {
            handleSignals()
        }
    }

    private func handleSignals() {
        let pending: [CInt]
        do throws(Errno) { pending = try signals.readPending() } catch {
            log.error("reading signals failed: \(error)")
            return
        }
        for signo in pending {
            switch signo {
            case Signals.terminate, Signals.interrupt:
                perform(lifecycle.handle(.stopRequested(signal: Signals.name(signo)), now: Clock.monotonicNanos()))
            case Signals.hangup:
                guard !lifecycle.isStopping else { continue }
                log.info("SIGHUP: reloading \(configPath)")
                requestReload(from: nil)
            case Signals.user1:
                eventLog.reopen()
                cellsFile.retry()
            case Signals.child: break  // children are watched through their pidfds by the supervisor
            default: log.debug("signal \(Signals.name(signo)) ignored")
            }
        }
    }

    // MARK: - The end of every wakeup

    /// What every wakeup of the loop ends with, in this order, each owner's phase once for
    /// everything it served in the wakeup:
    /// 1. replies: the socket's, each connection's after the records staged so far were written;
    /// 2. the event log: records still staged (timer taps, child exits), then the held log lines;
    /// 3. while stopping, the lifecycle's progress (a client may have taken its last replies);
    /// 4. `cells.json`: written when due, else its timer armed for a change;
    /// 5. the fleet: the outbox's taps and state changes, then a publishing round (the event
    ///    feed reads what step 2 wrote);
    /// 6. the panel: the outbox's events batched to its streams, a changed layout shown.
    private func endWakeup() {
        server.sendReplies()
        output.endOfWakeup()
        if lifecycle.isStopping && lifecycle.phase != .stopped { progress() }
        cellsFile.endOfWakeup()
        guard let outbox = output.outbox else { return }
        fleet?.endOfWakeup(outbox)
        panel?.endOfWakeup(outbox)
        outbox.clear()
    }

    // MARK: - Lifecycle actions

    private func perform(_ actions: [Lifecycle.Action]) {
        for action in actions {
            switch action {
            case .notifyReady: manager.ready(status: statusText())
            case .notifyReloading(let usec): manager.notify([.reloading(monotonicMicroseconds: usec)])
            case .notifyStopping: manager.notify([.stopping])
            case .log(.info, let message): log.info(message)
            case .log(.warning, let message): log.warning(message)
            case .startLoad: reloader.start(path: configPath)
            case .stopAccepting: server.closeListener()
            case .drainClients: server.drainAll()
            case .closeClients: server.closeAll()
            case .stopChildren(let grace): output.supervisor.beginShutdown(graceNanos: grace)
            case .finish:
                touch.endAllContacts()
                cellsFile.close()
                eventLog.close()
                fleet?.stop()
                panel?.stop()
                screen?.stop()
                log.info("stopped cleanly")
            }
        }
        loop.schedule(shutdownCheck, at: lifecycle.nextCheck(now: Clock.monotonicNanos()))
    }

    /// `STATUS=`: the current layout, generation and taps; after a refused reload, why; while the
    /// event log cannot be written, that too (the unit's status is where an operator looks).
    private func statusText() -> String {
        let logProblem = eventLog.ok ? "" : "; event log: " + (eventLog.lastError ?? "failing")
        let fleetState = (fleet.map { ", " + $0.statusSuffix } ?? "") + (screen?.machine.state == .off ? ", screen off" : "")
        if let failure = lifecycle.reloadFailure { return "reload failed: " + failure + logProblem + fleetState }
        return "layout \(output.engine.currentLayoutName), generation \(generation), \(counted(Int(output.engine.outcomeCounts.total), "tap"))"
            + logProblem + fleetState
    }

    /// While stopping: moves on once clients took their replies and children are gone.
    private func progress() {
        let event = Lifecycle.Event.progress(clientsBusy: server.anyBusy, childrenIdle: output.supervisor.isIdle)
        perform(lifecycle.handle(event, now: Clock.monotonicNanos()))
    }

    // MARK: - Reload

    /// The config generation in use.
    var generation: UInt64 { output.engine.active.generation }

    var clientCount: Int { server.count }

    func reloadRequested(by connection: Connection) { requestReload(from: connection) }

    /// A reload for SIGHUP (nil) or a connection's `reload`, which waits for the load's answer.
    private func requestReload(from connection: Connection?) {
        let wasLoading = lifecycle.loading
        let actions = lifecycle.handle(.reloadRequested, now: Clock.monotonicNanos())
        if let connection { wasLoading ? nextReloadWaiters.append(connection) : reloadWaiters.append(connection) }
        perform(actions)
    }

    /// Swaps in a loaded config (or keeps the old one) and answers the waiting connections.
    private func finishReload(_ result: LoadResult) {
        let failure = apply(result)
        let waiters = reloadWaiters
        reloadWaiters = nextReloadWaiters
        nextReloadWaiters = []
        perform(lifecycle.handle(.reloadFinished(failure: failure), now: Clock.monotonicNanos()))
        for connection in waiters where !connection.state.isClosed {
            let id = connection.state.reloadEnded()
            let out = connection.output
            let generation = generation
            func answer(_ id: UnsafeBufferPointer<UInt8>?) {
                if let failure {
                    ReplyWriter.error(.configError, failure, id: id, out)
                } else {
                    ReplyWriter.reloaded(generation: generation, id: id, out)
                }
            }
            if let id { id.withUnsafeBufferPointer { answer($0) } } else { answer(nil) }
            switch connection.origin {
            case .socket:
                server.answerLines(connection)
                server.flush(connection)
            case .mqtt:
                fleet?.reloadFinished(connection)
            case .panel:
                break  // the panel sends no `reload` (PanelBody takes contacts and taps only)
            }
        }
    }

    /// - Returns: nil when the new config was swapped in, else the errors' text (one per line).
    private func apply(_ result: LoadResult) -> String? {
        for warning in result.diagnostics.warnings { log.warning(warning.description) }
        let old = output.engine.active.config
        guard let new = result.config, !result.diagnostics.hasErrors else {
            var errors = result.diagnostics.errors.map(\.description)
            if errors.isEmpty { errors = ["\(configPath): the config could not be loaded"] }
            let text = errors.joined(separator: "\n")
            log.error("reload failed, keeping generation \(generation): \(text)")
            return text
        }
        if new.socket.path != old.socket.path || new.socket.mode != old.socket.mode {
            log.warning("socket.path and socket.mode changes take effect at the next start")
        }
        if new.mqtt != old.mqtt { log.warning("mqtt changes take effect at the next start") }
        if new.panel != old.panel { log.warning("panel changes take effect at the next start") }
        baseConfig = new
        for (name, errors) in pushed.reroute(for: new) {
            log.warning("pushed layout \(name) dropped: it no longer loads with this config: " + errors.map(\.description).joined(separator: "; "))
        }
        panel?.icons = result.icons
        output.engine.swap(to: pushed.combined(with: new), generation: generation + 1)
        output.recordEndedContacts(now: output.clock.monotonic)  // contacts in flight end
        touch.reschedule()
        server.admission = SocketServer.Admission(new)
        eventLog.configure(path: EventLog.resolvePath(new.eventLog, environment: environment))
        cellsFile.configure(path: CellsFile.resolvePath(new.eventLog, environment: environment))
        touchscreens.configure(new.touch)
        reconfigureScreen(new.screen)
        log.info("config reloaded: generation \(generation), layout \(output.engine.currentLayoutName)", kind: .reload)
        Memory.returnFreePages()  // the old config's and the parse's pages, as after the first load
        return nil
    }
}

// MARK: - The panel, the fleet and pushed layouts

extension Daemon {
    /// The panel on its listener, with the token read at load (`ConfigLoader.loadForDaemon`: a
    /// daemon whose `tokenFile` cannot be read does not start); nil, with an error logged, when
    /// libmicrohttpd cannot start (the socket keeps serving).
    static func startPanel(
        _ settings: PanelConfig, token: String?, listener: consuming PanelListener, loop: EventLoop, log: LogSink,
        output: TapOutput, endpoint: RequestEndpoint, server: SocketServer
    ) -> Panel? {
        let address = listener.address
        do throws(HTTPError) {
            let panel = try Panel(
                settings: settings, listener: listener.socket, address: address, socketPath: listener.socketPath, token: token,
                loop: loop, log: log, output: output, endpoint: endpoint, takeNumber: { [unowned server] in server.takeNumber() })
            log.info("panel: serving \(address)" + (token == nil ? "" : " (open it once as /?token=... from panel.tokenFile)"))
            return panel
        } catch {
            log.error("panel: \(error); the panel is off")
            return nil
        }
    }

    var fleetStatus: StatusReply.MQTT? { fleet?.status }

    var panelStatus: StatusReply.Panel? { panel?.status }

    /// A host name as a node name: its first label, with every character outside
    /// `[A-Za-z0-9_-]` made `_`, at most 64 (docs/fleet.md "The `mqtt` block").
    static func nodeName(_ host: String) -> String {
        let label = host.split(separator: ".").first.map(String.init) ?? "tapgrid"
        let cleaned = String(label.unicodeScalars.prefix(64).map { scalar -> Character in
            MQTTConfig.isTopicName(String(scalar)) ? Character(scalar) : "_"
        })
        return cleaned.isEmpty ? "tapgrid" : cleaned
    }


    /// A reload's `screen` block: the screen made, reconfigured, or (removed) left on.
    private func reconfigureScreen(_ settings: ScreenConfig?) {
        if let screen {
            screen.reconfigure(settings, configPath: configPath)
            if settings == nil {
                self.screen = nil
                touch.screen = nil
            }
        } else if let settings {
            let made = Screen(settings: settings, configPath: configPath, loop: loop, log: log, output: output)
            screen = made
            touch.screen = made
            made.start()
        }
    }

}
