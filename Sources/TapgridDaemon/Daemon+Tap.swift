import TapgridCore
import TapgridSystem

/// The hot path: hit-test, debounce, route, log, reply. Everything is written straight into the
/// event log's and the client's reusable byte buffers; no Foundation, no Strings built per tap
/// (children are the exception: starting a process costs far more than its request's strings).
extension Daemon {
    func handleTap(_ client: Client, _ request: Request, id: UnsafeBufferPointer<UInt8>?, checkOnly: Bool) {
        let active = self.active
        let out = client.output
        guard let x = request.x else {
            ReplyWriter.error(.badRequest, "\"x\" is required", id: id, out)
            return
        }
        guard let y = request.y else {
            ReplyWriter.error(.badRequest, "\"y\" is required", id: id, out)
            return
        }
        let layoutIndex: Int
        if let name = request.layout {
            guard let index = active.layoutIndex(named: name) else {
                ReplyWriter.error(.unknownLayout, "unknown layout \(jsonEscaped(name))", id: id, out)
                return
            }
            layoutIndex = index
        } else {
            layoutIndex = currentLayout
        }
        // Indexes only: the layout is read in place, and the whole GridInfo is copied only by
        // the handlers that use it.
        let target = active.layouts.target(layout: layoutIndex, x: x, y: y)
        let grid = target?.grid
        let infoSlot = target?.info ?? -1
        let slot = target?.handler ?? -1
        var outcome = Outcome.checked
        var reason: String? = nil
        var tapSeq: UInt64 = 0
        if !checkOnly {
            seq += 1
            taps += 1
            tapSeq = seq
            let now = Clock.monotonicNanos()
            if grid == nil {
                outcome = .miss
            } else if slot < 0 {
                outcome = .unrouted
            } else if isSuppressed(layout: layoutIndex, grid: grid!, explicitLayout: request.layout != nil, now: now) {
                outcome = .suppressed
            } else {
                (outcome, reason) = route(
                    slot: Int(slot), layoutIndex: layoutIndex, grid: grid!, info: active.layouts[layoutIndex].tree.infos[infoSlot], x: x, y: y, now: now)
                if outcome == .dispatched && active.layouts[layoutIndex].debounceMs > 0 {
                    lastDispatch[UInt64(layoutIndex) << 32 | UInt64(grid!)] = now
                }
            }
            outcomeCounts.add(outcome)
        }
        // Looked up once for both the record and the reply.
        let hit = grid.map { active.hit(layout: layoutIndex, grid: $0, slot: infoSlot) }
        let tail = active.tail(handler: slot, outcome: outcome)

        // The event-log record goes out before the reply is queued: a client never sees a reply
        // for a tap the log does not have (unless the reply says "logged": false).
        var logged = true
        if !checkOnly && eventLog.isEnabled {
            let record = eventLog.begin()
            record.append(#""seq":"#)
            record.append(uint: tapSeq)
            record.append(active.recordHeads[layoutIndex])
            record.append(number: x)
            record.append(#","y":"#)
            record.append(number: y)
            if let hit {
                record.append(#","hit":"#)
                record.append(hit)
            } else {
                record.append(#","hit":null,"name":null,"tag":null,"actionData":null"#)
            }
            record.append(tail)
            logged = eventLog.commit()
        }

        out.append(0x7B)
        ReplyWriter.id(id, out)
        if !checkOnly {
            out.append(#""seq":"#)
            out.append(uint: tapSeq)
            out.append(0x2C)
        }
        out.append(active.replyHeads[layoutIndex])
        if let hit {
            out.append(#"{"path":"#)
            out.append(hit)
            out.append(0x7D)
        } else {
            out.append("null")
        }
        out.append(tail)
        if let reason {
            out.append(#","reason":"#)
            out.append(jsonString: reason)
        }
        if !logged { out.append(#","logged":false"#) }
        out.append("}\n")
        if log.verbose {
            log.debug("tap seq=\(tapSeq) layout=\(active.layouts[layoutIndex].name) x=\(x) y=\(y) outcome=\(outcome)")
        }
    }

    /// Debounce (contract, "Socket protocol"): a grid that had a tap dispatched within the
    /// layout's `debounceMs`, or a tap without an explicit `layout` right after a layout switch.
    private func isSuppressed(layout: Int, grid: Int, explicitLayout: Bool, now: UInt64) -> Bool {
        if !explicitLayout && now < switchQuietUntil { return true }
        let window = UInt64(max(0, active.layouts[layout].debounceMs)) * 1_000_000
        guard window > 0, let last = lastDispatch[UInt64(layout) << 32 | UInt64(grid)] else { return false }
        return now &- last < window
    }

    /// Runs the grid's handler; returns the outcome and, for denied/failed, why.
    private func route(
        slot: Int, layoutIndex: Int, grid: Int, info: GridInfo, x: Double, y: Double, now: UInt64
    ) -> (Outcome, String?) {
        let handler = active.config.handlers[slot]
        switch handler.kind {
        case .layout:
            guard case .string(let name)? = info.actionData else {
                return (.denied, "a layout handler needs actionData naming a layout")
            }
            guard let target = active.config.layoutIndex(named: name) else {
                return (.denied, "unknown layout \(jsonEscaped(name))")
            }
            let quietMs = max(active.layouts[currentLayout].debounceMs, active.layouts[target].debounceMs)
            switchQuietUntil = quietMs > 0 ? now + UInt64(quietMs) * 1_000_000 : 0
            if target != currentLayout { log.info("layout \(name) is current (seq \(seq), handler \(handler.name))") }
            currentLayout = target
            return (.dispatched, nil)
        case .log:
            writeLogHandlerLine(handler: slot, layoutIndex: layoutIndex, grid: grid, info: info)
            return (.dispatched, nil)
        case .url, .script:
            let layout = active.layouts[layoutIndex]
            let request = ChildRequest(
                handlerIndex: slot, handler: handler, layout: layout.name, gridPath: layout.tree.path(of: grid),
                name: info.name, tag: info.tag == 0 ? nil : info.tag, actionData: info.actionData, x: x, y: y, seq: seq)
            switch supervisor.submit(request) {
            case .dispatched: return (.dispatched, nil)
            case .busy: return (.busy, nil)
            case .denied(let why):
                log.info("seq \(seq): handler \(handler.name) denied the tap: \(why)")
                return (.denied, why)
            case .failed(let why):
                log.warning("seq \(seq): handler \(handler.name) failed: \(why)")
                return (.failed, why)
            }
        }
    }

    /// A `log` handler's record: one structured line on stderr (the journal under systemd).
    private func writeLogHandlerLine(handler: Int, layoutIndex: Int, grid: Int, info: GridInfo) {
        let layout = active.layouts[layoutIndex]
        lineScratch.removeAll()
        log.appendPrefix(.info, to: lineScratch)
        lineScratch.append("tap seq=")
        lineScratch.append(uint: seq)
        lineScratch.append(" layout=")
        lineScratch.append(jsonString: layout.name)
        lineScratch.append(" grid=")
        ReplyWriter.gridPath(layout.tree, grid, lineScratch)
        lineScratch.append(" name=")
        appendName(info, lineScratch)
        lineScratch.append(" tag=")
        appendTag(info, lineScratch)
        lineScratch.append(" handler=")
        lineScratch.append(jsonString: active.config.handlers[handler].name)
        lineScratch.append(" actionData=")
        appendActionData(info, lineScratch)
        lineScratch.append(0x0A)
        Log.writeStderr(lineScratch.bytes)
    }

    private func appendName(_ info: GridInfo?, _ out: ByteBuffer) {
        if let name = info?.name { out.append(jsonString: name) } else { out.append("null") }
    }

    private func appendTag(_ info: GridInfo?, _ out: ByteBuffer) {
        if let tag = info?.tag, tag != 0 { out.append(int: tag) } else { out.append("null") }
    }

    private func appendActionData(_ info: GridInfo?, _ out: ByteBuffer) {
        guard let info else {
            out.append("null")
            return
        }
        var text = info.actionDataJSON
        text.withUTF8 { out.append($0) }
    }

}
