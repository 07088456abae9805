import TapgridArguments
import TapgridCore
import TapgridSystem

/// `tapgrid replay EVENTS --dispatch --socket PATH [--speed F]`: sends the recorded taps to a
/// running daemon as real taps and counts what became of them. A demo (yesterday's traffic played
/// to a new screen), a soak test (a day played at speed 1 over a day) or a load made of real
/// traffic (`--speed 0`).
///
/// Each tap goes out as `{"op":"tap","x":X,"y":Y,"layout":L}` with its recorded layout, so it lands
/// on the page it was recorded on whatever the daemon's current page is (and, naming its layout,
/// it is not quieted by a layout switch: debounce of a grid still applies). A state record of a
/// `set` (source `socket` or `mqtt`) goes out as the `set` that leaves its grid in the recorded
/// state (`RecordedState.request`: layout, path and all four keys), in its place among the taps,
/// so a grid disabled while recording refuses the same taps; a toggle's state record is not sent
/// (the daemon flips its toggles on the taps themselves). Requests are sent when due: the
/// recorded gaps between their `time`s (backwards jumps of the clock count as none) divided by
/// the speed; at speed 0 all are due at once. At most `replayDispatchWindow` are unanswered at
/// any moment, so a slow daemon slows the replay instead of piling up requests. Replies come back
/// in order (the protocol's promise), so the unanswered requests are simply the ones between the
/// last answered and the next to send.
struct ReplayDispatch {
    let console: Console

    /// No reply for this long while taps wait for one: the daemon is taken to be stuck.
    static let replyTimeoutNanos: UInt64 = 30_000_000_000
    /// A progress line appears once a run has lasted this long: a short log is done before it,
    /// and a long one (many taps, or taps spread over time) says where it is.
    static let progressAfterNanos: UInt64 = 1_000_000_000
    /// How often the progress line is redrawn.
    static let progressEveryNanos: UInt64 = 250_000_000

    /// A record to send: a tap, or a `set`'s state record.
    struct Step {
        enum Record {
            case tap(TapRecord)
            case set(RecordedState)
        }

        /// The line of the event log it came from (1-based), for reports.
        var line: Int
        var record: Record
        /// When it is due after the first, at speed 1, in seconds.
        var offset: Double
        /// The `HH:MM:SS` of its recorded time, for the progress line.
        var clock: Substring?

        /// The request line to send, written by the core (`Request`, `ControlRequest.Set`).
        var request: [UInt8] {
            switch record {
            case .tap(let tap): return ReplayCommand.request(.tap, tap).line
            case .set(let state): return state.request.json + [0x0A]
            }
        }
    }

    /// Outcome counts, in the order of `Outcome.allCases`, then any name a newer daemon answers with.
    struct Tally {
        private(set) var names: [String] = Outcome.allCases.filter { $0 != .checked }.map { $0.name.description }
        private(set) var counts: [String: Int] = [:]

        mutating func add(_ outcome: String) {
            if counts[outcome] == nil && !names.contains(outcome) { names.append(outcome) }
            counts[outcome, default: 0] += 1
        }

        subscript(_ name: String) -> Int { counts[name] ?? 0 }
    }

