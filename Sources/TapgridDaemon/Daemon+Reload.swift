import TapgridCore
import TapgridSystem

/// Reloading (SIGHUP and op `reload`): load off the loop, swap atomically or keep the old config.
///
/// A client that sent `reload` is paused until the load it asked for is done: its later request
/// lines wait, so its replies stay in request order. A request arriving while a load is already
/// running gets a fresh load after that one (the file may have changed in between).
extension Daemon {
    func requestReload(from client: Client?) {
        if reloadRunning {
            reloadQueued = true
            if let client { nextReloadWaiters.append((client.slot, slotGenerations[client.slot])) }
            return
        }
        reloadRunning = true
        if let client { reloadWaiters.append((client.slot, slotGenerations[client.slot])) }
        reloader.start(path: configPath)
    }

    func handleReloadResults() {
        for result in reloader.takeResults() {
            let failure = apply(result)
            let waiters = reloadWaiters
            reloadWaiters = nextReloadWaiters
            nextReloadWaiters = []
            reloadRunning = false
            if reloadQueued {
                reloadQueued = false
                reloadRunning = true
                reloader.start(path: configPath)
            }
            for (slot, slotGeneration) in waiters {
                guard slot < clients.count, let client = clients[slot], slotGenerations[slot] == slotGeneration else {
                    continue  // gone meanwhile
                }
                let id = client.reloadID
                client.awaitingReload = false
                client.reloadID = nil
                if let failure {
                    writeReloadError(failure, id: id, client.output)
                } else {
                    client.output.append(0x7B)
                    if let id { id.withUnsafeBufferPointer { ReplyWriter.id($0, client.output) } }
                    client.output.append(#""ok":true,"generation":"#)
                    client.output.append(uint: generation)
                    client.output.append("}\n")
                }
                processInput(client)
                flush(client)
            }
        }
    }

    private func writeReloadError(_ message: String, id: [UInt8]?, _ out: ByteBuffer) {
        if let id {
            id.withUnsafeBufferPointer { ReplyWriter.error(.configError, message, id: $0, out) }
        } else {
            ReplyWriter.error(.configError, message, id: nil, out)
        }
    }

    /// Swaps in a loaded config, or keeps the old one.
    /// - Returns: nil on success, else the errors' text (every error, one per line).
    private func apply(_ result: LoadResult) -> String? {
        for warning in result.diagnostics.warnings { log.warning(warning.description) }
        guard let new = result.config, !result.diagnostics.hasErrors else {
            var errors = result.diagnostics.errors.map(\.description)
            if errors.isEmpty { errors = ["\(configPath): the config could not be loaded"] }
            let text = errors.joined(separator: "\n")
            log.error("reload failed, keeping generation \(generation): \(text)")
            return text
        }
        let currentName = config.layouts[currentLayout].name
        if new.socket.path != config.socket.path || new.socket.mode != config.socket.mode {
            log.warning("socket.path and socket.mode changes take effect at the next start")
        }
        generation += 1
        active = ActiveConfig(config: new, generation: generation)
        currentLayout = new.layoutIndex(named: currentName) ?? new.layoutIndex(named: new.initialLayout) ?? 0
        lastDispatch.removeAll()
        switchQuietUntil = 0
        eventLog.configure(path: EventLog.resolvePath(new.eventLog, environment: environment))
        log.info("config reloaded: generation \(generation), layout \(new.layouts[currentLayout].name)")
        return nil
    }
}
