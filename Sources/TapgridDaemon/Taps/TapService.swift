import TapgridCore
import TapgridSystem
import TapgridSystemd

/// Answers request lines: taps and hit-tests go to the `TapEngine`, whose decisions this carries
/// out (the log record, the child, the event-log record before the reply); `status`, `layouts`,
/// `use` and `reload` are answered here too. The tap path writes straight into the event log's and
/// the connection's byte buffers from `ActiveConfig`'s prebuilt fragments: no Foundation, no
/// String built per tap.
final class TapService: LineHandler {
    /// Unchecked: only this loop-owned object mutates it, never re-entrantly (a checked access
    /// costs a runtime call per tap).
    @exclusivity(unchecked) private(set) var engine: TapEngine
    private let eventLog: EventLog
    private let log: LogSink
    let supervisor: ChildSupervisor
    /// How many clients are connected (the socket server's count, for `status`).
    var clientCount: () -> Int = { 0 }
    private let daemonUID: UInt32
    private let startNanos = Clock.monotonicNanos()
    /// Asks the daemon for a reload on behalf of a connection (which now waits for it).
    var requestReload: (Connection) -> Void = { _ in }
    /// Keeps the loop's `.touch` deadline at the recognizer's next timer.
    var scheduleTouch: (UInt64?) -> Void = { _ in }
    /// Taps the recognizer fired (reused between events).
    private var classed: [ClassedTap] = []
    /// `"socket"`: the source of socket clients' contacts, as a JSON string.
    private let socketSource = Array(#""socket""#.utf8)
    /// Touchscreens' names as JSON strings, by their (negative) stream numbers.
    private var touchscreenSources: [Int: [UInt8]] = [:]
    private var touchscreenStreams: [String: Int] = [:]

    init(engine: TapEngine, eventLog: EventLog, log: LogSink, supervisor: ChildSupervisor, daemonUID: UInt32) {
        self.engine = engine
        self.eventLog = eventLog
        self.log = log
        self.supervisor = supervisor
        self.daemonUID = daemonUID
    }

    var generation: UInt64 { engine.active.generation }
    var config: Config { engine.active.config }

    /// Swaps in a newly loaded config (see `TapEngine.swap`); contacts in flight end.
    func swap(to config: Config, generation: UInt64) {
        engine.swap(to: config, generation: generation)
        recordEndedContacts(now: Clock.monotonicNanos())
        scheduleTouch(engine.nextTouchDeadline)
    }

    // MARK: - Requests

    func handleLine(_ line: UnsafeBufferPointer<UInt8>, from connection: Connection) {
        // Empty or whitespace-only lines are ignored.
        var blank = true
        for byte in line where !(byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A) {
            blank = false
            break
        }
        if blank { return }
        let out = connection.output
        if let plain = RequestScanner.plainTap(line) {
            tap(x: plain.x, y: plain.y, layout: nil, id: nil, out, checkOnly: false, xText: plain.xText, yText: plain.yText)
            return
        }
        // Scanned into a local and passed on borrowed: no copy of the `Request` per tap.
        var request = Request()
        if let failure = RequestScanner.scan(line, into: &request) {
            ReplyWriter.error(failure.error.errorCode, failure.message, id: failure.id.map { UnsafeBufferPointer(rebasing: line[$0]) }, out)
            return
        }
        let id = request.id.map { UnsafeBufferPointer(rebasing: line[$0]) }
        switch request.op {
        case .tap: tap(x: request.x, y: request.y, layout: request.layout, id: id, out, checkOnly: false)
        case .hit: tap(x: request.x, y: request.y, layout: request.layout, id: id, out, checkOnly: true)
        case .status: writeStatus(id: id, out)
        case .layouts: writeLayouts(id: id, out)
        case .use: use(request, id: id, connection)
        case .down: touch(.down, request, id: id, connection)
        case .move: touch(.move, request, id: id, connection)
        case .up: touch(.up, request, id: id, connection)
        case .cancel: touch(.cancel, request, id: id, connection)
        case .reload:
            guard mayControl(connection) else {
                ReplyWriter.error(.forbidden, "uid \(connection.uid) may not reload (socket.allowControl)", id: id, out)
                return
            }
            connection.pendingReload = .some(id.map { Array($0) })
            requestReload(connection)
        case .unknown(let name):
            ReplyWriter.error(
                .unknownOp, "unknown op \(jsonEscaped(name)); expected tap, hit, status, reload, use, layouts, down, move, up or cancel",
                id: id, out)
        }
    }

    /// Whether the connection may `reload` and `use` (`socket.allowControl`; absent: anyone).
    private func mayControl(_ connection: Connection) -> Bool {
        guard let allow = engine.active.config.socket.allowControl else { return true }
        return allow.allows(uid: connection.uid, gids: connection.gids, daemonUID: daemonUID)
    }

    private func use(_ request: Request, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        guard mayControl(connection) else {
            ReplyWriter.error(.forbidden, "uid \(connection.uid) may not switch layouts (socket.allowControl)", id: id, out)
            return
        }
        guard let name = request.layout else {
            ReplyWriter.error(.badRequest, "\"layout\" is required", id: id, out)
            return
        }
        let before = engine.currentLayout
        guard engine.use(layout: name) else {
            ReplyWriter.error(.unknownLayout, engine.active.unknownLayout(name), id: id, out)
            return
        }
        if engine.currentLayout != before {
            log.info("layout \(name) is current (op use)")
            recordEndedContacts(now: Clock.monotonicNanos())
        }
        out.append(0x7B)
        ReplyWriter.id(id, out)
        out.append(#""ok":true,"layout":"#)
        out.append(jsonString: name)
        out.append("}\n")
    }

    // MARK: - Taps

    /// The tap path: decide, carry out, record, reply.
    private func tap(
        x: Double?, y: Double?, layout name: String?, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer, checkOnly: Bool,
        xText: UnsafeBufferPointer<UInt8>? = nil, yText: UnsafeBufferPointer<UInt8>? = nil
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
            let now = Clock.monotonicNanos()
            decision = engine.tap(layout: layout, x: x, y: y, explicitLayout: name != nil, now: now)
            carryOut(&decision, x: x, y: y, now: now)
        }
        let active = engine.active
        // Looked up once for both the record and the reply.
        let hit = decision.target.map { active.hit(layout: layout, slot: $0.info) }
        let tail = active.tail(handler: decision.handler, outcome: decision.outcome)
        // The record is staged with its reply; the socket server has the staged records written
        // (`writeRecords`) before it sends any reply, and the event log marks the replies of
        // records that did not reach the file: a client never sees a reply for a tap the log
        // does not have (unless the reply says "logged": false).
        if !checkOnly && eventLog.isEnabled {
            if eventLog.isUnwritable {
                ReplyWriter.tap(decision, id: id, active: active, hit: hit, tail: tail, logged: false, into: out)
            } else {
                TapRecord.write(
                    decision, x: x, y: y, active: active, hit: hit, tail: tail, xText: xText, yText: yText, into: eventLog.begin())
                ReplyWriter.tap(decision, id: id, active: active, hit: hit, tail: tail, logged: true, into: out)
                eventLog.stage(replyEnd: out.count, in: out)
            }
        } else {
            ReplyWriter.tap(decision, id: id, active: active, hit: hit, tail: tail, logged: true, into: out)
        }
        if log.verbose {
            log.debug("tap seq=\(decision.seq) layout=\(active.layouts[layout].name) x=\(x) y=\(y) outcome=\(decision.outcome)")
        }
    }

    /// Does what the decision asks of the daemon.
    private func carryOut(_ decision: inout TapDecision, x: Double, y: Double, now: UInt64) {
        switch decision.action {
        case .none:
            return
        case .log:
            writeLogRecord(decision)
        case .switchLayout(let from, let to):
            if from != to {
                let handler = engine.active.config.handlers[Int(decision.handler)].name
                log.info("layout \(engine.active.layouts[to].name) is current (seq \(decision.seq), handler \(handler))")
                recordEndedContacts(now: now)
            }
        case .spawn:
            let active = engine.active
            let slot = Int(decision.handler)
            let handler = active.config.handlers[slot]
            let layout = active.layouts[decision.layout]
            let target = decision.target!
            let info = layout.tree.infos[target.info]
            let request = ChildRequest(
                handlerIndex: slot, handler: handler, layout: layout.name, gridPath: layout.tree.path(of: target.grid),
                name: info.name, tag: info.tag == 0 ? nil : info.tag, actionData: info.actionData, x: x, y: y,
                seq: decision.seq)
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
    }

    /// A `log` handler's record: one line, its grid's part prebuilt (in the journal, with
    /// `TAPGRID_*` fields).
    private func writeLogRecord(_ decision: TapDecision) {
        let target = decision.target!
        engine.active.withLogTail(
            layout: decision.layout, grid: target.grid, slot: target.info, handler: target.handler,
            isTapHandler: decision.tapClass == .tap
        ) { tail in
            if log.journal {
                journalLogRecord(decision, tail: tail)
                return
            }
            // Held, and written with the wakeup's other lines by `writeDeferred`.
            let line = log.beginHeldLine(.info)
            line.append("tap seq=")
            line.append(uint: decision.seq)
            line.append(tail)
        }
    }

    // MARK: - Around sending

    /// Writes the staged event-log records (all taps answered since the last call, from every
    /// connection) with one `write(2)`. The socket server calls it before it sends any reply,
    /// which keeps the log-before-reply promise at one `write` per loop wakeup instead of per tap.
    func writeRecords() {
        if eventLog.stagedCount > 0 { eventLog.writeStaged() }
    }

    /// Writes the `log` handlers' lines held since the last call with one `write(2)`; the socket
    /// server calls it once the wakeup's replies are sent, so they do not wait for it.
    func writeDeferred() { log.writeHeld() }

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

    // MARK: - Touch contacts

    /// A socket client's contact event: recognized, recorded, answered with the taps it completed.
    private func touch(_ phase: TouchPhase, _ request: Request, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        var layout: Int? = nil
        if phase == .down || phase == .move {
            guard request.x != nil else {
                ReplyWriter.error(.badRequest, "\"x\" is required", id: id, out)
                return
            }
            guard request.y != nil else {
                ReplyWriter.error(.badRequest, "\"y\" is required", id: id, out)
                return
            }
        }
        if phase == .down, let name = request.layout {
            guard let index = engine.layoutIndex(for: name) else {
                ReplyWriter.error(.unknownLayout, engine.active.unknownLayout(name), id: id, out)
                return
            }
            layout = index
        }
        let key = ContactKey(stream: connection.number, slot: request.slot ?? 0)
        if phase == .down && engine.isDown(key) {
            ReplyWriter.error(.badRequest, "slot \(key.slot) is already down", id: id, out)
            return
        }
        connection.touched = true
        ReplyWriter.touchStart(id: id, into: out)
        contact(phase, key: key, x: request.x, y: request.y, layout: layout, layoutName: phase == .down ? request.layout : nil,
                now: Clock.monotonicNanos(), reply: out)
        ReplyWriter.touchEnd(into: out)
    }

    /// A touchscreen's contact (positions already in the current layout's units): the same
    /// recognizer as socket contacts, its records' `source` the device's name, no reply.
    func touchscreenContact(_ sample: TouchscreenContact) {
        let phase: TouchPhase
        switch sample.phase {
        case .down: phase = .down
        case .move: phase = .move
        case .up: phase = .up
        case .cancel: phase = .cancel
        }
        let placed = phase != .cancel
        contact(phase, key: ContactKey(stream: touchscreenStream(sample.source), slot: Int(sample.slot)),
                x: placed ? sample.x : nil, y: placed ? sample.y : nil, layout: nil, layoutName: nil, now: sample.timeNanos,
                reply: nil)
    }

    /// The (negative) stream of a touchscreen's contacts, one per device name.
    private func touchscreenStream(_ name: String) -> Int {
        if let known = touchscreenStreams[name] { return known }
        let stream = -(touchscreenStreams.count + 1)
        touchscreenStreams[name] = stream
        var source: [UInt8] = []
        JSONWriter.appendString(name, to: &source)
        touchscreenSources[stream] = source
        return stream
    }

    /// One contact event from any source: timers due before it fire first, then the event is
    /// recorded and recognized; the taps it completes are carried out, recorded, and appended to
    /// `reply` (a socket client's) as its `taps`.
    /// - Returns: false when the event was refused (a `down` on a slot already down).
    @discardableResult
    func contact(
        _ phase: TouchPhase, key: ContactKey, x: Double?, y: Double?, layout: Int?, layoutName: String?, now: UInt64,
        reply: ByteBuffer?
    ) -> Bool {
        runTouchTimers(now: now)
        classed.removeAll(keepingCapacity: true)
        do throws(TouchError) {
            try engine.touch(phase, key: key, x: x, y: y, layout: layout, now: now, into: &classed)
        } catch {
            return false
        }
        writeTouchRecord(phase, key: key, x: x, y: y, now: now, layout: layoutName,
                         current: phase == .down ? engine.currentLayoutName : nil)
        for index in classed.indices {
            if index > 0 { reply?.append(0x2C) }
            emit(&classed[index], reply: reply)
        }
        recordEndedContacts(now: now)
        scheduleTouch(engine.nextTouchDeadline)
        return true
    }

    /// The loop's `.touch` deadline: long presses, hold repeats, ended double-tap windows.
    func touchTimersDue() {
        runTouchTimers(now: Clock.monotonicNanos())
        scheduleTouch(engine.nextTouchDeadline)
    }

    private func runTouchTimers(now: UInt64) {
        guard !engine.touchIsIdle else { return }
        classed.removeAll(keepingCapacity: true)
        engine.advanceTouch(to: now, into: &classed)
        for index in classed.indices { emit(&classed[index], reply: nil) }
        recordEndedContacts(now: now)
    }

    /// A classed tap: carried out, recorded (with `class` and `source`), and replied when it
    /// completes a client's event (timer taps go to no client).
    private func emit(_ tap: inout ClassedTap, reply out: ByteBuffer?) {
        carryOut(&tap.decision, x: tap.x, y: tap.y, now: Clock.monotonicNanos())
        let decision = tap.decision
        let active = engine.active
        let hit = decision.target.map { active.hit(layout: decision.layout, slot: $0.info) }
        let tail = active.tail(handler: decision.handler, outcome: decision.outcome)
        var logged = true
        if eventLog.isEnabled {
            TapRecord.write(decision, x: tap.x, y: tap.y, active: active, hit: hit, tail: tail, source: source(tap.key.stream),
                            into: eventLog.begin())
            logged = eventLog.commit()
        }
        if let out {
            ReplyWriter.tap(decision, id: nil, active: active, hit: hit, tail: tail, logged: logged, inArray: true, into: out)
        }
    }

    private func source(_ stream: Int) -> [UInt8] { stream > 0 ? socketSource : touchscreenSources[stream] ?? Array("null".utf8) }

    private func writeTouchRecord(
        _ phase: TouchPhase, key: ContactKey, x: Double?, y: Double?, now: UInt64, layout: String?, current: String? = nil
    ) {
        guard eventLog.isEnabled else { return }
        TouchRecord.write(phase, slot: key.slot, x: x, y: y, source: source(key.stream), conn: key.stream > 0 ? key.stream : nil,
                          nanos: now, layout: layout, current: current, into: eventLog.begin())
        _ = eventLog.commit()
    }

    /// Cancel records for the contacts the engine ended (a layout switch, a reload).
    private func recordEndedContacts(now: UInt64) {
        guard !engine.endedContacts.isEmpty else { return }
        for key in engine.takeEndedContacts() {
            writeTouchRecord(.cancel, key: key, x: nil, y: nil, now: now, layout: nil)
        }
    }

    func connectionClosed(_ connection: Connection) {
        let now = Clock.monotonicNanos()
        for key in engine.endContacts(stream: connection.number) {
            writeTouchRecord(.cancel, key: key, x: nil, y: nil, now: now, layout: nil)
        }
        scheduleTouch(engine.nextTouchDeadline)
    }

    /// Ends every contact in flight (the daemon is stopping), with their cancel records.
    func endAllContacts() {
        engine.endAllContacts()
        recordEndedContacts(now: Clock.monotonicNanos())
        scheduleTouch(nil)
    }

    // MARK: - Children

    /// A finished child: its event-log record and a log line.
    func childExited(_ exit: ChildExit) {
        if eventLog.isEnabled {
            ChildExitRecord.write(
                seq: exit.seq, status: exit.status, signal: exit.signal, timedOut: exit.timedOut,
                durationMs: exit.durationMs, into: eventLog.begin())
            _ = eventLog.commit()
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

    // MARK: - status and layouts

    func writeStatus(id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        ReplyWriter.id(id, out)
        let uptimeMs = (Clock.monotonicNanos() - startNanos) / 1_000_000
        out.append(#""uptime":"#)
        out.append(number: Double(uptimeMs) / 1000)
        out.append(#","generation":"#)
        out.append(uint: generation)
        out.append(#","layout":"#)
        out.append(jsonString: engine.currentLayoutName)
        out.append(#","taps":"#)
        out.append(uint: engine.seq)
        out.append(#","outcomes":{"#)
        var first = true
        for outcome in Outcome.allCases where engine.outcomeCounts[outcome] > 0 {
            if !first { out.append(0x2C) }
            first = false
            out.append(0x22)
            out.append(outcome.name)
            out.append(#"":"#)
            out.append(uint: engine.outcomeCounts[outcome])
        }
        out.append(#"},"children":"#)
        out.append(int: Int64(supervisor.runningCount))
        out.append(#","queued":"#)
        out.append(int: Int64(supervisor.queuedCount))
        out.append(#","clients":"#)
        out.append(int: Int64(clientCount()))
        out.append(#","eventLog":{"path":"#)
        if let path = eventLog.path { out.append(jsonString: path) } else { out.append("null") }
        out.append(#","ok":"#)
        out.append(eventLog.ok ? "true" : "false")
        if let error = eventLog.lastError {
            out.append(#","error":"#)
            out.append(jsonString: error)
        }
        out.append("}}\n")
    }

    /// Every layout with its size and every grid's path and rect in pre-order (name and tag when set).
    func writeLayouts(id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        ReplyWriter.id(id, out)
        out.append(#""layouts":["#)
        for (index, layout) in engine.active.layouts.enumerated() {
            if index > 0 { out.append(0x2C) }
            out.append(#"{"name":"#)
            out.append(jsonString: layout.name)
            out.append(#","width":"#)
            out.append(number: layout.frame.width)
            out.append(#","height":"#)
            out.append(number: layout.frame.height)
            out.append(#","current":"#)
            out.append(index == engine.currentLayout ? "true" : "false")
            out.append(#","grids":["#)
            for (k, grid) in layout.tree.preorder().enumerated() {
                if k > 0 { out.append(0x2C) }
                out.append(#"{"path":"#)
                ReplyWriter.gridPath(layout.tree, grid, out)
                out.append(#","rect":"#)
                ReplyWriter.rect(layout.resolved.rects[grid], out)
                if let info = layout.tree.info(of: grid) {
                    if let name = info.name {
                        out.append(#","name":"#)
                        out.append(jsonString: name)
                    }
                    if info.tag != 0 {
                        out.append(#","tag":"#)
                        out.append(int: info.tag)
                    }
                }
                out.append(0x7D)
            }
            out.append("]}")
        }
        out.append("]}\n")
    }
}
