import TapgridArguments
import TapgridConfig
import TapgridCore
import TapgridSystem

/// `tapgrid replay EVENTS`: hit-tests and routes every recorded tap again, against a config
/// (offline) or a running daemon (`hit` requests), and reports the taps whose result changed.
struct ReplayCommand {
    let console: Console

    /// What a tap resolved to: the fields replay compares.
    struct Outcome: Equatable {
        var hit: String?
        var tag: Int64?
        var actionData: JSONValue
        var handler: String?
        /// Set when the tap could not be replayed at all (its layout is gone).
        var problem: String?
        /// The class of a tap from a touch contact; nil for tap requests.
        var tapClass: String? = nil
        /// A toggle grid's `active` after the tap flipped it; nil when the grid does not toggle.
        var active: Bool? = nil
        /// The grid's state refused the tap (outcome `disabled`): compared with being routed.
        var disabled = false
        /// A slider's value, worked out again from the tap's point (docs/touch.md "Sliders").
        var value: Double? = nil
    }

    static let maxEventsBytes = 1 << 30

    func run(_ options: ReplayOptions) -> Int32 {
        let bytes: [UInt8]
        do {
            bytes = try Files.readFile(options.events, maxBytes: ReplayCommand.maxEventsBytes)
        } catch {
            console.error(error.description)
            return TapgridCLIMain.failure
        }
        if options.dispatch { return ReplayDispatch(console: console).run(options, events: bytes) }
        var replay: OfflineReplay? = nil
        // Offline, the config's screen runs again over the contacts, wakes and screen changes.
        var screen: ReplayScreen? = nil
        var client: DaemonClient? = nil
        if let socket = options.socket {
            do {
                client = try DaemonClient(path: socket, timeoutSeconds: 30)
            } catch {
                console.error(SocketProblem.connectFailed(error, socket: socket))
                return TapgridCLIMain.unavailable
            }
        } else {
            let path = DefaultPaths.configPath(cli: options.config, environment: console.environment)
            let (config, diagnostics) = ConfigLoader.load(
                path: path, missingHint: DefaultPaths.missingConfigHint(.replay, cli: options.config, environment: console.environment))
            guard let config else {
                for error in diagnostics.errors { console.error(error.description) }
                return TapgridCLIMain.failure
            }
            // The daemon's own engine: replay hit-tests, recognizes touch and keeps cell state
            // exactly as tapgridd would.
            replay = OfflineReplay(config: config)
            screen = ReplayScreen(config: config.screen)
        }
        var taps = 0, differ = 0, unreadable = 0
        // Through a daemon, whose `hit` reads no cell state: the states the log's sets left, by
        // layout and path, to tell which taps landed on a disabled grid.
        var recordedStates: [GridKey: CellState] = [:]
        // Through a daemon: its sliders by layout and path, read once (`layouts` with state) when
        // the first tap with a value comes, to work each value out again.
        var daemonSliders: [GridKey: SliderPlace]? = nil
        // Offline, touch records go through the recognizer again; the taps it fires are compared
        // with the recorded classed taps, in order, once the whole log is read.
        var replayedTouchTaps: [OfflineReplay.Fired] = []
        var recordedTouchTaps: [RecordedTouchTap] = []
        for (number, line) in LineFramer.lines(of: bytes) {
            let record: TapRecord
            switch EventRecord.read(line) {
            case nil: continue
            case .success(.event(let kind))?:
                // Through a daemon, whose `hit` knows no screen, screen and wake records are skipped.
                guard screen != nil, kind == "screen" || kind == "wake", let read = ScreenEventRecord.read(line) else { continue }
                switch read {
                case .failure(let error):
                    unreadable += 1
                    report(unreadable: number, error, json: options.json)
                case .success(.screen(let change)):
                    screen!.screen(change, line: line)
                case .success(.wake(let wake)):
                    if let why = screen!.wake(wake, line: line) {
                        differ += 1
                        report(wake, line: number, pressed: why, json: options.json)
                    }
                }
                continue
            case .success(.touch(let touch))?:
                if replay != nil, screen!.touch(touch, line: line) { replayedTouchTaps += replay!.feed(touch) }
                continue
            case .success(.state(let state))?:
                if replay != nil {
                    replay!.apply(state)
                } else if state.isSet {
                    recordedStates[GridKey(layout: state.layout, path: state.grid)] = state.state
                }
                continue
            case .failure(let error)?:
                unreadable += 1
                report(unreadable: number, error, json: options.json)
                continue
            case .success(.tap(let tap))?: record = tap
            }
            taps += 1
            // A plain tap on a slider is recorded as a `release` too (docs/touch.md "Sliders"):
            // a release no recorded press was last at is replayed as the tap request it was.
            if record.tapClass != nil, let replay, record.tapClass != "release" || replay.press(of: record) != nil {
                // A tap of a contact the screen now holds back finds no press: it differs as used up.
                let heldBack = screen!.heldBack(record)
                recordedTouchTaps.append(RecordedTouchTap(line: number, press: heldBack ? nil : replay.press(of: record), record: record, heldBack: heldBack))
                continue
            }
            var now: Outcome
            if replay != nil {
                now = replay!.tap(record).map(Outcome.init) ?? Outcome(problem: Self.layoutGone(record.layout))
            } else {
                // A slider's tap belongs to the slider its contact went down on, wherever the
                // finger went: asked at the point of the slider nearest it, its value worked out
                // from where the finger was.
                var asked = record
                var slider: SliderPlace? = nil
                if record.value != nil, let hit = record.hit {
                    if daemonSliders == nil { daemonSliders = Self.sliders(client: &client!) }
                    slider = daemonSliders?[GridKey(layout: record.layout, path: hit)]
                    if let slider { (asked.x, asked.y) = Self.nearest(record.x, record.y, in: slider.rect) }
                }
                now = replayOnline(asked, client: &client!)
                if record.value != nil { now.value = slider?.value(atX: record.x, y: record.y) }
                if now.problem == "connection lost" {
                    console.error("the daemon closed the connection at line \(number)")
                    return TapgridCLIMain.unavailable
                }
                // The daemon's `hit` knows no classes: a classed tap is compared on its grid (and,
                // for a `tap`, its handler); `--config` replays the classes themselves.
                now.tapClass = record.tapClass
                if let tapClass = record.tapClass, tapClass != "tap", now.problem == nil { now.handler = record.handler }
                // Nor does it toggle, or know which grids do: `active` is compared offline only.
                // Whether the grid was disabled follows from the recorded sets.
                now.active = record.active
                if let hit = now.hit, now.problem == nil {
                    now.disabled = recordedStates[GridKey(layout: record.layout, path: hit)]?.isDisabled ?? false
                }
            }
            let recorded = Outcome(record)
            if now != recorded {
                differ += 1
                report(record, line: number, now: now, json: options.json)
            }
        }
        if var replay {
            replayedTouchTaps += replay.finish()
            differ += compareTouchTaps(recorded: recordedTouchTaps, replayed: replayedTouchTaps, json: options.json)
            taps += max(0, replayedTouchTaps.count - recordedTouchTaps.count)
        }
        if options.json {
            console.line(ReplayReport.summary(taps: taps, differ: differ, unreadable: unreadable).json)
        } else {
            console.line("\(taps) tap\(taps == 1 ? "" : "s"), \(differ) differ" + (unreadable > 0 ? ", \(unreadable) unreadable" : ""))
        }
        return differ == 0 && unreadable == 0 ? TapgridCLIMain.success : TapgridCLIMain.failure
    }