    func run(_ options: ReplayOptions, events bytes: [UInt8]) -> Int32 {
        let socket = options.socket!  // the arguments require it with --dispatch
        var steps: [Step] = []
        var unreadable = 0
        var previous: Double? = nil
        var offset = 0.0
        for (number, line) in LineFramer.lines(of: bytes) {
            let record: Step.Record
            switch EventRecord.read(line) {
            case nil, .success(.event)?, .success(.touch)?:
                // Contact events are not re-sent: their taps (class and all) go as plain taps.
                continue
            case .success(.state(let state))? where !state.isSet:
                // A toggle's flip: the daemon makes it again on the tap that follows.
                continue
            case .failure(let error)?:
                unreadable += 1
                ReplayCommand(console: console).report(unreadable: number, error, json: options.json)
                continue
            case .success(.state(let state))?: record = .set(state)
            case .success(.tap(let tap))?: record = .tap(tap)
            }
            let time = Self.recordedTime(line)
            var clock: Substring? = nil
            if let time, let seconds = RecordedTime.seconds(time) {
                if let previous { offset += max(0, seconds - previous) }
                previous = seconds
                clock = time.dropFirst(11).prefix(8)
            }
            steps.append(Step(line: number, record: record, offset: offset, clock: clock))
        }
        let sets = steps.filter(\.isSet).count
        let taps = steps.count - sets
        /// What was sent, for people: `11 taps`, or `11 taps and 2 sets`.
        let sent = counted(taps, "tap") + (sets > 0 ? " and " + counted(sets, "set") : "")

        var client: DaemonClient
        do {
            client = try DaemonClient(path: socket, timeoutSeconds: Double(Self.replyTimeoutNanos / 1_000_000_000))
        } catch {
            console.error(SocketProblem.connectFailed(error, socket: socket))
            return TapgridCLIMain.unavailable
        }

        var tally = Tally()
        var errors = 0, notLogged = 0
        var next = 0, answered = 0
        let start = Clock.monotonicNanos()
        var waitingSince = start
        var progress = Progress(console: console, start: start)
        /// When step `index` is due, on the monotonic clock.
        func due(_ index: Int) -> UInt64 {
            guard options.speed > 0 else { return start }
            return start &+ UInt64(min(steps[index].offset / options.speed * 1e9, 1e18))
        }
        func lost(_ why: String) -> Int32 {
            progress.clear()
            console.error("\(why) (\(answered) of \(sent) answered)")
            return TapgridCLIMain.unavailable
        }

        while answered < steps.count {
            var now = Clock.monotonicNanos()
            var request: [UInt8] = []
            let wasIdle = next == answered
            while next < steps.count, next - answered < replayDispatchWindow, due(next) <= now {
                request += steps[next].request
                next += 1
            }
            if !request.isEmpty {
                if wasIdle { waitingSince = now }
                do {
                    try client.send(request)
                } catch {
                    return lost("the daemon at \(socket) stopped taking taps: \(error.errno)")
                }
                progress.sent(steps[next - 1].clock)
            }
            while answered < next, let line = client.bufferedLine() {
                let step = steps[answered]
                answered += 1
                waitingSince = now
                let problem: DispatchReport.Problem
                switch try? DaemonReply.read(line) {
                case .ok(let value)? where step.isSet:
                    guard value["ok"] == .bool(true) else {
                        problem = .unexpected(code: "not_ok", message: "the daemon answered " + String(decoding: line, as: UTF8.self))
                        break
                    }
                    continue
                case .ok(let value)?:
                    let reply = TapReply(value)
                    guard let outcome = reply.outcome else {
                        problem = .unexpected(code: "no_outcome", message: "the daemon answered " + String(decoding: line, as: UTF8.self))
                        break
                    }
                    tally.add(outcome)
                    if !reply.logged { notLogged += 1 }
                    continue
                case .error(let error)?: problem = .reply(error.value)
                case nil: problem = .unexpected(code: "not_json", message: "the daemon answered " + String(decoding: line, as: UTF8.self))
                }
                errors += 1
                progress.clear()
                report(step, problem, json: options.json)
            }
            if answered == steps.count { break }

            // Wait for replies, and no longer than until the next tap is due.
            now = Clock.monotonicNanos()
            var wait = Self.replyTimeoutNanos
            if next < steps.count, next - answered < replayDispatchWindow {
                let nextDue = due(next)
                wait = nextDue > now ? nextDue - now : 0
            }
            if next > answered {
                let waited = now - waitingSince
                if waited >= Self.replyTimeoutNanos {
                    return lost("the daemon at \(socket) has not answered for \(Self.replyTimeoutNanos / 1_000_000_000) s")
                }
                wait = min(wait, Self.replyTimeoutNanos - waited)
            }
            if console.stderrIsTerminal { wait = min(wait, Self.progressEveryNanos) }
            if wait > 0 || next - answered >= replayDispatchWindow || next == steps.count {
                let milliseconds = Int32(min((wait + 999_999) / 1_000_000, UInt64(Int32.max)))
                do {
                    if try client.receive(timeoutMilliseconds: milliseconds) == .closed {
                        return lost("the daemon at \(socket) closed the connection")
                    }
                } catch {
                    return lost(error.description)
                }
            }
            progress.update(answered: answered, total: steps.count, sets: sets > 0, now: Clock.monotonicNanos())
        }
        progress.clear()

        if options.json {
            let outcomes = tally.names.map { (name: $0, count: tally[$0]) }
            console.line(DispatchReport.summary(
                taps: taps, sets: sets, outcomes: outcomes, errors: errors, notLogged: notLogged, unreadable: unreadable).json)
        } else {
            var text = "\(sent) answered: " + tally.names.map { "\($0) \(tally[$0])" }.joined(separator: ", ")
            var extras: [String] = []
            if errors > 0 { extras.append(counted(errors, "error")) }
            if notLogged > 0 { extras.append("\(notLogged) not logged") }
            if unreadable > 0 { extras.append("\(unreadable) unreadable") }
            if !extras.isEmpty { text += "; " + extras.joined(separator: ", ") }
            console.line(text)
        }
        return TapgridCLIMain.success
    }

