import TapgridCore
import TapgridSystem

/// The `status` and `layouts` replies.
extension Daemon {
    func writeStatus(id: UnsafeBufferPointer<UInt8>?, _ out: inout [UInt8]) {
        out.append(0x7B)
        ReplyWriter.id(id, &out)
        let uptimeMs = (Clock.monotonicNanos() - startNanos) / 1_000_000
        ReplyWriter.raw(#""uptime":"#, &out)
        JSONWriter.appendNumber(Double(uptimeMs) / 1000, to: &out)
        ReplyWriter.raw(#","generation":"#, &out)
        ReplyWriter.uint(generation, &out)
        ReplyWriter.raw(#","layout":"#, &out)
        JSONWriter.appendString(config.layouts[currentLayout].name, to: &out)
        ReplyWriter.raw(#","taps":"#, &out)
        ReplyWriter.uint(taps, &out)
        ReplyWriter.raw(#","outcomes":{"#, &out)
        var first = true
        for outcome in Outcome.allCases where outcomeCounts[outcome.rawValue] > 0 {
            if !first { out.append(0x2C) }
            first = false
            out.append(0x22)
            ReplyWriter.raw(outcome.name, &out)
            ReplyWriter.raw(#"":"#, &out)
            ReplyWriter.uint(outcomeCounts[outcome.rawValue], &out)
        }
        ReplyWriter.raw(#"},"children":"#, &out)
        JSONWriter.appendInt(Int64(supervisor.runningCount), to: &out)
        ReplyWriter.raw(#","queued":"#, &out)
        JSONWriter.appendInt(Int64(supervisor.queuedCount), to: &out)
        ReplyWriter.raw(#","clients":"#, &out)
        JSONWriter.appendInt(Int64(clientCount), to: &out)
        ReplyWriter.raw(#","eventLog":{"path":"#, &out)
        if let path = eventLog.path { JSONWriter.appendString(path, to: &out) } else { ReplyWriter.raw("null", &out) }
        ReplyWriter.raw(#","ok":"#, &out)
        ReplyWriter.raw(eventLog.ok ? "true" : "false", &out)
        if let error = eventLog.lastError {
            ReplyWriter.raw(#","error":"#, &out)
            JSONWriter.appendString(error, to: &out)
        }
        ReplyWriter.raw("}}\n", &out)
    }

    /// Every layout with its size and every grid's path and rect in pre-order (name and tag when set).
    func writeLayouts(id: UnsafeBufferPointer<UInt8>?, _ out: inout [UInt8]) {
        out.append(0x7B)
        ReplyWriter.id(id, &out)
        ReplyWriter.raw(#""layouts":["#, &out)
        for (index, layout) in config.layouts.enumerated() {
            if index > 0 { out.append(0x2C) }
            ReplyWriter.raw(#"{"name":"#, &out)
            JSONWriter.appendString(layout.name, to: &out)
            ReplyWriter.raw(#","width":"#, &out)
            JSONWriter.appendNumber(layout.frame.width, to: &out)
            ReplyWriter.raw(#","height":"#, &out)
            JSONWriter.appendNumber(layout.frame.height, to: &out)
            ReplyWriter.raw(#","current":"#, &out)
            ReplyWriter.raw(index == currentLayout ? "true" : "false", &out)
            ReplyWriter.raw(#","grids":["#, &out)
            for (k, grid) in layout.tree.preorder().enumerated() {
                if k > 0 { out.append(0x2C) }
                ReplyWriter.raw(#"{"path":"#, &out)
                ReplyWriter.gridPath(layout.tree, grid, &out)
                ReplyWriter.raw(#","rect":"#, &out)
                ReplyWriter.rect(layout.resolved.rects[grid], &out)
                if let info = layout.tree.info(of: grid) {
                    if let name = info.name {
                        ReplyWriter.raw(#","name":"#, &out)
                        JSONWriter.appendString(name, to: &out)
                    }
                    if info.tag != 0 {
                        ReplyWriter.raw(#","tag":"#, &out)
                        JSONWriter.appendInt(info.tag, to: &out)
                    }
                }
                out.append(0x7D)
            }
            ReplyWriter.raw("]}", &out)
        }
        ReplyWriter.raw("]}\n", &out)
    }
}
