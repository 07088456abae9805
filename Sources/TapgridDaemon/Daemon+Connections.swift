@preconcurrency import Glibc
import TapgridCore
import TapgridSystem

/// Accepting connections: the client limit and the peer allow list are checked here, once.
extension Daemon {
    func acceptAll() {
        while listenerFD >= 0 && acceptPausedUntil == 0 {
            let accepted: OwnedFD?
            do throws(Errno) {
                accepted = try UnixSocket.accept(listenerFD)
            } catch {
                if error.rawValue == EMFILE || error.rawValue == ENFILE {
                    // Out of descriptors: the listener stays readable, so stop watching it for a
                    // moment instead of spinning; queued connections wait in the backlog.
                    log.warning("accept: \(error); pausing accepts for 100 ms")
                    pauseAccepting()
                } else {
                    log.error("accept: \(error)")
                }
                return
            }
            guard let connection = accepted else { return }
            admit(connection.release())
        }
    }

    private func pauseAccepting() {
        try? epoll.remove(listenerFD)
        acceptPausedUntil = Clock.monotonicNanos() + 100_000_000
    }

    func resumeAccepting() {
        acceptPausedUntil = 0
        guard listenerFD >= 0 else { return }
        try? epoll.add(listenerFD, events: .readable, data: EpollToken.make(kind: EpollToken.listener))
    }

    /// Checks the limit and the allow list, then registers the connection.
    private func admit(_ fd: CInt) {
        if clientCount >= config.socket.maxClients {
            refuse(fd, .tooManyClients, "too many clients (socket.maxClients is \(config.socket.maxClients))")
            return
        }
        var uid = UInt32.max
        var gids: [UInt32] = []
        if let credentials = try? UnixSocket.peerCredentials(fd) {
            uid = credentials.uid
            gids = [credentials.gid]
            if config.socket.allow != nil || config.socket.allowControl != nil,
                let supplementary = try? UnixSocket.peerGroups(fd)
            {
                gids.append(contentsOf: supplementary)
            }
        }
        if let allow = config.socket.allow, !allow.allows(uid: uid, gids: gids, daemonUID: daemonUID) {
            log.info("connection refused: uid \(uid) is not in socket.allow")
            refuse(fd, .forbidden, "uid \(uid) may not connect (socket.allow)")
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = clients.count
            clients.append(nil)
            slotGenerations.append(1)
        }
        let token = EpollToken.make(kind: EpollToken.client, slot: slot, generation: slotGenerations[slot])
        let client = Client(fd: fd, slot: slot, token: token, uid: uid, gids: gids)
        clients[slot] = client
        clientCount += 1
        updateInterest(client)
        if client.registered == nil {
            closeClient(client)
        }
    }

    /// Sends one error line to a connection we will not keep, then closes it. A fresh socket's
    /// buffer always has room for one short line, so a single non-blocking send suffices.
    private func refuse(_ fd: CInt, _ code: ErrorCode, _ message: String) {
        lineScratch.removeAll()
        ReplyWriter.error(code, message, id: nil, lineScratch)
        _ = try? FD.send(fd, lineScratch.bytes)
        FD.close(fd)
    }
}

/// Reading, framing into lines, writing and closing client connections.
extension Daemon {
    func clientEvent(_ client: Client, _ events: EpollEvents) {
        if !events.isDisjoint(with: [.readable, .hangup, .error, .readHangup]) && !client.readClosed && !client.stopReading {
            readFrom(client)
            return  // readFrom flushes
        }
        flush(client)
    }

    /// Reads what is available (4 chunks per event, for fairness; at shutdown up to 1 MiB, what
    /// the kernel already holds for us), then handles the complete lines.
    func readFrom(_ client: Client, untilDrained: Bool = false) {
        var rounds = 0
        reading: while rounds < (untilDrained ? 64 : 4) {
            rounds += 1
            let outcome: FD.IOResult
            do throws(Errno) {
                // Into the loop's one read buffer, then only the bytes read into the client's input.
                outcome = try FD.read(client.fd, into: readBuffer)
                if case .transferred(let count) = outcome, count > 0 {
                    client.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                }
            } catch {
                log.debug("client \(client.slot): read: \(error)")
                closeClient(client)
                return
            }
            switch outcome {
            case .transferred(0):
                client.readClosed = true
                break reading
            case .transferred(let count):
                // Waiting for a reload, or past the line limit: stop pulling more than we will use.
                if client.input.count > Client.maxLineBytes + 2 * Client.readChunk && !untilDrained { break reading }
                // A short read drained the socket: skip the read that would only say EAGAIN (the
                // level-triggered epoll reports the client again if more arrives meanwhile).
                if count < Client.readChunk && !untilDrained { break reading }
            case .wouldBlock:
                break reading
            }
        }
        processInput(client)
        flush(client)
    }

