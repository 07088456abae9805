import TapgridCore
import TapgridSystem
import TapgridSystemd

/// The one tap-output path: carries out the engine's decisions (a `log` line, a child, a layout
/// switch) and writes what they leave behind, for plain taps, classed taps, contact events and
/// child exits alike: the event-log record, staged with where its reply says `"logged": false`
/// should it not reach the file, and the reply. Staged records are written before any reply is
/// sent (`writeStagedRecords`, which the request endpoint calls for every transport) and at the end of every wakeup, where the
/// held `log` lines follow. Owns the `TapEngine`; the tap path writes straight into the event
/// log's and the connection's byte buffers from `ActiveConfig`'s prebuilt fragments: no
/// Foundation, no String built per tap.
final class TapOutput {
    /// Unchecked: only loop-owned objects mutate it, never re-entrantly (a checked access costs
    /// a runtime call per tap).
    @exclusivity(unchecked) var engine: TapEngine
    let eventLog: EventLog
    let log: LogSink
    let supervisor: ChildSupervisor
    /// The time taps are decided at: the event log's, so a record's time and its tap's agree.
    var clock: RequestClock { eventLog.clock }
    /// JSON's `null`: the source of a stream no one named (written by the core's writer).
    private static let nullSource = Array(JSONValue.null.compactJSON.utf8)
    /// `"socket"`: the source of socket clients' contacts, as a JSON string.
    private let socketSource = TapOutput.jsonString("socket")
    /// The source of the contacts of connections that are not socket clients (a panel session's
    /// `panel`), by connection number: set from the connection's origin by `TouchInput`.
    private var connectionSources: [Int: [UInt8]] = [:]
    /// Touchscreens' names as JSON strings, by their (negative) stream numbers.
    private var touchscreenSources: [Int: [UInt8]] = [:]
    private var touchscreenStreams: [String: Int] = [:]

    /// Every decided tap and state change for the fleet and the browser panel, when the config
    /// has `mqtt` or `panel` (one nil test per tap without them).
    var outbox: Outbox?
    /// The fleet's queue for the `mqtt` handler's messages.
    weak var mqttHandler: MQTTHandlerQueue?

    init(engine: TapEngine, eventLog: EventLog, log: LogSink, supervisor: ChildSupervisor) {
        self.engine = engine
        self.eventLog = eventLog
        self.log = log
        self.supervisor = supervisor
    }

    /// The event log's phase of the wakeup's end (after the replies): the records still staged,
    /// then the held `log` lines.
    func endOfWakeup() {
        if eventLog.stagedCount > 0 { eventLog.writeStaged() }
        log.writeHeld()
    }

    /// Replies are about to be sent: every record staged so far is written first, with one
    /// `write(2)` (a failed or partial write turns exactly the lost records' replies into
    /// `"logged": false`). Cheap when nothing is staged.
    @inline(__always)
    func writeStagedRecords() {
        if eventLog.stagedCount > 0 { eventLog.writeStaged() }
    }

    // MARK: - Taps

    /// The tap path: decide, carry out, record, reply (`checkOnly`: a `hit`, decided, not recorded).
    /// - Parameter source: where a tap request came from when not the socket, as a JSON string
    ///   (`"mqtt"`), for its record.
    func tap(
        x: Double?, y: Double?, layout name: String?, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer, checkOnly: Bool,
        xText: UnsafeBufferPointer<UInt8>? = nil, yText: UnsafeBufferPointer<UInt8>? = nil, source: [UInt8]? = nil
    ) {
        guard let x else {
            ReplyWriter.error(.badRequest, "\"x\" is required", id: id, out)
            return
        }
        guard let y else {
            ReplyWriter.error(.badRequest, "\"y\" is required", id: id, out)
            return
        }
        guard let layout = engine.layoutIndex(for: name) else {
            ReplyWriter.error(.unknownLayout, engine.active.unknownLayout(name!), id: id, out)
            return
        }
        var decision: TapDecision
        if checkOnly {
            decision = engine.check(layout: layout, x: x, y: y)
        } else {
            let now = clock.monotonic
            decision = engine.tap(layout: layout, x: x, y: y, explicitLayout: name != nil, now: now)
            carryOut(&decision, x: x, y: y, now: now, source: source)
        }
        // A `let` the closure borrows (a captured `var` is copied, a TapDecision copy costing 120 instructions).
        let decided = consume decision
        withActive { active in
            // Looked up once for both the record and the reply.
            let hit = decided.target.map { active.hit(layout: layout, slot: $0.info) }
            let tail = active.tail(handler: decided.handler, outcome: decided.outcome)
            if !checkOnly && eventLog.isEnabled {
                if eventLog.isUnwritable {
                    ReplyWriter.tap(decided, id: id, active: active, hit: hit, tail: tail, logged: false, into: out)
                } else {
                    eventLog.withRecord { record in
                        TapRecord.write(
                            decided, x: x, y: y, active: active, hit: hit, tail: tail, source: source, xText: xText,
                            yText: yText, into: record)
                    }
                    ReplyWriter.tap(decided, id: id, active: active, hit: hit, tail: tail, logged: true, into: out)
                    eventLog.stage(notLoggedAt: out.count - 2, in: out)  // before the reply's `}\n`
                }
            } else {
                ReplyWriter.tap(decided, id: id, active: active, hit: hit, tail: tail, logged: true, into: out)
            }
            if log.verbose {
                log.debug("tap seq=\(decided.seq) layout=\(active.layouts[layout].name) x=\(x) y=\(y) outcome=\(decided.outcome)")
            }
        }
    }