    /// The record's `time`, if it has one as a string. `TapRecord` leaves it out (the replay
    /// comparison must ignore it); only the pacing here needs it.
    static func recordedTime(_ line: ArraySlice<UInt8>) -> String? {
        guard case .string(let time)? = (try? JSONParser.parse(Array(line), lenient: false))?["time"] else { return nil }
        return time
    }

    /// An error reply (`line 12 seq 9 (300, 100) settings: unknown_layout: unknown layout ...`;
    /// for a set `line 5 seq 4 set panel 2: unknown_grid: ...`), or a reply that is not what the
    /// protocol promises, reported like one.
    func report(_ step: Step, _ problem: DispatchReport.Problem, json: Bool) {
        if json {
            switch step.record {
            case .tap(let tap): console.line(DispatchReport.error(line: step.line, record: tap, problem).json)
            case .set(let state): console.line(DispatchReport.setError(line: step.line, state: state, problem).json)
            }
            return
        }
        var code = "error", message: String
        switch problem {
        case .reply(let error):
            message = error.compactJSON
            if let text = error["code"]?.stringValue { code = text }
            if let text = error["message"]?.stringValue { message = text }
        case .unexpected(let given, let text):
            code = given
            message = text
        }
        let prefix: String
        switch step.record {
        case .tap(let tap): prefix = ReplayCommand.prefix(line: step.line, tap)
        case .set(let state): prefix = "line \(step.line) seq \(state.seq) set \(state.layout) \(HumanText.gridLabel(state.grid)): "
        }
        console.line(prefix + "\(code): \(message)")
    }

    /// The line on a terminal's stderr that says how far a long replay is:
    /// `replay: 1234/5000 taps answered (24%), recorded 10:41:07`, redrawn in place and erased
    /// before anything else is printed and at the end. Nothing at all when stderr is no terminal.
    struct Progress {
        let console: Console
        let start: UInt64
        private var shown = false
        private var lastDrawn: UInt64 = 0
        private var clock: Substring? = nil

        init(console: Console, start: UInt64) {
            self.console = console
            self.start = start
        }

        /// Notes the recorded time of the last tap sent.
        mutating func sent(_ clock: Substring?) {
            if let clock { self.clock = clock }
        }

        /// - Parameter sets: whether the requests include sets (`taps and sets answered`).
        mutating func update(answered: Int, total: Int, sets: Bool, now: UInt64) {
            guard console.stderrIsTerminal, now - start >= ReplayDispatch.progressAfterNanos,
                !shown || now - lastDrawn >= ReplayDispatch.progressEveryNanos
            else { return }
            var text = "replay: \(answered)/\(total) taps\(sets ? " and sets" : "") answered (\(answered * 100 / max(total, 1))%)"
            if let clock { text += ", recorded \(clock)" }
            console.err("\r\u{1B}[K" + text)
            shown = true
            lastDrawn = now
        }

        /// Erases the line (before a report line on stdout, which shares the terminal, and at the end).
        mutating func clear() {
            guard shown else { return }
            console.err("\r\u{1B}[K")
            shown = false
        }
    }
}

extension ReplayDispatch.Step {
    var isSet: Bool {
        if case .set = record { return true }
        return false
    }
}
