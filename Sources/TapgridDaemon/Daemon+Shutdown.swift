@preconcurrency import Glibc
import TapgridCore
import TapgridSystem

/// Graceful shutdown on SIGTERM/SIGINT: stop accepting, answer every complete request line already
/// received, flush replies (at most `drainNanos`), stop children (at most `childWaitNanos`), close
/// the event log, remove our socket file. A second SIGTERM/SIGINT skips the waiting.
extension Daemon {
    func beginShutdown(signal: CInt) {
        guard phase == .running else {
            log.warning("\(Signals.name(signal)) again: exiting without waiting")
            for case let client? in clients { closeClient(client) }
            finish()
            return
        }
        log.info("\(Signals.name(signal)): shutting down")
        closeListener()
        let now = Clock.monotonicNanos()
        phase = .draining(deadline: now + Self.drainNanos)
        supervisor.beginShutdown(graceNanos: Self.childGraceNanos)
        for case let client? in clients {
            // What the kernel already holds for us counts as received: read it, answer it.
            if !client.readClosed && !client.stopReading && !client.closeAfterFlush {
                readFrom(client, untilDrained: true)
            }
            if let still = clients[client.slot], still === client {
                client.stopReading = true
                flush(client)
            }
        }
    }

    func advanceShutdown(now: UInt64) {
        switch phase {
        case .running, .finished:
            return
        case .draining(let deadline):
            let busy = clients.contains { client in
                guard let client else { return false }
                return client.pendingOutput > 0 || client.awaitingReload
            }
            if busy && now < deadline { return }
            if busy { log.warning("shutdown: clients did not take their replies in time; closing them") }
            for case let client? in clients { closeClient(client) }
            phase = .stoppingChildren(deadline: now + Self.childWaitNanos)
            advanceShutdown(now: now)
        case .stoppingChildren(let deadline):
            if !supervisor.isIdle && now < deadline { return }
            if !supervisor.isIdle { log.warning("shutdown: children still running after the grace period") }
            finish()
        }
    }

    private func finish() {
        closeListener()
        eventLog.close()
        phase = .finished
        log.info("stopped cleanly")
    }

    /// Stops accepting and removes the socket file, if it is still the one we created.
    func closeListener() {
        guard listenerFD >= 0 else { return }
        if acceptPausedUntil == 0 { try? epoll.remove(listenerFD) }
        FD.close(listenerFD)
        listenerFD = -1
        acceptPausedUntil = 0
        var st = stat()
        if let (dev, ino) = socketIdentity, lstat(socketPath, &st) == 0, st.st_dev == dev, st.st_ino == ino {
            unlink(socketPath)
        }
    }
}