    /// A recorded classed tap, with the press it came from (nil when none was replayed) and whether
    /// its contact is one the replay's screen uses up.
    struct RecordedTouchTap {
        var line: Int
        var press: Int?
        var record: TapRecord
        var heldBack = false
    }

    /// A grid by layout name and path, as state records name it.
    struct GridKey: Hashable {
        var layout: String
        var path: String
    }

    /// What a tap whose recorded layout is not in the config (or the daemon) any more replays to.
    static func layoutGone(_ layout: String) -> String { "layout \(jsonEscaped(layout)) no longer exists" }

    /// `{"op":"hit","x":120,"y":340,"layout":"home"}`: a recorded tap as a request (`hit` to
    /// compare, `tap` for `--dispatch`), always naming the layout it was recorded on.
    static func request(_ op: Request.Op, _ record: TapRecord) -> Request {
        Request(op: op, x: record.x, y: record.y, layout: record.layout)
    }

    func replayOnline(_ record: TapRecord, client: inout DaemonClient) -> Outcome {
        guard (try? client.send(Self.request(.hit, record).line)) != nil, let line = try? client.readLine(),
            let reply = try? DaemonReply.read(line)
        else { return Outcome(problem: "connection lost") }
        switch reply {
        case .error(let error):
            // The daemon's message lists its layouts; offline replay cannot say more than that the
            // layout is gone, and both must print the same line for the same log and config.
            let problem = error.isUnknownLayout ? Self.layoutGone(record.layout) : HumanReply.text(error.value["message"])
            return Outcome(problem: problem)
        case .ok(let value):
            let tap = TapReply(value)
            var outcome = Outcome(hit: nil, tag: nil, actionData: .null, handler: tap.handler)
            if let hit = tap.hit {
                outcome.hit = hit.path
                outcome.tag = hit.tag
                outcome.actionData = hit.actionData ?? .null
            }
            return outcome
        }
    }