    /// Calls `body` with the active config borrowed, not retained: a retain and a release per
    /// use were a tenth of a plain tap's instructions (callgrind). Safe because only
    /// `TapEngine.swap` (a reload, `load`, `unload`) replaces it, never a tap's carrying out.
    @inline(__always)
    private func withActive<R>(_ body: (ActiveConfig) -> R) -> R {
        Unmanaged.passUnretained(engine.active)._withUnsafeGuaranteedRef(body)
    }

    /// A classed tap: carried out, recorded (with `class` and `source`), and appended to `out`
    /// as an element of a touch op's `taps` when it completes a client's event (timer taps go to
    /// no client).
    func emit(_ tap: inout ClassedTap, reply out: ByteBuffer?) {
        let source = self.source(tap.key.stream)
        carryOut(&tap.decision, x: tap.x, y: tap.y, now: clock.monotonic, source: source)
        let decision = tap.decision
        let active = engine.active
        let hit = decision.target.map { active.hit(layout: decision.layout, slot: $0.info) }
        let tail = active.tail(handler: decision.handler, outcome: decision.outcome)
        if eventLog.isEnabled {
            TapRecord.write(decision, x: tap.x, y: tap.y, active: active, hit: hit, tail: tail, source: source,
                            into: eventLog.begin())
        }
        guard let out else {
            if eventLog.isEnabled { eventLog.stage() }
            return
        }
        ReplyWriter.tap(decision, id: nil, active: active, hit: hit, tail: tail, logged: true, inArray: true, into: out)
        if eventLog.isEnabled { eventLog.stage(notLoggedAt: out.count - 1, in: out) }  // before the element's `}`
    }

    /// Does what the decision asks of the daemon (`source`: its record's, nil for the socket's plain taps).
    private func carryOut(_ decision: inout TapDecision, x: Double, y: Double, now: UInt64, source: [UInt8]?) {
        if decision.toggledActive != nil, let target = decision.target {
            // The flip came first (the tap is routed with the new state): its record goes first.
            recordState(TapEngine.CellUpdate(
                seq: decision.seq, layout: decision.layout, grid: target.grid,
                state: engine.cellState(layout: decision.layout, grid: target.grid)), source: .toggle)
        }
        if decision.storedValue, let outbox, let target = decision.target {
            // A slider's value became its state (docs/touch.md "Sliders"): the page and the
            // fleet's retained state follow; the tap's record carries the value, so no state record.
            let state = engine.cellState(layout: decision.layout, grid: target.grid)
            withActive { outbox.append(.state(layout: decision.layout, grid: target.grid, state), active: $0) }
        }
        switch decision.action {
        case .none:
            break
        case .log:
            writeLogRecord(decision)
        case .switchLayout(let from, let to):
            if from != to {
                let handler = engine.active.config.handlers[Int(decision.handler)].name
                log.info("layout \(engine.active.layouts[to].name) is current (seq \(decision.seq), handler \(handler))")
                recordEndedContacts(now: now)
            }
        case .spawn:
            spawn(&decision, x: x, y: y, now: now)
        case .publish:
            let queued = mqttHandler?.publishHandlerMessage(decision) ?? false
            engine.settle(&decision, outcome: queued ? .dispatched : .busy, reason: nil, now: now)
        }
        if let outbox { withActive { outbox.append(.tap(decision, source: source), active: $0) } }
    }

