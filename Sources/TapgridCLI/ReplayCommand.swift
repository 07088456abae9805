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
    }

    /// A tap record read back from the event log.
    struct TapRecord {
        var line: Int
        var seq: String
        var layout: String
        var x: Double
        var y: Double
        var recorded: Outcome
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
        let replay: (TapRecord) -> Outcome
        var client: UnixClient?
        if let socket = options.socket {
            do {
                client = try UnixClient(path: socket, timeoutSeconds: 30)
            } catch {
                console.error("\(error.description) (is tapgridd running?)")
                return TapgridCLIMain.unavailable
            }
            replay = { _ in Outcome(hit: nil, tag: nil, actionData: .null, handler: nil) }  // replaced below
        } else {
            let path = DefaultPaths.configPath(cli: options.config, environment: console.environment)
            let (config, diagnostics) = ConfigLoader.load(path: path)
            guard let config else {
                for error in diagnostics.errors { console.err("error: \(error)\n") }
                return TapgridCLIMain.failure
            }
            replay = { record in ReplayCommand.replayOffline(record, config: config) }
        }
        var taps = 0, differ = 0, unreadable = 0
        for (number, line) in splitLines(bytes) {
            let record: TapRecord?
            switch readRecord(line, number: number) {
            case .failure(let message):
                unreadable += 1
                report(unreadable: number, message, json: options.json)
                continue
            case .success(let found): record = found
            }
            guard let record else { continue }
            taps += 1
            let now: Outcome
            if client != nil {
                now = replayOnline(record, client: &client!)
                if now.problem == "connection lost" {
                    console.error("the daemon closed the connection at line \(number)")
                    return TapgridCLIMain.unavailable
                }
            } else {
                now = replay(record)
            }
            if now != record.recorded {
                differ += 1
                report(record, now: now, json: options.json)
            }
        }
        if options.json {
            console.line(#"{"taps": \#(taps), "differ": \#(differ), "unreadable": \#(unreadable)}"#)
        } else {
            console.line("\(taps) tap\(taps == 1 ? "" : "s"), \(differ) differ" + (unreadable > 0 ? ", \(unreadable) unreadable" : ""))
        }
        return differ == 0 && unreadable == 0 ? TapgridCLIMain.success : TapgridCLIMain.failure
    }

    /// Lines with their 1-based numbers; a torn last line (no `\n`) is still returned.
    func splitLines(_ bytes: [UInt8]) -> [(Int, ArraySlice<UInt8>)] {
        var lines: [(Int, ArraySlice<UInt8>)] = []
        var start = 0
        var number = 1
        for index in bytes.indices where bytes[index] == 10 {
            lines.append((number, bytes[start..<index]))
            start = index + 1
            number += 1
        }
        if start < bytes.count { lines.append((number, bytes[start...])) }
        return lines
    }

    /// A tap record, nil for other records (child exits) and blank lines, or why it is unreadable.
    func readRecord(_ line: ArraySlice<UInt8>, number: Int) -> Result<TapRecord?, ReplayError> {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return .success(nil) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(line), lenient: false)
        } catch {
            return .failure(ReplayError("not JSON (\(error))"))
        }
        guard case .object = value else { return .failure(ReplayError("not a JSON object")) }
        if value["event"] != nil { return .success(nil) }
        guard case .string(let layout)? = value["layout"], case .number(let x)? = value["x"], case .number(let y)? = value["y"],
            let seq = value["seq"]
        else { return .failure(ReplayError("not a tap record (needs layout, x, y and seq)")) }
        var recorded = Outcome(hit: nil, tag: nil, actionData: value["actionData"] ?? .null, handler: nil)
        if case .string(let path)? = value["hit"] { recorded.hit = path }
        if case .number(let tag)? = value["tag"] { recorded.tag = tag.int64 }
        if case .string(let handler)? = value["handler"] { recorded.handler = handler }
        return .success(TapRecord(line: number, seq: seq.compactJSON, layout: layout, x: x.double, y: y.double, recorded: recorded))
    }

    struct ReplayError: Error { let message: String; init(_ message: String) { self.message = message } }

    static func replayOffline(_ record: TapRecord, config: Config) -> Outcome {
        guard let index = config.layoutIndex(named: record.layout) else {
            return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: "layout \(jsonEscaped(record.layout)) no longer exists")
        }
        let layout = config.layouts[index]
        guard let grid = layout.resolved.hit(x: record.x, y: record.y) else {
            return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil)
        }
        let info = layout.tree.info(of: grid)
        return Outcome(
            hit: layout.tree.path(of: grid), tag: info.flatMap { $0.tag != 0 ? $0.tag : nil },
            actionData: info?.actionData ?? .null, handler: info.flatMap { config.handlerName($0.handler) })
    }

    func replayOnline(_ record: TapRecord, client: inout UnixClient) -> Outcome {
        var request: [UInt8] = Array(#"{"op":"hit","x":"#.utf8)
        JSONWriter.appendNumber(record.x, to: &request)
        request.append(contentsOf: #","y":"#.utf8)
        JSONWriter.appendNumber(record.y, to: &request)
        request.append(contentsOf: #","layout":"#.utf8)
        JSONWriter.appendString(record.layout, to: &request)
        request.append(contentsOf: "}\n".utf8)
        guard (try? client.send(request)) != nil, let line = try? client.readLine(),
            let reply = try? JSONParser.parse(line, lenient: false)
        else { return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: "connection lost") }
        if let error = reply["error"] {
            return Outcome(hit: nil, tag: nil, actionData: .null, handler: nil, problem: HumanReply.text(error["message"]))
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
        guard let hit = outcome.hit else { return "miss" }
        return HumanText.gridLabel(hit) + (outcome.tag.map { " tag \($0)" } ?? "")
    }

    func report(_ record: TapRecord, now: Outcome, json: Bool) {
        let was = record.recorded
        if json {
            func object(_ o: Outcome) -> String {
                var text = #"{"hit": \#(o.hit.map(jsonEscaped) ?? "null"), "tag": \#(o.tag.map(String.init) ?? "null"), "actionData": \#(o.actionData.compactJSON), "handler": \#(o.handler.map(jsonEscaped) ?? "null")"#
                if let problem = o.problem { text += #", "problem": \#(jsonEscaped(problem))"# }
                return text + "}"
            }
            console.line(#"{"line": \#(record.line), "seq": \#(record.seq), "x": \#(formatNumber(record.x)), "y": \#(formatNumber(record.y)), "layout": \#(jsonEscaped(record.layout)), "recorded": \#(object(was)), "replayed": \#(object(now))}"#)
            return
        }
        var text = "line \(record.line) seq \(record.seq) (\(formatNumber(record.x)), \(formatNumber(record.y))) \(record.layout): "
        if let problem = now.problem {
            console.line(text + "\(describe(was)) -> \(problem)")
            return
        }
        text += "\(describe(was)) -> \(describe(now))"
        if was.actionData != now.actionData { text += ", actionData \(was.actionData.compactJSON) -> \(now.actionData.compactJSON)" }
        if was.handler != now.handler { text += ", handler \(was.handler ?? "none") -> \(now.handler ?? "none")" }
        console.line(text)
    }

    func report(unreadable line: Int, _ error: ReplayError, json: Bool) {
        if json {
            console.line(#"{"line": \#(line), "unreadable": \#(jsonEscaped(error.message))}"#)
        } else {
            console.line("line \(line): unreadable: \(error.message)")
        }
    }
}