    /// Handles every complete line in the client's input, in order, unless a reload pauses it.
    func processInput(_ client: Client) {
        if client.closeAfterFlush || client.doomed {
            client.input.removeAll()
            return
        }
        var consumed = 0
        let count = client.input.count
        client.input.withUnsafeBufferPointer { buffer in
            var searchFrom = client.scanFrom
            while !client.awaitingReload && !client.closeAfterFlush && !client.doomed {
                var newline = -1
                var i = max(searchFrom, consumed)
                while i < count {
                    if buffer[i] == 0x0A {
                        newline = i
                        break
                    }
                    i += 1
                }
                guard newline >= 0 else {
                    searchFrom = count
                    break
                }
                var end = newline
                if end > consumed && buffer[end - 1] == 0x0D { end -= 1 }
                let line = UnsafeBufferPointer(rebasing: buffer[consumed..<end])
                consumed = newline + 1
                searchFrom = consumed
                if line.count > Client.maxLineBytes {
                    lineTooLong(client)
                } else {
                    handleLine(client, line)
                }
            }
            client.scanFrom = max(0, searchFrom - consumed)
        }
        if consumed > 0 { client.input.removeFirst(consumed) }
        if client.awaitingReload {
            if client.input.count > Client.maxPendingOutput {
                log.warning("client \(client.slot) sent more than 1 MiB while its reload ran; dropped")
                client.doomed = true
            }
            return
        }
        guard !client.closeAfterFlush && !client.doomed else { return }
        let rest = client.input.count
        if rest > Client.maxLineBytes + 1 || (rest == Client.maxLineBytes + 1 && client.input.last != 0x0D) {
            lineTooLong(client)
            return
        }
        if client.readClosed && rest > 0 {
            // A last line without `\n` before the peer shut its writing side is still a request.
            client.input.withUnsafeBufferPointer { buffer in
                var end = buffer.count
                if buffer[end - 1] == 0x0D { end -= 1 }
                handleLine(client, UnsafeBufferPointer(rebasing: buffer[0..<end]))
            }
            client.input.removeAll()
            client.scanFrom = 0
        }
    }

    private func lineTooLong(_ client: Client) {
        ReplyWriter.error(
            .lineTooLong, "request line longer than \(Client.maxLineBytes) bytes", id: nil, client.output)
        client.closeAfterFlush = true
        client.stopReading = true
    }

    /// Writes queued output until the kernel stops taking it; closes the client when it is done.
    func flush(_ client: Client) {
        if client.doomed {
            closeClient(client)
            return
        }
        while client.pendingOutput > 0 {
            let result: Result<FD.IOResult, Errno>
            do throws(Errno) {
                result = .success(try FD.send(client.fd, UnsafeRawBufferPointer(rebasing: client.output.bytes[client.outputOffset...])))
            } catch { result = .failure(error) }
            switch result {
            case .success(.transferred(let n)): client.outputOffset += n
            case .success(.wouldBlock): break
            case .failure(let error):
                log.debug("client \(client.slot): send: \(error)")
                closeClient(client)
                return
            }
            if case .success(.wouldBlock) = result { break }
        }
        if client.pendingOutput == 0 && client.outputOffset > 0 {
            client.output.removeAll(shrinkingAbove: 1 << 18)
            client.outputOffset = 0
        }
        if client.pendingOutput == 0 && !client.awaitingReload
            && (client.closeAfterFlush || client.readClosed || client.stopReading)
        {
            closeClient(client)
            return
        }
        updateInterest(client)
    }

    /// Registers readable while we still read, writable only while output is pending.
    func updateInterest(_ client: Client) {
        var wanted: EpollEvents = []
        if !client.readClosed && !client.stopReading { wanted.insert(.readable) }
        if client.pendingOutput > 0 { wanted.insert(.writable) }
        guard wanted != client.registered else { return }
        do throws(Errno) {
            if wanted.isEmpty {
                try epoll.remove(client.fd)
                client.registered = nil
            } else if client.registered == nil {
                try epoll.add(client.fd, events: wanted, data: client.token)
                client.registered = wanted
            } else {
                try epoll.modify(client.fd, events: wanted, data: client.token)
                client.registered = wanted
            }
        } catch {
            log.error("epoll_ctl for client \(client.slot): \(error)")
            client.doomed = true
        }
    }

    func closeClient(_ client: Client) {
        guard clients[client.slot] === client else { return }
        if client.registered != nil { try? epoll.remove(client.fd) }
        client.registered = nil
        FD.close(client.fd)
        clients[client.slot] = nil
        slotGenerations[client.slot] = (slotGenerations[client.slot] &+ 1) & 0xFF_FFFF
        freeSlots.append(client.slot)
        clientCount -= 1
    }
}
