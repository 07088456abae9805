import TapgridCore
import TapgridSystem

/// One request line in, one reply line out (or, for `reload`, a reply once the load is done).
extension Daemon {
    func handleLine(_ client: Client, _ line: UnsafeBufferPointer<UInt8>) {
        // Empty or whitespace-only lines are ignored.
        var blank = true
        for byte in line where !(byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A) {
            blank = false
            break
        }
        if blank { return }
        if client.pendingOutput > Client.maxPendingOutput {
            // It keeps sending but does not read its replies: drop it rather than buffer forever.
            log.warning("client \(client.slot) does not read its replies (over 1 MiB queued); dropped")
            client.doomed = true
            return
        }
        // Scanned into a local and passed on borrowed: no copy of the `Request` per tap.
        var request = Request()
        if let failure = RequestScanner.scan(line, into: &request) {
            let code: ErrorCode = failure.error.code == "parse_error" ? .parseError : .badRequest
            ReplyWriter.error(code, failure.message, id: failure.id.map { UnsafeBufferPointer(rebasing: line[$0]) }, client.output)
        } else {
            let id = request.id.map { UnsafeBufferPointer(rebasing: line[$0]) }
            switch request.op {
            case .tap: handleTap(client, request, id: id, checkOnly: false)
            case .hit: handleTap(client, request, id: id, checkOnly: true)
            case .status: writeStatus(id: id, client.output)
            case .layouts: writeLayouts(id: id, client.output)
            case .use: handleUse(client, request, id: id)
            case .reload:
                guard mayControl(client) else {
                    ReplyWriter.error(.forbidden, "uid \(client.uid) may not reload (socket.allowControl)", id: id, client.output)
                    return
                }
                client.awaitingReload = true
                client.reloadID = id.map { Array($0) }
                requestReload(from: client)
            case .unknown(let name):
                ReplyWriter.error(
                    .unknownOp, "unknown op \(jsonEscaped(name)); expected tap, hit, status, reload, use or layouts",
                    id: id, client.output)
            }
        }
    }

    private func handleUse(_ client: Client, _ request: Request, id: UnsafeBufferPointer<UInt8>?) {
        guard mayControl(client) else {
            ReplyWriter.error(.forbidden, "uid \(client.uid) may not switch layouts (socket.allowControl)", id: id, client.output)
            return
        }
        guard let name = request.layout else {
            ReplyWriter.error(.badRequest, "\"layout\" is required", id: id, client.output)
            return
        }
        guard let index = config.layoutIndex(named: name) else {
            ReplyWriter.error(.unknownLayout, "unknown layout \(jsonEscaped(name))", id: id, client.output)
            return
        }
        if index != currentLayout { log.info("layout \(name) is current (op use)") }
        currentLayout = index
        client.output.append(0x7B)
        ReplyWriter.id(id, client.output)
        client.output.append(#""ok":true,"layout":"#)
        client.output.append(jsonString: name)
        client.output.append("}\n")
    }
}
