import TapgridCore
import TapgridSystem

/// Accepting clients (docs/socket-protocol.md): admission (`socket.maxClients`, `socket.allow`),
/// refusals with one error line, running out of descriptors (a reserve descriptor to refuse
/// with, accepting paused for a moment without one), and closing the listener at shutdown.
extension SocketServer {
    func acceptAll() {
        while let listenerFD = listener?.rawValue, !acceptPaused {
            let accepted: OwnedFD?
            do throws(Errno) {
                accepted = try UnixSocket.accept(listenerFD)
            } catch {
                if error == Errno.noFileDescriptors || error == Errno.systemFileTableFull {
                    if !outOfDescriptors {
                        log.warning("accept: \(error); refusing new clients with too_many_clients until descriptors are free")
                        outOfDescriptors = true
                    }
                    if refuseOneWithReserve() { continue }
                    // No reserve to spend: the listener stays readable, so stop watching it for a
                    // moment instead of spinning; queued connections wait in the backlog.
                    if let listening { loop.unregister(listening) }
                    listening = nil
                    acceptPaused = true
                    loop.schedule(acceptBackoff, after: 100_000_000)
                } else {
                    log.error("accept: \(error)")
                }
                return
            }
            guard let connection = accepted else { return }
            if outOfDescriptors {
                outOfDescriptors = false
                log.info("descriptors are free again: accepting clients")
            }
            admit(connection)
        }
    }


    /// Accepts one waiting client on the reserve descriptor and refuses it.
    /// - Returns: false when there is no reserve or nothing waits (the caller pauses accepting).
    func refuseOneWithReserve() -> Bool {
        guard reserve != nil, let listenerFD = listener?.rawValue else {
            reserve = Files.openReserveDescriptor()
            return false
        }
        reserve = nil  // closed: its number is free for the accept
        defer { reserve = Files.openReserveDescriptor() }
        guard let accepted = try? UnixSocket.accept(listenerFD) else { return false }
        refuse(accepted, .tooManyClients, "the daemon is out of file descriptors (RLIMIT_NOFILE); try again later")
        return true
    }

    func resumeAccepting() {
        guard acceptPaused else { return }
        acceptPaused = false
        guard let listenerFD = listener?.rawValue else { return }
        listening = try? loop.register(listenerFD, events: .readable, handler: self, token: Self.listenerToken)
    }

    /// Checks the limit and the allow list, then registers the connection.
    func admit(_ socket: consuming OwnedFD) {
        let fd = socket.rawValue
        if count >= admission.maxClients {
            refuse(socket, .tooManyClients, "too many clients (socket.maxClients is \(admission.maxClients))")
            return
        }
        var uid = UInt32.max
        var gids: [UInt32] = []
        if let credentials = try? UnixSocket.peerCredentials(fd) {
            uid = credentials.uid
            gids = [credentials.gid]
            if admission.needsGroups, let supplementary = try? UnixSocket.peerGroups(fd) {
                gids.append(contentsOf: supplementary)
            }
        }
        if let allow = admission.allow, !allow.allows(uid: uid, gids: gids, daemonUID: admission.daemonUID) {
            log.info("connection refused: uid \(uid) is not in socket.allow")
            refuse(socket, .forbidden, "uid \(uid) may not connect (socket.allow)")
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = connections.count
            connections.append(nil)
            slotGenerations.append(1)
        }
        let token = UInt64(slotGenerations[slot]) << 32 | UInt64(UInt32(truncatingIfNeeded: slot))
        accepted += 1
        let connection = Connection(descriptor: socket, number: accepted, slot: slot, token: token, uid: uid, gids: gids)
        connections[slot] = connection
        count += 1
        updateInterest(connection)
        if connection.registration == nil { close(connection) }
    }

    /// Sends one error line to a connection we will not keep, then closes it. A fresh socket's
    /// buffer always has room for one short line, so a single non-blocking send suffices.
    func refuse(_ socket: consuming OwnedFD, _ code: ErrorCode, _ message: String) {
        scratch.removeAll()
        ReplyWriter.error(code, message, id: nil, scratch)
        _ = try? FD.send(socket.rawValue, scratch.bytes)
    }

    /// A connection number for a client that is not a socket (a panel session): unique within the run.
    func takeNumber() -> Int {
        accepted += 1
        return accepted
    }

    /// Stops accepting and removes the socket file if it is still the one we created.
    func closeListener() {
        guard listener != nil else { return }
        if let listening { loop.unregister(listening) }
        listening = nil
        listener = nil
        acceptPaused = false
        loop.schedule(acceptBackoff, at: nil)
        if let (path, identity) = socketFile, Files.identity(path) == identity { try? Files.remove(path) }
    }
}