    private func spawn(_ decision: inout TapDecision, x: Double, y: Double, now: UInt64) {
        let active = engine.active
        let slot = Int(decision.handler)
        let handler = active.config.handlers[slot]
        let layout = active.layouts[decision.layout]
        let target = decision.target!
        let info = layout.tree.infos[target.info]
        var request = ChildRequest(
            handlerIndex: slot, handler: handler, layout: layout.name, gridPath: layout.tree.path(of: target.grid),
            name: info.name, tag: info.tag == 0 ? nil : info.tag, actionData: info.actionData, x: x, y: y,
            seq: decision.seq)
        if engine.hasCellState { request.cell = engine.cellState(layout: decision.layout, grid: target.grid) }
        if let value = decision.value { request.slider = (decision.tapClass, value) }
        switch supervisor.submit(request) {
        case .dispatched:
            engine.settle(&decision, outcome: .dispatched, reason: nil, now: now)
        case .busy:
            engine.settle(&decision, outcome: .busy, reason: nil, now: now)
        case .denied(let why):
            log.info("seq \(decision.seq): handler \(handler.name) denied the tap: \(why)")
            engine.settle(&decision, outcome: .denied, reason: why, now: now)
        case .failed(let why):
            log.warning("seq \(decision.seq): handler \(handler.name) failed: \(why)")
            engine.settle(&decision, outcome: .failed, reason: why, now: now)
        }
    }

    /// A `log` handler's record: one line, its grid's part prebuilt (in the journal, with
    /// `TAPGRID_*` fields).
    private func writeLogRecord(_ decision: TapDecision) {
        let target = decision.target!
        withActive { $0.withLogTail(
            layout: decision.layout, grid: target.grid, slot: target.info, handler: target.handler,
            isTapHandler: decision.tapClass == .tap
        ) { tail in
            if log.journal {
                journalLogRecord(decision, tail: tail)
                return
            }
            // Held, and written with the wakeup's other lines after its replies.
            log.withHeldLine(.info) { line in
                line.append("tap seq=")
                line.append(uint: decision.seq)
                line.append(tail)
            }
        } }
    }

    private func journalLogRecord(_ decision: TapDecision, tail: UnsafeBufferPointer<UInt8>) {
        let active = engine.active
        let target = decision.target!
        let layout = active.layouts[decision.layout]
        let info = layout.tree.infos[target.info]
        let message = "tap seq=\(decision.seq)" + String(decoding: tail.dropLast(), as: UTF8.self)
        log.record(.info, message, kind: .tap) { entry in
            entry.append("TAPGRID_SEQ", decision.seq)
            entry.append("TAPGRID_LAYOUT", layout.name)
            entry.append("TAPGRID_OUTCOME", "dispatched")
            entry.append("TAPGRID_GRID", layout.tree.path(of: target.grid))
            if info.tag != 0 { entry.append("TAPGRID_TAG", info.tag) }
            entry.append("TAPGRID_HANDLER", active.config.handlers[Int(target.handler)].name)
        }
    }

    // MARK: - Cell state

    /// A state change's record (docs/cell-state.md), staged like a tap's.
    func recordState(_ update: TapEngine.CellUpdate, source: StateRecord.Source) {
        if let outbox { withActive { outbox.append(.state(layout: update.layout, grid: update.grid, update.state), active: $0) } }
        guard eventLog.isEnabled else { return }
        let layout = engine.active.layouts[update.layout]
        StateRecord.write(
            seq: update.seq, layout: layout.name, path: layout.tree.path(of: update.grid), state: update.state, source: source,
            into: eventLog.begin())
        eventLog.stage()
    }

    // MARK: - The screen

    /// A screen change's record (docs/screen.md), staged like a tap's, and its outbox event.
    /// - Returns: its `seq` (the commands it runs carry it).
    @discardableResult
    func recordScreen(_ state: ScreenState, reason: ScreenReason) -> UInt64 {
        let seq = engine.takeSeq()
        if let outbox { withActive { outbox.append(.screen(state), active: $0) } }
        guard eventLog.isEnabled else { return seq }
        ScreenRecord.write(seq: seq, state: state, reason: reason, into: eventLog.begin())
        eventLog.stage()
        return seq
    }

