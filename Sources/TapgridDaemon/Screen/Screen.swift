import TapgridCore
import TapgridSystem

/// The screen (docs/screen.md), with `screen` in the config: the core's `ScreenMachine` driven by
/// one loop timer (no thread, no polling), and what its changes ask for carried out: the
/// `screen` record (and the outbox's `screen` event, for `P/N/screen` and the page), the
/// backlight's `brightness` written, `commands.<state>` run as supervised children under the
/// script handler's timeout rules. `TouchInput` asks `contact` before recognizing a person's
/// contact; the waking touch is used up here, its `wake` record written.
final class Screen {
    private(set) var machine: ScreenMachine
    private(set) var settings: ScreenConfig
    private unowned let loop: EventLoop
    private let log: LogSink
    private let output: TapOutput
    private var timer: LoopTimer!
    /// `max_brightness`, read at start and at a reload (nil: no backlight, or unreadable).
    private var maxBrightness: Int?
    /// The value last written to `brightness`.
    private(set) var backlightValue: Int?
    /// Why the backlight could not be read or written, until a write succeeds.
    private(set) var backlightProblem: String?
    /// When the current state began, on the wall clock (seconds since the epoch), for `status`.
    private(set) var sinceWallSeconds: Double = 0

    /// The commands' handler: a script handler's timeouts (30 s, then SIGKILL 2 s after SIGTERM),
    /// one command at a time, a few waiting (a later one runs after, never beside, the last).
    static let commandsHandler = HandlerConfig(
        name: "screen.commands", kind: .script(interpreter: nil, directory: nil), timeoutSeconds: 30, killGraceSeconds: 2,
        maxConcurrent: 1, queue: 4)
    /// The supervisor's handler index for the screen's commands (no config handler has it).
    static let commandsHandlerIndex = -1

    init(settings: ScreenConfig, configPath: String, loop: EventLoop, log: LogSink, output: TapOutput) {
        self.settings = settings
        machine = ScreenMachine(config: settings)
        self.loop = loop
        self.log = log
        self.output = output
        timer = loop.makeTimer { [unowned self] in carry(machine.due(now: loop.now)) }
        readMaxBrightness(configPath: configPath)
    }

    /// The start: `on` (reason `start`), the backlight written, the idle timers armed.
    func start() { carry(machine.start(now: loop.now)) }

    /// A new config: the timers restart from now with its spans; a removed block leaves the
    /// screen on, as a daemon without one is.
    func reconfigure(_ new: ScreenConfig?, configPath: String) {
        guard let new else {
            carry(machine.set(.on, from: .op, now: loop.now))
            loop.schedule(timer, at: nil)
            return
        }
        let backlightMoved = new.backlight?.path != settings.backlight?.path
        settings = new
        if backlightMoved { readMaxBrightness(configPath: configPath) }
        carry(machine.reconfigure(new, now: loop.now))
    }

    func stop() { loop.schedule(timer, at: nil) }

    // MARK: - Events

    /// A person's contact (a touchscreen's, a page's, the socket's `down`/`move`/`up`/`cancel`),
    /// before the recognizer sees it.
    /// - Returns: true when the waking touch used it up: it is neither recognized nor recorded.
    func usesUp(_ phase: TouchPhase, key: ContactKey, x: Double?, y: Double?, now: UInt64) -> Bool {
        let (verdict, actions) = machine.contact(phase, key: key, now: now)
        if case .consume(wake: true) = verdict { output.recordWake(key: key, x: x ?? 0, y: y ?? 0) }
        carry(actions)
        return verdict.isConsumed
    }

    /// A connection closed or a device went: its used-up contacts are forgotten.
    func endContacts(stream: Int) { machine.endContacts(stream: stream) }

    /// `{"op": "wake"}` or the fleet's `wake`.
    func wake(from origin: ScreenCommandOrigin) { carry(machine.wake(from: origin, now: loop.now)) }

    /// `{"op": "screen", "state": ...}` or the fleet's `screen`.
    func set(_ state: ScreenState, from origin: ScreenCommandOrigin) { carry(machine.set(state, from: origin, now: loop.now)) }

    /// `status`'s `screen` block and the end of `STATUS=`.
    var stateName: String { machine.state.name.description }

    // MARK: - Carrying out

    private func carry(_ actions: ScreenMachine.Actions) {
        if let change = actions.change {
            let wall = Clock.realtime()
            sinceWallSeconds = Double(wall.seconds) + Double(wall.nanoseconds) / 1e9
            let seq = output.recordScreen(change.state, reason: change.reason)
            log.info("screen \(change.state.name) (\(change.reason.name))")
            writeBacklight(change.state)
            runCommand(change.state, seq: seq)
        }
        // A timer armed earlier than the deadline may stay (it fires, changes nothing and gives
        // the real one): a burst of moves does not re-arm it each time.
        if let deadline = actions.deadline {
            if let armed = loop.dueTime(timer), armed <= deadline { return }
            loop.schedule(timer, at: deadline)
        } else {
            loop.schedule(timer, at: nil)
        }
    }

    private func readMaxBrightness(configPath: String) {
        maxBrightness = nil
        guard let backlight = settings.backlight else { return }
        do throws(SystemError) {
            let text = try Files.readFile(backlight.maxBrightnessFile, maxBytes: 64)
            guard let max = ScreenConfig.Backlight.maxBrightness(from: text) else {
                backlightFailed("\(backlight.maxBrightnessFile) does not hold a number")
                return
            }
            maxBrightness = max
            for warning in backlight.levelWarnings(maxBrightness: max, file: configPath) { log.warning(warning.description) }
        } catch {
            backlightFailed(error.description)
        }
    }

    /// Writes the state's value to `brightness` (a sysfs write: immediate, never waits on a device).
    private func writeBacklight(_ state: ScreenState) {
        guard let backlight = settings.backlight else { return }
        guard let bytes = backlight.brightness(for: state, maxBrightness: maxBrightness) else {
            backlightFailed("\(backlight.maxBrightnessFile) could not be read, and \(state.name) is \"max\" or a share of it")
            return
        }
        do throws(SystemError) {
            try Files.overwriteExisting(backlight.brightnessFile, with: bytes)
            backlightValue = backlight.value(for: state, maxBrightness: maxBrightness)
            if backlightProblem != nil { log.info("screen: the backlight is written again (\(backlight.brightnessFile))") }
            backlightProblem = nil
        } catch {
            backlightFailed(error.description)
        }
    }

    /// Logged once, until a write succeeds in between; `status` shows it meanwhile.
    private func backlightFailed(_ why: String) {
        if backlightProblem == nil { log.warning("screen: backlight: \(why); the screen's state still changes") }
        backlightProblem = why
    }

    private func runCommand(_ state: ScreenState, seq: UInt64) {
        guard let argv = settings.commands[state] else { return }
        var request = ChildRequest(
            handlerIndex: Self.commandsHandlerIndex, handler: Self.commandsHandler, layout: output.engine.currentLayoutName,
            gridPath: "", name: nil, tag: nil, actionData: nil, x: 0, y: 0, seq: seq)
        request.argv = argv
        switch output.supervisor.submit(request) {
        case .dispatched: break
        case .busy: log.warning("screen: commands.\(state.name) not run: earlier screen commands are still running")
        case .denied(let why), .failed(let why): log.warning("screen: commands.\(state.name) (\(argv[0])) failed: \(why)")
        }
    }
}
