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
        var engine: TapEngine? = nil
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
            let (config, diagnostics) = ConfigLoader.load(path: path, missingDefaultHint: DefaultPaths.missingConfigHint(.replay))
            guard let config else {
                for error in diagnostics.errors { console.error(error.description) }
                return TapgridCLIMain.failure
            }
            // The daemon's own engine: replay hit-tests and routes exactly as tapgridd would.
            engine = TapEngine(config: config, generation: 1)
        }
        var taps = 0, differ = 0, unreadable = 0
        // Offline, touch records go through the recognizer again; the taps it fires are compared
        // with the recorded classed taps, in order, once the whole log is read.
        var touchReplay = engine.map { TouchReplay(config: $0.active.config) }
        var replayedTouchTaps: [TouchReplay.Fired] = []
        var recordedTouchTaps: [(line: Int, press: Int?, record: TapRecord)] = []
        for (number, line) in LineFramer.lines(of: bytes) {
            let record: TapRecord
            switch EventRecord.read(line) {
            case nil, .success(.event)?: continue
            case .success(.touch(let touch))?:
                if touchReplay != nil { replayedTouchTaps += touchReplay!.feed(touch) }
                continue
            case .failure(let error)?:
                unreadable += 1
                report(unreadable: number, error, json: options.json)
                continue
            case .success(.tap(let tap))?: record = tap
            }
            taps += 1
            if record.tapClass != nil, let touchReplay {
                recordedTouchTaps.append((number, touchReplay.press(of: record), record))
                continue
            }
            var now: Outcome
            if let engine {
                now = ReplayCommand.replayOffline(record, engine: engine)
            } else {
                now = replayOnline(record, client: &client!)
                // The daemon's `hit` knows no classes: a classed tap is compared on its grid (and,
                // for a `tap`, its handler); `--config` replays the classes themselves.
                now.tapClass = record.tapClass
                if let tapClass = record.tapClass, tapClass != "tap", now.problem == nil { now.handler = record.handler }
                if now.problem == "connection lost" {
                    console.error("the daemon closed the connection at line \(number)")
                    return TapgridCLIMain.unavailable
                }
            }
            let recorded = Outcome(record)
            if now != recorded {
                differ += 1
                report(record, line: number, now: now, json: options.json)
            }
        }
        if var touchReplay {
            replayedTouchTaps += touchReplay.finish()
            differ += compareTouchTaps(recorded: recordedTouchTaps, replayed: replayedTouchTaps, json: options.json)
            taps += max(0, replayedTouchTaps.count - recordedTouchTaps.count)
        }
        if options.json {
            console.line(#"{"taps": \#(taps), "differ": \#(differ), "unreadable": \#(unreadable)}"#)
        } else {
            console.line("\(taps) tap\(taps == 1 ? "" : "s"), \(differ) differ" + (unreadable > 0 ? ", \(unreadable) unreadable" : ""))
        }
        return differ == 0 && unreadable == 0 ? TapgridCLIMain.success : TapgridCLIMain.failure
    }

    /// What a tap whose recorded layout is not in the config (or the daemon) any more replays to.
    static func layoutGone(_ layout: String) -> String { "layout \(jsonEscaped(layout)) no longer exists" }

    /// The tap hit-tested and routed again through the engine (as a `hit` request would be).
    static func replayOffline(_ record: TapRecord, engine: TapEngine) -> Outcome {
        guard let layout = engine.layoutIndex(for: record.layout) else {
            return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: layoutGone(record.layout))
        }
        let decision = engine.check(layout: layout, x: record.x, y: record.y)
        guard let target = decision.target, let info = engine.info(of: decision) else {
            return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil)
        }
        let tree = engine.active.layouts[layout].tree
        return Outcome(
            hit: tree.path(of: target.grid), tag: info.tag != 0 ? info.tag : nil,
            actionData: info.actionData ?? .null, handler: engine.active.config.handlerName(target.handler))
    }

    /// `{"op":"hit","x":120,"y":340,"layout":"home"}` and a newline: a recorded tap as a request
    /// (`hit` to compare, `tap` for `--dispatch`), always naming the layout it was recorded on.
    static func appendRequest(_ op: StaticString, _ record: TapRecord, to request: inout [UInt8]) {
        request.append(contentsOf: #"{"op":""#.utf8)
        request.append(contentsOf: UnsafeBufferPointer(start: op.utf8Start, count: op.utf8CodeUnitCount))
        request.append(contentsOf: #"","x":"#.utf8)
        JSONWriter.appendNumber(record.x, to: &request)
        request.append(contentsOf: #","y":"#.utf8)
        JSONWriter.appendNumber(record.y, to: &request)
        request.append(contentsOf: #","layout":"#.utf8)
        JSONWriter.appendString(record.layout, to: &request)
        request.append(contentsOf: "}\n".utf8)
    }

    func replayOnline(_ record: TapRecord, client: inout DaemonClient) -> Outcome {
        var request: [UInt8] = []
        Self.appendRequest("hit", record, to: &request)
        guard (try? client.send(request)) != nil, let line = try? client.readLine(),
            let reply = try? JSONParser.parse(line, lenient: false)
        else { return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: "connection lost") }
        if let error = reply["error"] {
            // The daemon's message lists its layouts; offline replay cannot say more than that the
            // layout is gone, and both must print the same line for the same log and config.
            let problem = error["code"] == .string("unknown_layout") ? Self.layoutGone(record.layout) : HumanReply.text(error["message"])
            return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: problem)
        }
        var outcome = Outcome(hit: nil, tag: nil, actionData: .null, handler: nil)
        if let hit = reply["hit"], case .object = hit {
            if case .string(let path)? = hit["path"] { outcome.hit = path }
            if case .number(let tag)? = hit["tag"] { outcome.tag = tag.int64 }
            outcome.actionData = hit["actionData"] ?? .null
        }
        if case .string(let handler)? = reply["handler"] { outcome.handler = handler }
        return outcome
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
    func compareTouchTaps(recorded: [(line: Int, press: Int?, record: TapRecord)], replayed: [TouchReplay.Fired], json: Bool) -> Int {
        var differ = 0
        var replayedByPress: [Int: [TapRecord]] = [:]
        for fired in replayed { replayedByPress[fired.press, default: []].append(fired.record) }
        var used: [Int: Int] = [:]
        for (line, press, record) in recorded {
            var now = Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: "no tap in the replay")
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
                    console.line(#"{"line": null, "seq": null, "x": \#(formatNumber(extra.x)), "y": \#(formatNumber(extra.y)), "layout": \#(jsonEscaped(extra.layout)), "recorded": null, "replayed": {"class": \#(jsonEscaped(extra.tapClass ?? "tap")), "hit": \#(extra.hit.map(jsonEscaped) ?? "null"), "handler": \#(extra.handler.map(jsonEscaped) ?? "null")}}"#)
                } else {
                    console.line("replay only (\(formatNumber(extra.x)), \(formatNumber(extra.y))) \(extra.layout): no tap -> \(describe(Outcome(extra)))"
                        + (extra.handler.map { ", handler \($0)" } ?? ""))
                }
            }
        }
        return differ
    }

    func report(_ record: TapRecord, line: Int, now: Outcome, json: Bool) {
        let was = Outcome(record)
        if json {
            func object(_ o: Outcome) -> String {
                var text = #"{"hit": \#(o.hit.map(jsonEscaped) ?? "null"), "tag": \#(o.tag.map(String.init) ?? "null"), "actionData": \#(o.actionData.compactJSON), "handler": \#(o.handler.map(jsonEscaped) ?? "null")"#
                if let problem = o.problem { text += #", "problem": \#(jsonEscaped(problem))"# }
                return text + "}"
            }
            console.line(#"{"line": \#(line), "seq": \#(record.seq), "x": \#(formatNumber(record.x)), "y": \#(formatNumber(record.y)), "layout": \#(jsonEscaped(record.layout)), "recorded": \#(object(was)), "replayed": \#(object(now))}"#)
            return
        }
        var text = "line \(line) seq \(record.seq) (\(formatNumber(record.x)), \(formatNumber(record.y))) \(record.layout): "
        if let problem = now.problem {
            console.line(text + "\(describe(was)) -> \(problem)")
            return
        }
        // The same grid named once: what changed is what follows it (actionData, handler).
        text += was.hit == now.hit && was.tag == now.tag && was.tapClass == now.tapClass
            ? describe(was) : "\(describe(was)) -> \(describe(now))"
        if was.actionData != now.actionData { text += ", actionData \(was.actionData.compactJSON) -> \(now.actionData.compactJSON)" }
        if was.handler != now.handler { text += ", handler \(was.handler ?? "none") -> \(now.handler ?? "none")" }
        console.line(text)
    }

    func report(unreadable line: Int, _ error: EventRecord.Unreadable, json: Bool) {
        if json {
            console.line(#"{"line": \#(line), "unreadable": \#(jsonEscaped(error.message))}"#)
        } else {
            console.line("line \(line): unreadable: \(error.message)")
        }
    }
}

extension ReplayCommand.Outcome {
    /// What the record says the tap resolved to.
    init(_ record: TapRecord) {
        self.init(hit: record.hit, tag: record.tag, actionData: record.actionData, handler: record.handler,
                  tapClass: record.tapClass)
    }
}