    /// The daemon's sliders, by layout name and path (empty when it cannot say).
    static func sliders(client: inout DaemonClient) -> [GridKey: SliderPlace] {
        guard (try? client.send(ControlRequest.layoutsWithStateJSON + [0x0A])) != nil,
              let line = try? client.readLine(maxBytes: 64 << 20), case .ok(let value)? = try? DaemonReply.read(line)
        else { return [:] }
        var places: [GridKey: SliderPlace] = [:]
        for layout in LayoutsReply(value).layouts {
            for grid in layout.grids { if let place = grid.slider { places[GridKey(layout: layout.name, path: grid.path)] = place } }
        }
        return places
    }

    /// The point of `rect` nearest (x, y): (x, y) itself when inside (the far edges belong to
    /// the next grid, so a point past them comes just inside).
    static func nearest(_ x: Double, _ y: Double, in rect: Rect) -> (Double, Double) {
        let x0 = min(rect.x, rect.x + rect.width), x1 = max(rect.x, rect.x + rect.width)
        let y0 = min(rect.y, rect.y + rect.height), y1 = max(rect.y, rect.y + rect.height)
        return (x < x0 ? x0 : x >= x1 ? max(x0, x1.nextDown) : x, y < y0 ? y0 : y >= y1 ? max(y0, y1.nextDown) : y)
    }

    func describe(_ outcome: Outcome) -> String {
        let tapClass = outcome.tapClass.map { $0 + " " } ?? ""
        guard let hit = outcome.hit else { return tapClass + "miss" }
        return tapClass + HumanText.gridLabel(hit) + (outcome.tag.map { " tag \($0)" } ?? "")
    }

    /// The recognizer's taps against the recorded classed taps, press by press (the taps of one
    /// press in order); a recorded tap the replay did not fire and a replayed tap the log does
    /// not have are differences too.
    /// - Returns: how many differ.
    func compareTouchTaps(recorded: [RecordedTouchTap], replayed: [OfflineReplay.Fired], json: Bool) -> Int {
        var differ = 0
        var replayedByPress: [Int: [TapRecord]] = [:]
        for fired in replayed { replayedByPress[fired.press, default: []].append(fired.record) }
        var used: [Int: Int] = [:]
        for recordedTap in recorded {
            let (line, press, record) = (recordedTap.line, recordedTap.press, recordedTap.record)
            var now = Outcome(problem: recordedTap.heldBack ? ReplayScreen.usedUp : "no tap in the replay")
            if let press, let taps = replayedByPress[press], used[press, default: 0] < taps.count {
                let tap = taps[used[press, default: 0]]
                used[press, default: 0] += 1
                now = Outcome(tap)
                if tap.layout != record.layout { now.problem = "a tap on layout \(jsonEscaped(tap.layout))" }
            }
            if now != Outcome(record) {
                differ += 1
                report(record, line: line, now: now, json: json)
            }
        }
        for press in replayedByPress.keys.sorted() {
            for extra in replayedByPress[press]!.dropFirst(used[press, default: 0]) {
                differ += 1
                if json {
                    console.line(ReplayReport.replayOnly(extra).json)
                } else {
                    let tap = Outcome(extra)
                    console.line("replay only (\(formatNumber(extra.x)), \(formatNumber(extra.y))) \(extra.layout): no tap -> \(describe(tap))"
                        + (extra.handler.map { ", handler \($0)" } ?? "") + (tap.active.map { ", active \(Self.describe($0))" } ?? "")
                        + (tap.value.map { ", value \(formatNumber($0))" } ?? "")
                        + (tap.disabled ? ", disabled" : ""))
                }
            }
        }
        return differ
    }