    /// The waking touch's record, in place of its contact's touch records.
    func recordWake(key: ContactKey, x: Double, y: Double) {
        let seq = engine.takeSeq()
        guard eventLog.isEnabled else { return }
        WakeRecord.write(seq: seq, source: source(key.stream), conn: key.stream > 0 ? key.stream : nil, x: x, y: y,
                         into: eventLog.begin())
        eventLog.stage()
    }

    // MARK: - Contact records

    /// The (negative) stream of a touchscreen's contacts, one per device name.
    func touchscreenStream(_ name: String) -> Int {
        if let known = touchscreenStreams[name] { return known }
        let stream = -(touchscreenStreams.count + 1)
        touchscreenStreams[name] = stream
        touchscreenSources[stream] = Self.jsonString(name)
        return stream
    }

    private func source(_ stream: Int) -> [UInt8] {
        if stream > 0 { return connectionSources.isEmpty ? socketSource : connectionSources[stream] ?? socketSource }
        return touchscreenSources[stream] ?? Self.nullSource
    }

    /// A connection that is not a socket client sends contacts: they are recorded with its source.
    func contactsCome(from connection: Connection) {
        guard connection.origin != .socket, connectionSources[connection.number] == nil else { return }
        connectionSources[connection.number] = RequestRouter.source(of: connection.origin)
    }

    /// The connection closed and its contacts ended.
    func connectionGone(_ connection: Connection) { connectionSources[connection.number] = nil }

    /// `text` as a JSON string, written by the core's writer.
    private static func jsonString(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendString(text, to: &bytes)
        return bytes
    }

    /// A contact event's record (`layout`: the one a `down` named; `current`: the layout current at a `down`).
    func writeTouchRecord(
        _ phase: TouchPhase, key: ContactKey, x: Double?, y: Double?, now: UInt64, layout: String?, current: String? = nil
    ) {
        guard eventLog.isEnabled else { return }
        TouchRecord.write(phase, slot: key.slot, x: x, y: y, source: source(key.stream), conn: key.stream > 0 ? key.stream : nil,
                          nanos: now, layout: layout, current: current, into: eventLog.begin())
        eventLog.stage()
    }

    /// Cancel records for the contacts the engine ended (a layout switch, a reload).
    func recordEndedContacts(now: UInt64) {
        guard !engine.endedContacts.isEmpty else { return }
        for key in engine.takeEndedContacts() {
            writeTouchRecord(.cancel, key: key, x: nil, y: nil, now: now, layout: nil)
        }
    }

    // MARK: - Children

    /// A finished child: its event-log record and a log line.
    func childExited(_ exit: ChildExit) {
        if eventLog.isEnabled {
            ChildExitRecord.write(
                seq: exit.seq, status: exit.status, signal: exit.signal, timedOut: exit.timedOut,
                durationMs: exit.durationMs, into: eventLog.begin())
            eventLog.stage()
        }
        let how = exit.signal.map { "killed by \($0)" + (exit.timedOut ? " (timed out)" : "") }
            ?? "exited with status \(exit.status ?? -1)"
        let text = "seq \(exit.seq): \(exit.handler) child \(exit.pid) \(how) after \(exit.durationMs) ms"
        log.record(exit.status == 0 ? .info : .warning, text, kind: .childExit) { entry in
            entry.append("TAPGRID_SEQ", exit.seq)
            entry.append("TAPGRID_HANDLER", exit.handler)
            if let signal = exit.signal { entry.append("TAPGRID_SIGNAL", signal) } else { entry.append("TAPGRID_EXIT_STATUS", exit.status ?? -1) }
            if exit.timedOut { entry.append("TAPGRID_TIMED_OUT", "1") }
            entry.append("TAPGRID_DURATION_MS", exit.durationMs)
        }
    }

    func childOutput(_ line: ChildOutputLine) {
        log.record(.info, "seq \(line.seq) \(line.handler) \(line.stream): \(line.text)", kind: .childOutput) { entry in
            entry.append("TAPGRID_SEQ", line.seq)
            entry.append("TAPGRID_HANDLER", line.handler)
            entry.append("TAPGRID_STREAM", line.stream)
        }
    }
}
