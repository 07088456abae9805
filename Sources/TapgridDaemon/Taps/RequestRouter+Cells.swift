import TapgridCore

/// The ops that read the whole line's JSON (docs/cell-state.md): `set`,
/// `layouts` with `state`, `load` and `unload`. Rare next to taps, so they parse the line into a
/// `JSONValue` (the core's parser; the scanner has already checked it is strict JSON).
extension RequestRouter {
    /// The line as a JSON object, or nil after replying with why not.
    private func object(_ line: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) -> JSONValue? {
        do throws(JSONSyntaxError) {
            return try JSONParser.parse(Array(line), lenient: false)
        } catch {
            ReplyWriter.error(.parseError, error.description, id: id, out)
            return nil
        }
    }

    private func refuse(_ error: RequestError, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        ReplyWriter.error(error.errorCode, error.message, id: id, out)
    }

    func layouts(_ line: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        let engine = output.engine
        var withState = false
        // `{"op":"layouts"}` alone needs no parse; only a line that may carry `state` does.
        if line.count > 20 {
            guard let object = object(line, id: id, out) else { return }
            switch ControlRequest.layoutsWithState(object) {
            case .failure(let error): return refuse(error, id: id, out)
            case .success(let flag): withState = flag
            }
        }
        ReplyWriter.layouts(
            engine.active, current: engine.currentLayout,
            cells: withState ? { [engine] layout, grid in engine.cellState(layout: layout, grid: grid) } : nil, id: id, out)
    }

    func set(_ line: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        guard mayControl(connection) else {
            return ReplyWriter.error(.forbidden, "uid \(connection.uid) may not set cell state (socket.allowControl)", id: id, out)
        }
        guard let object = object(line, id: id, out) else { return }
        let request: ControlRequest.Set
        // The config's style names, listed only for a `set` naming one: a style it lacks is
        // bad_request (docs/panel.md "What a cell shows").
        let styles = object["style"] == nil ? [] : output.engine.active.config.styles.keys.sorted()
        switch ControlRequest.set(object, styles: styles) {
        case .failure(let error): return refuse(error, id: id, out)
        case .success(let read): request = read
        }
        switch output.engine.set(layout: request.layout, grid: request.grid, request.change) {
        case .failure(.unknownLayout(let message)): ReplyWriter.error(.unknownLayout, message, id: id, out)
        case .failure(.unknownGrid(let message)): ReplyWriter.error(.unknownGrid, message, id: id, out)
        case .failure(.badValue(let message)): ReplyWriter.error(.badRequest, message, id: id, out)
        case .success(let (grid, layout, update)):
            if let update { output.recordState(update, source: connection.origin == .mqtt ? .mqtt : .socket) }
            let loaded = output.engine.active.layouts[layout]
            ReplyWriter.cellSet(layout: loaded.name, path: loaded.tree.path(of: grid), id: id, out)
        }
    }

    func load(_ line: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        guard mayControl(connection) else {
            return ReplyWriter.error(.forbidden, "uid \(connection.uid) may not load layouts (socket.allowControl)", id: id, out)
        }
        guard let object = object(line, id: id, out) else { return }
        switch ControlRequest.load(object) {
        case .failure(let error): refuse(error, id: id, out)
        case .success(let request): answer(control.load(layout: request.layout, definition: request.definition), id: id, out)
        }
    }

    func unload(_ line: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        guard mayControl(connection) else {
            return ReplyWriter.error(.forbidden, "uid \(connection.uid) may not unload layouts (socket.allowControl)", id: id, out)
        }
        guard let object = object(line, id: id, out) else { return }
        switch ControlRequest.unload(object) {
        case .failure(let error): refuse(error, id: id, out)
        case .success(let name): answer(control.unload(layout: name), id: id, out)
        }
    }

    private func answer(_ outcome: PushOutcome, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        switch outcome {
        case .done(let generation): ReplyWriter.loaded(generation: generation, unchanged: false, id: id, out)
        case .unchanged(let generation): ReplyWriter.loaded(generation: generation, unchanged: true, id: id, out)
        case .refused(let code, let message): ReplyWriter.error(code, message, id: id, out)
        }
    }
}