    func report(_ record: TapRecord, line: Int, now: Outcome, json: Bool) {
        let was = Outcome(record)
        if json {
            console.line(ReplayReport.differs(line: line, record: record, recorded: was.resolution, replayed: now.resolution).json)
            return
        }
        var text = Self.prefix(line: line, record)
        if let problem = now.problem {
            console.line(text + "\(describe(was)) -> \(problem)")
            return
        }
        // The same grid named once: what changed is what follows it (actionData, handler).
        text += was.hit == now.hit && was.tag == now.tag && was.tapClass == now.tapClass
            ? describe(was) : "\(describe(was)) -> \(describe(now))"
        if was.actionData != now.actionData { text += ", actionData \(was.actionData.compactJSON) -> \(now.actionData.compactJSON)" }
        if was.handler != now.handler { text += ", handler \(was.handler ?? "none") -> \(now.handler ?? "none")" }
        if was.active != now.active { text += ", active \(Self.describe(was.active)) -> \(Self.describe(now.active))" }
        if was.disabled != now.disabled { text += was.disabled ? ", disabled -> enabled" : ", enabled -> disabled" }
        if was.value != now.value { text += ", value \(Self.describe(was.value)) -> \(Self.describe(now.value))" }
        console.line(text)
    }

    /// A slider's value for people: `42`, or `none` (not a slider's tap).
    static func describe(_ value: Double?) -> String { value.map(formatNumber) ?? "none" }

    /// A toggle's `active` for people: `true`, `false`, `none` (the grid does not toggle).
    static func describe(_ active: Bool?) -> String { active.map { $0 ? "true" : "false" } ?? "none" }

    /// `line 12 seq 9 (300, 100) settings: `: which recorded tap a line for people is about.
    static func prefix(line: Int, _ record: TapRecord) -> String {
        "line \(line) seq \(record.seq) (\(formatNumber(record.x)), \(formatNumber(record.y))) \(record.layout): "
    }

    /// A recorded waking touch the replay's screen would press: `line 6 seq 3 (10, 20) wake: used
    /// up -> pressed (the screen would be on)`.
    func report(_ wake: RecordedWake, line: Int, pressed why: String, json: Bool) {
        if json {
            console.line(ReplayReport.wakePressed(line: line, wake: wake, why: why).json)
        } else {
            console.line("line \(line) seq \(wake.seq) (\(formatNumber(wake.x)), \(formatNumber(wake.y))) wake: used up -> pressed (\(why))")
        }
    }

    func report(unreadable line: Int, _ error: EventRecord.Unreadable, json: Bool) {
        if json {
            console.line(ReplayReport.unreadable(line: line, message: error.message).json)
        } else {
            console.line("line \(line): unreadable: \(error.message)")
        }
    }
}

extension ReplayCommand.Outcome {
    /// What the record says the tap resolved to.
    init(_ record: TapRecord) {
        self.init(hit: record.hit, tag: record.tag, actionData: record.actionData, handler: record.handler,
                  tapClass: record.tapClass, active: record.active, disabled: record.outcome == TapgridCore.Outcome.disabled.name.description,
                  value: record.value)
    }

    /// A tap that could not be replayed.
    init(problem: String) { self.init(hit: nil, tag: nil, actionData: .null, handler: nil, problem: problem) }

    /// The fields `--json` prints.
    var resolution: ReplayReport.Resolution {
        ReplayReport.Resolution(hit: hit, tag: tag, actionData: actionData, handler: handler, problem: problem,
                                active: active, disabled: disabled, value: value)
    }
}
