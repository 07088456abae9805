import TapgridCore
import TapgridSystem

/// The `status` and `layouts` replies.
extension Daemon {
    func writeStatus(id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        ReplyWriter.id(id, out)
        let uptimeMs = (Clock.monotonicNanos() - startNanos) / 1_000_000
        out.append(#""uptime":"#)
        out.append(number: Double(uptimeMs) / 1000)
        out.append(#","generation":"#)
        out.append(uint: generation)
        out.append(#","layout":"#)
        out.append(jsonString: config.layouts[currentLayout].name)
        out.append(#","taps":"#)
        out.append(uint: taps)
        out.append(#","outcomes":{"#)
        var first = true
        for outcome in Outcome.allCases where outcomeCounts[outcome] > 0 {
            if !first { out.append(0x2C) }
            first = false
            out.append(0x22)
            out.append(outcome.name)
            out.append(#"":"#)
            out.append(uint: outcomeCounts[outcome])
        }
        out.append(#"},"children":"#)
        out.append(int: Int64(supervisor.runningCount))
        out.append(#","queued":"#)
        out.append(int: Int64(supervisor.queuedCount))
        out.append(#","clients":"#)
        out.append(int: Int64(clientCount))
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
        for (index, layout) in config.layouts.enumerated() {
            if index > 0 { out.append(0x2C) }
            out.append(#"{"name":"#)
            out.append(jsonString: layout.name)
            out.append(#","width":"#)
            out.append(number: layout.frame.width)
            out.append(#","height":"#)
            out.append(number: layout.frame.height)
            out.append(#","current":"#)
            out.append(index == currentLayout ? "true" : "false")
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
