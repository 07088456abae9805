import TapgridCore
import TapgridHTTP
import TapgridSystem

/// The panel's event streams (docs/panel.md): opening one (a whole `layout`
/// first), watching it for a hang-up, and handing it the batched `tap`, `state`, `layout` and
/// `skipped` events (`PanelBatch` decides who gets which).
extension Panel {
    // MARK: - Event streams

    func openStream(session id: String?) -> HTTPAnswer {
        guard streams.count < settings.maxClients else {
            return refused(PanelRefusal(503, "too_many_clients", "\(settings.maxClients) event streams are open (panel.maxClients)"))
        }
        var session = ""
        if let id {
            guard PanelBody.isSessionID(id) else { return refused(PanelBody.badSession) }
            guard sessions.streamOpened(id, now: Clock.monotonicNanos(), nextNumber: takeNumber) != nil else {
                return refused(Self.sessionsFull)
            }
            session = id
        }
        flush()  // what happened before it opened goes to the others alone
        let stream = HTTPEventStream()
        streams[ObjectIdentifier(stream)] = (stream, session, nil)
        scratch.removeAll()
        scratch.append(PanelDocuments.streamStart)
        let layout = layoutDocument()
        layout.withUnsafeBytes { PanelDocuments.event("layout", data: $0, into: scratch) }
        stream.send(scratch.bytes)
        return .stream(stream)
    }

    /// The stream's connection is known once its answer was queued: watch it for a hang-up.
    func streamStarted(_ stream: HTTPEventStream) {
        guard stream.hangupDescriptor >= 0, streams[ObjectIdentifier(stream)]?.watch == nil else { return }
        let token = nextWatchToken
        nextWatchToken += 1
        do throws(Errno) {
            let watch = try loop.register(stream.hangupDescriptor, events: [.readHangup], handler: self, token: token)
            streams[ObjectIdentifier(stream)]?.watch = (watch, token)
            watched[token] = stream
        } catch {
            log.warning("panel: cannot watch an event stream for hang-ups: \(error)")
        }
    }

    func streamEnded(_ stream: HTTPEventStream) {
        guard let entry = streams.removeValue(forKey: ObjectIdentifier(stream)) else { return }
        if let watch = entry.watch {
            loop.unregister(watch.0)
            watched[watch.token] = nil
        }
        if !entry.session.isEmpty {
            sessions.streamClosed(entry.session, now: Clock.monotonicNanos())
            scheduleExpiry()
        }
    }

    func send(_ bytes: HTTPSharedBytes, to stream: HTTPEventStream) {
        if stream.backlog > Self.maxStreamBacklog {
            log.warning("panel: an event stream took none of \(stream.backlog) bytes; closing it")
            stream.close()
            return
        }
        stream.send(bytes)
        if stream.waitsForWritable { watchWrites(stream) }
    }

    /// The stream's socket is watched for writable while it is full (`waitsForWritable`), for
    /// hang-ups alone otherwise.
    func watchWrites(_ stream: HTTPEventStream) {
        let id = ObjectIdentifier(stream)
        guard var watch = streams[id]?.watch else {
            if stream.waitsForWritable { stream.close() }  // nothing would say when it has room
            return
        }
        do throws(Errno) {
            try loop.modify(&watch.0, events: stream.waitsForWritable ? [.readHangup, .writable] : .readHangup)
            streams[id]?.watch = watch
        } catch {
            log.warning("panel: cannot watch an event stream for room: \(error)")
            stream.close()
        }
    }

    /// Frames the event `name` with `data` and adds it to the batch for every stream (its timer
    /// armed by the first).
    private func broadcast(_ name: StaticString, data: UnsafeRawBufferPointer, isTap: Bool = false) {
        scratch.removeAll()
        PanelDocuments.event(name, data: data, into: scratch)
        if let due = batch.add(scratch.bytes, isTap: isTap, now: Clock.monotonicNanos()) { loop.schedule(flushTimer, at: due) }
    }

    /// Hands the batch to every stream (the lean one to those behind): each kind copied once and
    /// shared by the streams that get it.
    func flush() {
        guard !batch.isEmpty else { return }
        batch.seal(now: Clock.monotonicNanos())
        var full: HTTPSharedBytes?, lean: HTTPSharedBytes?
        for (_, entry) in streams {
            let backlog = entry.stream.backlog
            let bytes: HTTPSharedBytes
            if batch.isLean(forBacklog: backlog) {
                bytes = lean ?? HTTPSharedBytes(copying: batch.bytes(forBacklog: backlog))
                lean = bytes
            } else {
                bytes = full ?? HTTPSharedBytes(copying: batch.bytes(forBacklog: backlog))
                full = bytes
            }
            send(bytes, to: entry.stream)
        }
        batch.clear()
        loop.schedule(flushTimer, at: nil)
        // The streams it resumed are served by `endOfWakeup`'s run, never from here: `flush` is
        // also called from inside libmicrohttpd's callback (`openStream`), where `MHD_run` must
        // not be called again.
    }

    func broadcastLayout() {
        layoutDocument().withUnsafeBytes { broadcast("layout", data: $0) }
    }

    // MARK: - The wakeup's taps and state changes

    func tapDecided(_ decision: TapDecision, source: [UInt8]?, active: ActiveConfig) {
        eventData.removeAll()
        PanelDocuments.tap(decision, active: active, source: source, into: eventData)
        broadcast("tap", data: eventData.bytes, isTap: true)
    }

    func screenChanged(_ state: ScreenState) {
        PanelDocuments.screen(state).withUnsafeBytes { broadcast("screen", data: $0) }
    }

    func stateChanged(layout: Int, grid: Int, state: CellState, active: ActiveConfig) {
        PanelDocuments.state(active, layout: layout, grid: grid, state, icons: icons).withUnsafeBytes { broadcast("state", data: $0) }
    }
}
